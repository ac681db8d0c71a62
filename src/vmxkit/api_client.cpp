// SPDX-License-Identifier: Apache-2.0
// The facade's `vmxkit apply` against a server (vmxkit/vmxkit.h): apply_plan() over
// vsphere/apply.h. Part of vmxkit_client (vmxkit::client), with the vSphere client it drives,
// so that vmxkit::core does not depend on it.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "vmxkit/analysis/apply_change.h"
#include "vmxkit/api_client_internal.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/json.h"
#include "vmxkit/vmxkit.h"
#include "vmxkit/vsphere/apply.h"
#include "vmxkit/vsphere/client.h"

namespace vmxkit {

namespace {

ApplyStatus from_internal(vsphere::ApplyStatus s) {
  switch (s) {
    case vsphere::ApplyStatus::no_changes:
      return ApplyStatus::no_changes;
    case vsphere::ApplyStatus::checks_failed:
      return ApplyStatus::checks_failed;
    case vsphere::ApplyStatus::dry_run:
      return ApplyStatus::dry_run;
    case vsphere::ApplyStatus::applied:
      return ApplyStatus::applied;
    case vsphere::ApplyStatus::task_failed:
      return ApplyStatus::task_failed;
    case vsphere::ApplyStatus::not_held:
      return ApplyStatus::not_held;
  }
  return ApplyStatus::checks_failed;
}

vsphere::ApplyStatus to_internal(ApplyStatus s) {
  switch (s) {
    case ApplyStatus::no_changes:
      return vsphere::ApplyStatus::no_changes;
    case ApplyStatus::checks_failed:
      return vsphere::ApplyStatus::checks_failed;
    case ApplyStatus::dry_run:
      return vsphere::ApplyStatus::dry_run;
    case ApplyStatus::applied:
      return vsphere::ApplyStatus::applied;
    case ApplyStatus::task_failed:
      return vsphere::ApplyStatus::task_failed;
    case ApplyStatus::not_held:
      return vsphere::ApplyStatus::not_held;
  }
  return vsphere::ApplyStatus::checks_failed;
}

vsphere::VmSelector to_selector(const VmSelector& vm) {
  vsphere::VmSelector s;
  s.name = vm.name;
  s.uuid = vm.uuid;
  s.instance_uuid = vm.instance_uuid;
  s.moid = vm.moid;
  s.datacenter = vm.datacenter;
  s.folder = vm.folder;
  return s;
}

// What is known once every check passed, before the task is sent (ApplyRequest::on_planned).
ApplyReport planned_report(const vsphere::ApplyResult& r, std::string plan) {
  ApplyReport out;
  out.status = from_internal(r.status);
  out.changed = r.changed();
  out.plan = std::move(plan);
  out.vm = AppliedVm{r.vm.name, r.vm.ref.value, r.vm.power_state};
  out.change = detail::to_config_change(r.change);
  out.checks = ApplyChecks{r.checks.passed, r.checks.failed, r.checks.not_checked};
  return out;
}

ApplyReport to_apply_report(vsphere::ApplyResult&& r, std::string plan) {
  ApplyReport out = planned_report(r, std::move(plan));
  if (!r.task.empty()) {
    out.task = ApplyTask{r.task.value, r.outcome.success, std::move(r.outcome.fault),
                         std::move(r.outcome.message)};
  }
  for (const apply::DiffLine& l : r.left.diff) out.left.push_back(DiffLine{l.sign, l.what});
  if (r.after) {
    out.after = AppliedVmState{r.after->spec.device_change.size(), r.after->spec.memory_mb};
  }
  if (r.status == vsphere::ApplyStatus::applied)
    out.lint = detail::to_lint_report(std::move(r.lint));
  return out;
}

// The VM's own host, read live (its devices, passthrough state, UUID and vGPU types), as
// `generate --esx-host` reads one, its devices matched against `catalog`; its name in `name`,
// its warnings to `on_warning`.
Host read_vm_host(vsphere::Client& client, const vsphere::ApplyVm& vm, const Catalog& catalog,
                  const ApplyRequest& request, std::string& name) {
  if (vm.host.empty()) {
    throw Error(fmt::format("{}: VM '{}' has no host (runtime.host) to plan for", client.endpoint(),
                            vm.name));
  }
  const std::vector<pci::ApiHost> hosts = vsphere::fetch_hosts(client, {vm.host});
  if (hosts.empty()) {
    throw Error(
        fmt::format("{}: host {} vanished while it was read", client.endpoint(), vm.host.value));
  }
  name = hosts.front().name;
  pci::Host h(detail::internal_catalog(catalog));
  pci::load_vsphere_api(h, hosts.front(),
                        fmt::format("{} host {}", client.endpoint(), hosts.front().name));
  h.finalize();
  if (request.on_warning) {
    for (const pci::HostWarning& w : h.warnings()) request.on_warning(w.to_string());
  }
  return detail::wrap_host(std::move(h), catalog);
}

// ApplyRequest::generate: the plan `generate --esx-host` would make for the VM's own host (its
// UUID the systemId), as the ConfigSpec the VM is compared with; `plan_name` names it. The
// catalogue files are read once the VM is found, as `vmxkit apply --catalog` always read them.
// `which` then names the VM by its moref, so that apply reads the VM that was planned for.
vsphere::ConfigSpec generated_plan(vsphere::Client& client, const ApplyRequest& request,
                                   vsphere::VmSelector& which, std::string& plan_name) {
  const vsphere::ApplyVm vm = vsphere::read_apply_vm(client, vsphere::find_vm(client, which));
  PlanRequest r = *request.generate;
  if (!request.catalogs.empty()) r.catalog = load_catalog(request.catalogs);
  std::string host_name;
  const Host host = read_vm_host(client, vm, r.catalog, request, host_name);
  r.host_label = host_name + " (vSphere API)";
  const Plan plan = vmxkit::plan(&host, r);
  plan_name = fmt::format("generated for host {} (vSphere API)", host_name);
  which = vsphere::VmSelector{};
  which.moid = vm.ref.value;
  return apply::read_plan(plan_name, render(plan, "configspec-xml", RenderOptions{}));
}

report::Json diff_json(const std::vector<DiffLine>& diff) {
  report::Json out = report::Json::array();
  for (const DiffLine& l : diff)
    out.push_back({{"sign", std::string(1, l.sign)}, {"what", l.what}});
  return out;
}

// The read-back's lint as `vmxkit lint --format json` writes it.
report::Json lint_json(const LintReport& lint) {
  std::string text;
  LintReportWriter writer("json", [&text](std::string_view piece) { text += piece; });
  writer.add(lint);
  writer.finish();
  return report::Json::parse(text);
}

}  // namespace

vsphere::ClientOptions detail::client_options(const VsphereServer& server) {
  vsphere::ClientOptions o = vsphere::options_from_environment(server.url, server.insecure);
  if (server.username || server.password) {
    o.username = server.username.value_or("");
    o.password = server.password.value_or("");
    o.override_url_credentials = true;
  }
  if (!server.proxy.empty()) o.proxy = server.proxy;
  o.timeout_ms = static_cast<long>(server.timeout.count());
  o.connect_timeout_ms = std::min(o.connect_timeout_ms, o.timeout_ms);
  o.allow_http = server.allow_http;
  o.max_objects = server.batch_size;
  o.on_request = server.on_request;
  return o;
}

std::unique_ptr<vsphere::Client> detail::connect(const VsphereServer& server) {
  auto client = std::make_unique<vsphere::Client>(client_options(server));
  client->connect();
  if (server.on_connected) {
    server.on_connected(
        ServerInfo{client->endpoint(), client->content().full_name, client->content().api_version});
  }
  return client;
}

std::string_view to_string(ApplyStatus status) { return vsphere::to_string(to_internal(status)); }

ApplyReport apply_plan(const ApplyRequest& request) {
  const DocumentSource& plan = request.plan;
  if (request.generate && (!plan.path.empty() || plan.bytes)) {
    throw Error("apply: give a plan or generate's options, not both");
  }
  // Connected first, then the plan read, as `vmxkit apply` always has: with --verbose the
  // connection is shown before a plan that cannot be read.
  const auto client = detail::connect(request.server);
  vsphere::ApplyRequest r;
  r.vm = to_selector(request.vm);
  std::string plan_name = plan.path;
  if (request.generate) {
    r.plan = generated_plan(*client, request, r.vm, plan_name);
  } else {
    r.plan = apply::read_plan(plan.path, plan.bytes ? *plan.bytes : read_file(plan.path));
  }
  r.change = {request.change.firmware_change, request.change.keep_memory};
  r.dry_run = request.dry_run;
  r.task_timeout = request.task_timeout;
  if (request.on_planned) {
    r.on_planned = [&](const vsphere::ApplyResult& planned) {
      request.on_planned(planned_report(planned, plan_name));
    };
  }
  if (request.on_sent) {
    r.on_sent = [&](const vsphere::soap::Moref& task) { request.on_sent(task.value); };
  }
  vsphere::ApplyResult result = vsphere::apply_plan(*client, r);
  client->logout();
  return to_apply_report(std::move(result), std::move(plan_name));
}

std::string render_apply_json(const ApplyReport& report) {
  report::Json doc = {{"schema", 1},
                      {"status", to_string(report.status)},
                      {"changed", report.changed},
                      {"vm",
                       {{"name", report.vm.name},
                        {"moref", report.vm.moref},
                        {"power_state", report.vm.power_state}}},
                      {"plan", report.plan},
                      {"changes", diff_json(report.change.diff)},
                      {"placeholders", report.change.placeholders},
                      {"checks",
                       {{"passed", report.checks.passed},
                        {"failed", report.checks.failed},
                        {"not_checked", report.checks.not_checked}}},
                      {"task", nullptr},
                      {"left", diff_json(report.left)},
                      {"lint", nullptr}};
  if (report.task) {
    doc["task"] = {{"moref", report.task->moref},
                   {"success", report.task->success},
                   {"fault", report.task->fault},
                   {"message", report.task->message}};
  }
  if (report.lint) doc["lint"] = lint_json(*report.lint);
  std::ostringstream out;
  report::write_json_document(out, doc);
  return out.str();
}

}  // namespace vmxkit
