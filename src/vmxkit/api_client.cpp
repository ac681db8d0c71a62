// SPDX-License-Identifier: Apache-2.0
// The facade's `vmxkit apply` against a server (vmxkit/vmxkit.h): apply_plan() over
// vsphere/apply.h. Part of vmxkit_client (vmxkit::client), with the vSphere client it drives,
// so that vmxkit::core does not depend on it.
#include <algorithm>
#include <memory>
#include <utility>

#include "vmxkit/analysis/apply_change.h"
#include "vmxkit/api_client_internal.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/io.h"
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

ApplyReport to_apply_report(vsphere::ApplyResult&& r) {
  ApplyReport out;
  out.status = from_internal(r.status);
  out.changed = r.changed();
  out.vm = AppliedVm{r.vm.name, r.vm.ref.value, r.vm.power_state};
  out.change = detail::to_config_change(r.change);
  out.checks = ApplyChecks{std::move(r.checks.passed), std::move(r.checks.failed),
                           std::move(r.checks.not_checked)};
  if (!r.task.empty()) {
    out.task = ApplyTask{r.task.value, r.outcome.success, std::move(r.outcome.fault),
                         std::move(r.outcome.message)};
  }
  for (const apply::DiffLine& l : r.left.diff) out.left.push_back(DiffLine{l.sign, l.what});
  if (r.status == vsphere::ApplyStatus::applied)
    out.lint = detail::to_lint_report(std::move(r.lint));
  return out;
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
  vsphere::ApplyRequest r;
  r.vm = to_selector(request.vm);
  r.plan = apply::read_plan(plan.path, plan.bytes ? *plan.bytes : read_file(plan.path));
  r.change = {request.change.firmware_change, request.change.keep_memory};
  r.dry_run = request.dry_run;
  r.task_timeout = request.task_timeout;
  const auto client = detail::connect(request.server);
  vsphere::ApplyResult result = vsphere::apply_plan(*client, r);
  client->logout();
  return to_apply_report(std::move(result));
}

}  // namespace vmxkit
