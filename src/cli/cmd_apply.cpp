// SPDX-License-Identifier: Apache-2.0
// vmxkit apply: make a live VM what a plan says, in one ReconfigVM_Task, every check first.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "cli/plan_options.h"
#include "vmxkit/analysis/apply_change.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/report/json.h"
#include "vmxkit/report/lint_report.h"
#include "vmxkit/vmxkit.h"
#include "vmxkit/vsphere/apply.h"

namespace vmxkit::cli {

using report::make_report_writer;

namespace {

struct ApplyOptions {
  ServerOptions server;
  vsphere::VmSelector vm;
  std::string plan;
  PlanOptions generate;  ///< instead of `plan`: generate's options, planned on the VM's host
  std::vector<std::string> catalogs;
  bool dry_run = false;
  bool firmware_change = false;
  double task_timeout_s = 600;
  std::string format = "text";
};

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

bool has_findings(const checks::LintResult& r) {
  for (const Diagnostic& d : r.diagnostics) {
    if (static_cast<int>(d.severity) <= static_cast<int>(Severity::warning)) return true;
  }
  return false;
}

int exit_code(const vsphere::ApplyResult& r) {
  switch (r.status) {
    case vsphere::ApplyStatus::no_changes:
    case vsphere::ApplyStatus::dry_run:
      return kExitClean;
    case vsphere::ApplyStatus::applied:
      return has_findings(r.lint) ? kExitFindings : kExitClean;
    case vsphere::ApplyStatus::checks_failed:
    case vsphere::ApplyStatus::task_failed:
    case vsphere::ApplyStatus::not_held:
      break;
  }
  return kExitInput;
}

// What went wrong, on stderr, in both output formats.
void print_failure(const vsphere::ApplyResult& r, Context& ctx) {
  const std::string& name = r.vm.name;
  if (r.status == vsphere::ApplyStatus::checks_failed) {
    ctx.err << fmt::format("vmxkit: {} check(s) failed: nothing was sent, VM '{}' is unchanged\n",
                           r.checks.failed.size(), name);
  } else if (r.status == vsphere::ApplyStatus::task_failed) {
    ctx.err << fmt::format("vmxkit: error: task {} failed: {}{}\n", r.task.value,
                           r.outcome.fault.empty() ? "" : r.outcome.fault + ": ",
                           r.outcome.message);
    // ReconfigVM_Task is atomic in vSphere; say what the VM holds now all the same.
    const vsphere::ConfigSpec& now = r.after->spec;
    ctx.err << fmt::format("vmxkit: VM '{}' now holds {} passthrough device(s), memoryMB {}\n",
                           name, now.device_change.size(),
                           now.memory_mb ? std::to_string(*now.memory_mb) : "?");
  } else if (r.status == vsphere::ApplyStatus::not_held) {
    ctx.err << "vmxkit: error: the task succeeded but the VM does not hold the plan:\n";
    for (const apply::DiffLine& l : r.left.diff) ctx.err << "  " << l.sign << ' ' << l.what << '\n';
  }
}

// The change and the checks; `planned`: they were printed before the task was sent.
void print_text(const vsphere::ApplyResult& r, const std::string& plan, bool planned,
                Context& ctx) {
  if (!planned) print_diff(r.vm, plan, r.change, ctx);
  if (r.status == vsphere::ApplyStatus::no_changes) {
    ctx.out << fmt::format("no changes: VM '{}' already holds the plan\n", r.vm.name);
    return;
  }
  if (!planned) print_checks(r.checks, ctx);
  if (r.status == vsphere::ApplyStatus::dry_run) ctx.out << "dry run: nothing was sent\n";
  if (r.status != vsphere::ApplyStatus::applied) return;
  ctx.out << fmt::format("applied: VM '{}' now holds the plan\n", r.vm.name);
  const auto writer = make_report_writer("text", ctx.out, ctx.color_out);
  writer->add(r.lint);
  writer->finish();
}

report::Json diff_json(const apply::Change& change) {
  report::Json out = report::Json::array();
  for (const apply::DiffLine& l : change.diff) {
    out.push_back({{"sign", std::string(1, l.sign)}, {"what", l.what}});
  }
  return out;
}

// The document `--format json` prints: what the text says, as data (docs/apply.md).
void print_json(const vsphere::ApplyResult& r, const std::string& plan, Context& ctx) {
  report::Json doc = {
      {"schema", 1},
      {"status", vsphere::to_string(r.status)},
      {"changed", r.changed()},
      {"vm", {{"name", r.vm.name}, {"moref", r.vm.ref.value}, {"power_state", r.vm.power_state}}},
      {"plan", plan},
      {"changes", diff_json(r.change)},
      {"placeholders", r.change.placeholders},
      {"checks",
       {{"passed", r.checks.passed},
        {"failed", r.checks.failed},
        {"not_checked", r.checks.not_checked}}},
      {"task", nullptr},
      {"left", diff_json(r.left)},
      {"lint", nullptr}};
  if (!r.task.empty()) {
    doc["task"] = {{"moref", r.task.value},
                   {"success", r.outcome.success},
                   {"fault", r.outcome.fault},
                   {"message", r.outcome.message}};
  }
  if (r.status == vsphere::ApplyStatus::applied) {
    // The lint of the VM read back, as `lint --format json` writes it.
    std::ostringstream lint;
    const auto writer = make_report_writer("json", lint, false);
    writer->add(r.lint);
    writer->finish();
    doc["lint"] = report::Json::parse(lint.str());
  }
  report::write_json_document(ctx.out, doc);
}

// The VM's own host, read live (its devices, passthrough state, UUID and vGPU types), as
// `generate --esx-host` reads one.
Host read_vm_host(vsphere::Client& client, const vsphere::ApplyVm& vm, const Catalog& catalog,
                  const std::vector<std::string>& catalogs, std::string& name, Context& ctx) {
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
  pci::Host h(pci::catalog_with(catalogs));
  pci::load_vsphere_api(h, hosts.front(),
                        fmt::format("{} host {}", client.endpoint(), hosts.front().name));
  h.finalize();
  for (const pci::HostWarning& w : h.warnings()) {
    ctx.err << "vmxkit: warning: " << w.to_string() << '\n';
  }
  return detail::wrap_host(std::move(h), catalog);
}

// Generate's options instead of a plan file: the plan `generate --esx-host` would make for the
// VM's own host (its UUID the systemId), as the ConfigSpec apply compares the VM with. The VM
// is then named by its moref, so that apply reads the VM that was planned for.
vsphere::ConfigSpec generate_for_vm(vsphere::Client& client, ApplyOptions& o,
                                    std::string& plan_name, Context& ctx) {
  const vsphere::ApplyVm vm = vsphere::read_apply_vm(client, vsphere::find_vm(client, o.vm));
  const Catalog catalog = load_catalog(o.catalogs);
  std::string host_name;
  const Host host = read_vm_host(client, vm, catalog, o.catalogs, host_name, ctx);
  PlanRequest r = o.generate.to_request();
  r.catalog = catalog;
  r.host_label = host_name + " (vSphere API)";
  const Plan plan = vmxkit::plan(&host, r);
  plan_name = fmt::format("generated for host {} (vSphere API)", host_name);
  o.vm = vsphere::VmSelector{};
  o.vm.moid = vm.ref.value;
  return apply::read_plan(plan_name, render(plan, "configspec-xml", RenderOptions{}));
}

int run_apply(ApplyOptions& o, Context& ctx) {
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
  std::string plan_name = generating ? "" : display_name(o.plan);
  vsphere::ApplyRequest request;
  const auto client = open_client(o.server, ctx);
  if (generating) {
    request.plan = generate_for_vm(*client, o, plan_name, ctx);
    request.change.keep_memory = !o.generate.memory_mb;
  } else {
    request.plan = apply::read_plan(
        plan_name, o.plan == "-" ? read_stream(ctx.in, plan_name) : read_file(o.plan));
  }
  request.vm = o.vm;
  request.change.firmware_change = o.firmware_change;
  request.dry_run = o.dry_run;
  request.task_timeout = std::chrono::milliseconds(static_cast<long>(o.task_timeout_s * 1000));
  // The text shows the change and the checks before the task is sent, as Terraform's plan.
  bool planned = false;
  if (o.format == "text") {
    request.on_planned = [&](const vsphere::ApplyResult& r) {
      print_diff(r.vm, plan_name, r.change, ctx);
      print_checks(r.checks, ctx);
      ctx.out.flush();
      planned = true;
    };
  }
  request.on_sent = [&ctx](const vsphere::soap::Moref& task) {
    ctx.err << fmt::format("vmxkit: ReconfigVM_Task {} sent\n", task.value);
  };
  const vsphere::ApplyResult result = vsphere::apply_plan(*client, request);
  client->logout();
  if (o.format == "json") {
    print_json(result, plan_name, ctx);
    for (const std::string& s : result.checks.failed) ctx.err << "vmxkit: error: " << s << '\n';
  } else {
    print_text(result, plan_name, planned, ctx);
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
