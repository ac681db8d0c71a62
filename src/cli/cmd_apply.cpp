// SPDX-License-Identifier: Apache-2.0
// vmxkit apply: make a live VM what a plan says, in one ReconfigVM_Task, every check first.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "cli/plan_options.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct ApplyOptions {
  ServerOptions server;
  VmSelector vm;
  std::string plan;
  PlanOptions generate;  ///< instead of `plan`: generate's options, planned on the VM's host
  std::vector<std::string> catalogs;
  bool dry_run = false;
  bool firmware_change = false;
  double task_timeout_s = 600;
  std::string format = "text";
};

// The server of --server and its options, as the public API takes it; with --verbose each
// request and the server's name are said on stderr.
void print_diff(const ApplyReport& r, Context& ctx) {
  ctx.out << fmt::format("--- VM '{}' ({}), {}\n+++ plan {}\n", r.vm.name, r.vm.moref,
                         r.vm.power_state, r.plan);
  for (const DiffLine& l : r.change.diff) {
    ctx.out << (l.sign == '=' ? "  (kept) " : std::string(1, l.sign) + " ") << l.what << '\n';
  }
}

void print_checks(const ApplyChecks& c, Context& ctx) {
  for (const std::string& s : c.passed) ctx.out << "check ok: " << s << '\n';
  for (const std::string& s : c.not_checked) ctx.out << "not checked: " << s << '\n';
  for (const std::string& s : c.failed) ctx.err << "vmxkit: error: " << s << '\n';
}

int exit_code(const ApplyReport& r) {
  switch (r.status) {
    case ApplyStatus::no_changes:
    case ApplyStatus::dry_run:
      return kExitClean;
    case ApplyStatus::applied:
      return r.lint && r.lint->count_at_least(Severity::warning) > 0 ? kExitFindings : kExitClean;
    case ApplyStatus::checks_failed:
    case ApplyStatus::task_failed:
    case ApplyStatus::not_held:
      break;
  }
  return kExitInput;
}

// What went wrong, on stderr, in both output formats.
void print_failure(const ApplyReport& r, Context& ctx) {
  const std::string& name = r.vm.name;
  if (r.status == ApplyStatus::checks_failed) {
    ctx.err << fmt::format("vmxkit: {} check(s) failed: nothing was sent, VM '{}' is unchanged\n",
                           r.checks.failed.size(), name);
  } else if (r.status == ApplyStatus::task_failed) {
    ctx.err << fmt::format("vmxkit: error: task {} failed: {}{}\n", r.task->moref,
                           r.task->fault.empty() ? "" : r.task->fault + ": ", r.task->message);
    // ReconfigVM_Task is atomic in vSphere; say what the VM holds now all the same.
    const AppliedVmState& now = *r.after;
    ctx.err << fmt::format("vmxkit: VM '{}' now holds {} passthrough device(s), memoryMB {}\n",
                           name, now.passthrough_devices,
                           now.memory_mb ? std::to_string(*now.memory_mb) : "?");
  } else if (r.status == ApplyStatus::not_held) {
    ctx.err << "vmxkit: error: the task succeeded but the VM does not hold the plan:\n";
    for (const DiffLine& l : r.left) ctx.err << "  " << l.sign << ' ' << l.what << '\n';
  }
}

// The change and the checks; `planned`: they were printed before the task was sent.
void print_text(const ApplyReport& r, bool planned, Context& ctx) {
  if (!planned) print_diff(r, ctx);
  if (r.status == ApplyStatus::no_changes) {
    ctx.out << fmt::format("no changes: VM '{}' already holds the plan\n", r.vm.name);
    return;
  }
  if (!planned) print_checks(r.checks, ctx);
  if (r.status == ApplyStatus::dry_run) ctx.out << "dry run: nothing was sent\n";
  if (r.status != ApplyStatus::applied) return;
  ctx.out << fmt::format("applied: VM '{}' now holds the plan\n", r.vm.name);
  LintReportWriter writer(
      "text", [&ctx](std::string_view piece) { ctx.out << piece; }, ctx.color_out);
  writer.add(*r.lint);
  writer.finish();
}

// The plan: a file, stdin (read here, as the library reads no stream), or generate's options
// planned on the VM's own host (the VM's size kept unless --memory-mb is given).
void set_plan(ApplyOptions& o, ApplyRequest& request, Context& ctx) {
  if (!o.generate.any()) {
    request.plan = o.plan == "-"
                       ? DocumentSource::from_bytes(display_name(o.plan), read_input(o.plan, ctx))
                       : DocumentSource(o.plan);
    return;
  }
  request.generate = o.generate.to_request();
  request.catalogs = o.catalogs;
  request.change.keep_memory = !o.generate.memory_mb;
  request.on_warning = [&ctx](const std::string& w) {
    ctx.err << "vmxkit: warning: " << w << '\n';
  };
}

void check_arguments(const ApplyOptions& o) {
  if (o.vm.name.empty() && o.vm.uuid.empty()) {
    throw Error("apply: give --vm NAME (or --uuid UUID)");
  }
  const bool generating = o.generate.any();
  if (generating && !o.plan.empty()) {
    throw Error(
        "apply: give a PLAN file or generate's options (--gpu, --nic, --vgpu...), not both");
  }
  if (o.plan.empty() && !generating) {
    throw Error(
        "apply: give a PLAN file (vmxkit generate ... -o plan.vmx), or generate's options to "
        "plan for the VM's host (--gpu auto --gpus 1 --nic auto)");
  }
}

int run_apply(ApplyOptions& o, Context& ctx) {
  check_arguments(o);
  ApplyRequest request;
  request.server = vsphere_server(o.server, ctx);
  request.vm = o.vm;
  set_plan(o, request, ctx);
  request.change.firmware_change = o.firmware_change;
  request.dry_run = o.dry_run;
  request.task_timeout = std::chrono::milliseconds(static_cast<long>(o.task_timeout_s * 1000));
  // The text shows the change and the checks before the task is sent, as Terraform's plan.
  bool planned = false;
  if (o.format == "text") {
    request.on_planned = [&](const ApplyReport& r) {
      print_diff(r, ctx);
      print_checks(r.checks, ctx);
      ctx.out.flush();
      planned = true;
    };
  }
  request.on_sent = [&ctx](std::string_view task) {
    ctx.err << fmt::format("vmxkit: ReconfigVM_Task {} sent\n", task);
  };
  const ApplyReport result = apply_plan(request);
  if (o.format == "json") {
    ctx.out << render_apply_json(result);
    for (const std::string& s : result.checks.failed) ctx.err << "vmxkit: error: " << s << '\n';
  } else {
    print_text(result, planned, ctx);
  }
  print_failure(result, ctx);
  return exit_code(result);
}

}  // namespace

void setup_apply(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ApplyOptions>();
  auto* sub = app.add_subcommand(
      "apply",
      "Make a live VM what a plan says: print the change, check every precondition, then send "
      "one ReconfigVM_Task (old passthrough devices removed, the plan's added), read the VM back "
      "and lint it against its host");
  sub->add_option("plan", o->plan,
                  "The plan: a file vmxkit reads (.vmx, ConfigSpec...), or -; or give generate's "
                  "options below instead, planned for the VM's own host");
  sub->add_option("--vm", o->vm.name, "The VM's name (or moref)");
  sub->add_option("--uuid", o->vm.uuid, "The VM's BIOS UUID (config.uuid), instead of --vm");
  sub->add_option_function<std::string>(
      "--instance-uuid",
      [o](const std::string& v) {
        o->vm.uuid = v;
        o->vm.instance_uuid = true;
      },
      "The VM's vCenter instance UUID (config.instanceUuid), instead of --vm");
  sub->add_option("--datacenter", o->vm.datacenter, "Look for the VM in this datacenter only");
  sub->add_option("--folder", o->vm.folder,
                  "Look for the VM under this folder only: an inventory path (/DC/vm/gpu), or a "
                  "folder of --datacenter");
  sub->add_flag("--dry-run", o->dry_run, "Print the change and the checks; send nothing");
  sub->add_flag("--firmware-change", o->firmware_change,
                "Send a firmware that differs from the VM's (an installed guest may not boot; "
                "the VM must be off)");
  sub->add_option("--task-timeout", o->task_timeout_s, "Seconds to wait for the task")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  sub->add_option("--format", o->format, "Output format: text, or json (docs/apply.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  add_server_options(*sub, o->server, false);
  add_plan_options(*sub, o->generate, false);
  sub->add_option("--catalog", o->catalogs, "Extra device catalogue TSV (with generate's options)");
  sub->callback([o, &ctx] { ctx.exit_code = run_apply(*o, ctx); });
}

}  // namespace vmxkit::cli
