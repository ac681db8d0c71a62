// SPDX-License-Identifier: Apache-2.0
// apply_plan(): the whole of `vmxkit apply` against a server, for the command line and the
// Python package alike; and the VM it changes, as community.vmware's modules name one.
#include <fmt/format.h>

#include <utility>

#include "vmxkit/core/error.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/vsphere/apply.h"

namespace vmxkit::vsphere {
namespace {

soap::Moref at_path(Client& client, const std::string& path, std::string_view what) {
  if (auto ref = client.find_by_inventory_path(path)) return *ref;
  throw Error(fmt::format("{}: no {} at inventory path '{}'", client.endpoint(), what, path));
}

// The folder to look in: an inventory path as it is, else a folder of the datacenter.
std::string folder_path(const VmSelector& which) {
  if (which.folder.starts_with('/')) return which.folder;
  if (which.datacenter.empty()) {
    throw Error(
        fmt::format("folder '{}' is not an inventory path (/DC/vm/...): give the "
                    "datacenter too",
                    which.folder));
  }
  const std::string& f = which.folder;
  const bool under_vm = f == "vm" || f.starts_with("vm/");
  return "/" + which.datacenter + (under_vm ? "/" : "/vm/") + f;
}

soap::Moref find_vm_by_uuid(Client& client, const VmSelector& which) {
  soap::Moref datacenter;
  if (!which.datacenter.empty()) {
    datacenter = at_path(client, "/" + which.datacenter, "datacenter");
  }
  const soap::Response r =
      client.call("FindByUuid", soap::find_vm_by_uuid(client.content().search_index, datacenter,
                                                      which.uuid, which.instance_uuid));
  soap::Moref vm = soap::parse_moref(r.result.child("returnval"));
  if (vm.empty()) {
    throw Error(fmt::format("{}: no VM with {} '{}'{}", client.endpoint(),
                            which.instance_uuid ? "instance UUID" : "BIOS UUID", which.uuid,
                            which.datacenter.empty() ? "" : " in datacenter " + which.datacenter));
  }
  return vm;
}

// Lints the VM as read back against its host, as `lint --server` does.
checks::LintResult lint_read_back(Client& client, const ApplyVm& vm, const ApplyHost& host) {
  pci::Host h(pci::catalog_with({}));
  pci::load_vsphere_api(h, host.host, fmt::format("{} host {}", client.endpoint(), host.host.name));
  h.finalize();
  const Loaded loaded = load(client.endpoint(), vm.answer);
  checks::LintOptions options;
  options.host = &h;
  return checks::lint_loaded_vm(
      fmt::format("{}/vm/{}", parse_server_url(client.endpoint()).host, vm.name), loaded, 0,
      options);
}

// Sends the change, waits for the task, reads the VM back; lints it when it holds the plan.
void send_and_verify(Client& client, const ApplyRequest& request, const ApplyHost& host,
                     ApplyResult& result) {
  if (request.on_planned) request.on_planned(result);
  result.task = reconfigure(client, result.vm.ref, result.change.spec);
  if (request.on_sent) request.on_sent(result.task);
  result.outcome = wait_for_task(client, result.task, request.task_timeout, request.task_poll);
  result.after = read_apply_vm(client, result.vm.ref);
  if (!result.outcome.success) {
    result.status = ApplyStatus::task_failed;
    return;
  }
  result.left = apply::compute_change(result.after->spec, request.plan, request.change);
  if (!result.left.empty()) {
    result.status = ApplyStatus::not_held;
    return;
  }
  result.status = ApplyStatus::applied;
  result.lint = lint_read_back(client, *result.after, host);
}

}  // namespace

soap::Moref find_vm(Client& client, const VmSelector& which) {
  const int ways = int{!which.name.empty()} + int{!which.uuid.empty()} + int{!which.moid.empty()};
  if (ways != 1) {
    throw Error(ways == 0 ? "give the VM: its name, uuid or moid"
                          : "give the VM one way: name, uuid or moid, not several");
  }
  if (!which.moid.empty()) return soap::Moref{"VirtualMachine", which.moid};
  if (!which.uuid.empty()) return find_vm_by_uuid(client, which);
  if (which.folder.empty() && which.datacenter.empty()) return find_vm(client, which.name);
  const std::string where = which.folder.empty() ? "/" + which.datacenter : folder_path(which);
  const soap::Moref container =
      at_path(client, where, which.folder.empty() ? "datacenter" : "folder");
  std::vector<soap::Moref> match;
  for (const auto& [ref, n] : client.list_names(container, "VirtualMachine")) {
    if (n == which.name || ref.value == which.name) match.push_back(ref);
  }
  if (match.empty()) {
    throw Error(fmt::format("{}: no VM named '{}' under {}", client.endpoint(), which.name, where));
  }
  if (match.size() > 1) {
    std::vector<std::string> refs;
    refs.reserve(match.size());
    for (const soap::Moref& m : match) refs.push_back(m.value);
    throw Error(fmt::format("{}: {} VMs are named '{}' under {}: give the moid ({})",
                            client.endpoint(), match.size(), which.name, where,
                            fmt::join(refs, ", ")));
  }
  return match.front();
}

std::string_view to_string(ApplyStatus status) {
  switch (status) {
    case ApplyStatus::no_changes:
      return "no-changes";
    case ApplyStatus::checks_failed:
      return "checks-failed";
    case ApplyStatus::dry_run:
      return "dry-run";
    case ApplyStatus::applied:
      return "applied";
    case ApplyStatus::task_failed:
      return "task-failed";
    case ApplyStatus::not_held:
      return "not-held";
  }
  return "?";
}

bool ApplyResult::changed() const {
  return status == ApplyStatus::applied || status == ApplyStatus::not_held;
}

ApplyResult apply_plan(Client& client, const ApplyRequest& request) {
  ApplyResult result;
  result.vm = read_apply_vm(client, find_vm(client, request.vm));
  result.change = apply::compute_change(result.vm.spec, request.plan, request.change);
  if (result.change.empty() && result.change.placeholders.empty()) {
    result.status = ApplyStatus::no_changes;
    return result;
  }
  const ApplyHost host = read_apply_host(client, result.vm);
  result.checks = check_preconditions(result.change, result.vm, host);
  if (!result.checks.ok()) {
    result.status = ApplyStatus::checks_failed;
  } else if (request.dry_run) {
    result.status = ApplyStatus::dry_run;
  } else {
    send_and_verify(client, request, host, result);
  }
  return result;
}

}  // namespace vmxkit::vsphere
