// SPDX-License-Identifier: Apache-2.0
// vmxkit apply: make a live VM what a plan says, in one ReconfigVM_Task, every check first.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "vmxkit/analysis/apply_change.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"
#include "vmxkit/report/lint_report.h"
#include "vmxkit/vsphere/apply.h"

namespace vmxkit::cli {
namespace {

struct ApplyOptions {
  ServerOptions server;
  std::string vm;
  std::string plan;
  bool dry_run = false;
  bool firmware_change = false;
  double task_timeout_s = 600;
};

// The plan file (any input format vmxkit reads) as the ConfigSpec the outputs send.
vsphere::ConfigSpec load_plan(const std::string& path, Context& ctx) {
  const std::string name = display_name(path);
  vsphere::Loaded loaded =
      vsphere::load(name, path == "-" ? read_stream(ctx.in, name) : read_file(path));
  if (loaded.vms.size() != 1) {
    throw Error(fmt::format("{}: a plan holds one VM; this holds {}", name, loaded.vms.size()));
  }
  return vsphere::output_spec(loaded.vms.front().config);
}

void print_diff(const vsphere::ApplyVm& vm, const std::string& plan, const apply::Change& change,
                Context& ctx) {
  ctx.out << fmt::format("--- VM '{}' ({}), {}\n+++ plan {}\n", vm.name, vm.ref.value,
                         vm.power_state, plan);
  for (const apply::DiffLine& l : change.diff) {
    ctx.out << (l.sign == '=' ? "  (kept) " : std::string(1, l.sign) + " ") << l.what << '\n';
  }
}

void print_checks(const vsphere::Preconditions& p, Context& ctx) {
  for (const std::string& s : p.passed) ctx.out << "check ok: " << s << '\n';
  for (const std::string& s : p.not_checked) ctx.out << "not checked: " << s << '\n';
  for (const std::string& s : p.failed) ctx.err << "vmxkit: error: " << s << '\n';
}

// The VM as it is after the task, against the host: the change left (none expected) and lint.
int verify(vsphere::Client& client, const vsphere::ApplyVm& vm, const vsphere::ConfigSpec& plan,
           const apply::ChangeOptions& copt, const vsphere::ApplyHost& host, Context& ctx) {
  const vsphere::ApplyVm after = vsphere::read_apply_vm(client, vm.ref);
  const apply::Change left = apply::compute_change(after.spec, plan, copt);
  if (!left.empty()) {
    ctx.err << "vmxkit: error: the task succeeded but the VM does not hold the plan:\n";
    for (const apply::DiffLine& l : left.diff) ctx.err << "  " << l.sign << ' ' << l.what << '\n';
    return kExitInput;
  }
  ctx.out << fmt::format("applied: VM '{}' now holds the plan\n", vm.name);
  pci::Host h(pci::catalog_with({}));
  pci::load_vsphere_api(h, host.host, fmt::format("{} host {}", client.endpoint(), host.host.name));
  h.finalize();
  const vsphere::Loaded loaded = vsphere::load(client.endpoint(), after.answer);
  checks::LintOptions lo;
  lo.host = &h;
  const checks::LintResult r = checks::lint_loaded_vm(
      fmt::format("{}/vm/{}", vsphere::parse_server_url(client.endpoint()).host, vm.name), loaded,
      0, lo);
  bool findings = false;
  for (const Diagnostic& d : r.diagnostics) {
    findings = findings || static_cast<int>(d.severity) <= static_cast<int>(Severity::warning);
  }
  const auto writer = report::make_report_writer("text", ctx.out, ctx.color_out);
  writer->add(r);
  writer->finish();
  return findings ? kExitFindings : kExitClean;
}

int send(vsphere::Client& client, const vsphere::ApplyVm& vm, const apply::Change& change,
         Context& ctx, double timeout_s) {
  const vsphere::soap::Moref task = vsphere::reconfigure(client, vm.ref, change.spec);
  ctx.err << fmt::format("vmxkit: ReconfigVM_Task {} sent\n", task.value);
  const vsphere::TaskOutcome t = vsphere::wait_for_task(
      client, task, std::chrono::milliseconds(static_cast<long>(timeout_s * 1000)));
  if (t.success) return kExitClean;
  ctx.err << fmt::format("vmxkit: error: task {} failed: {}{}\n", task.value,
                         t.fault.empty() ? "" : t.fault + ": ", t.message);
  // ReconfigVM_Task is atomic in vSphere; say what the VM holds now all the same.
  const vsphere::ApplyVm now = vsphere::read_apply_vm(client, vm.ref);
  const apply::Change still = apply::compute_change(now.spec, change.spec);
  ctx.err << fmt::format("vmxkit: VM '{}' now holds {} passthrough device(s), memoryMB {}\n",
                         vm.name, now.spec.device_change.size(),
                         now.spec.memory_mb ? std::to_string(*now.spec.memory_mb) : "?");
  (void)still;
  return kExitInput;
}

int run_apply(const ApplyOptions& o, Context& ctx) {
  if (o.vm.empty()) throw Error("apply: give --vm NAME");
  if (o.plan.empty()) throw Error("apply: give a PLAN file (vmxkit generate ... -o plan.vmx)");
  const vsphere::ConfigSpec plan = load_plan(o.plan, ctx);
  const auto client = open_client(o.server, ctx);
  const vsphere::ApplyVm vm = vsphere::read_apply_vm(*client, vsphere::find_vm(*client, o.vm));
  apply::ChangeOptions copt;
  copt.firmware_change = o.firmware_change;
  const apply::Change change = apply::compute_change(vm.spec, plan, copt);
  print_diff(vm, display_name(o.plan), change, ctx);
  if (change.empty() && change.placeholders.empty()) {
    ctx.out << fmt::format("no changes: VM '{}' already holds the plan\n", vm.name);
    client->logout();
    return kExitClean;
  }
  const vsphere::ApplyHost host = vsphere::read_apply_host(*client, vm);
  const vsphere::Preconditions pre = vsphere::check_preconditions(change, vm, host);
  print_checks(pre, ctx);
  if (!pre.ok()) {
    ctx.err << fmt::format("vmxkit: {} check(s) failed: nothing was sent, VM '{}' is unchanged\n",
                           pre.failed.size(), vm.name);
    client->logout();
    return kExitInput;
  }
  if (o.dry_run) {
    ctx.out << "dry run: nothing was sent\n";
    client->logout();
    return kExitClean;
  }
  int code = send(*client, vm, change, ctx, o.task_timeout_s);
  if (code == kExitClean) code = verify(*client, vm, plan, copt, host, ctx);
  client->logout();
  return code;
}

}  // namespace

void setup_apply(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ApplyOptions>();
  auto* sub = app.add_subcommand(
      "apply",
      "Make a live VM what a plan says: print the change, check every precondition, then send "
      "one ReconfigVM_Task (old passthrough devices removed, the plan's added), read the VM back "
      "and lint it against its host");
  sub->add_option("plan", o->plan, "The plan: a file vmxkit reads (.vmx, ConfigSpec...), or -");
  sub->add_option("--vm", o->vm, "The VM's name (or moref)");
  sub->add_flag("--dry-run", o->dry_run, "Print the change and the checks; send nothing");
  sub->add_flag("--firmware-change", o->firmware_change,
                "Send a firmware that differs from the VM's (an installed guest may not boot; "
                "the VM must be off)");
  sub->add_option("--task-timeout", o->task_timeout_s, "Seconds to wait for the task")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  add_server_options(*sub, o->server, false);
  sub->callback([o, &ctx] { ctx.exit_code = run_apply(*o, ctx); });
}

}  // namespace vmxkit::cli
