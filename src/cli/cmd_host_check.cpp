// SPDX-License-Identifier: Apache-2.0
// vmxkit host-check HOST... [--cmdline FILE] : readiness of a host for GPUDirect RDMA and SR-IOV.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct HostCheckCli {
  HostInputs hosts;
  std::string cmdline;
  std::string host_kind;
  std::string format = "text";
  ServerOptions server;
};

std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "-"; }

void print_vgpu_types(const HostVgpuTypes& types, Context& ctx) {
  const std::string name = types.host_name.empty() ? "the host" : types.host_name;
  if (types.offered.empty()) {
    ctx.out << fmt::format(
        "vGPU types: none offered by {} (config.sharedPassthruGpuTypes is empty: no NVIDIA vGPU "
        "manager, or no GPU in Shared Direct mode)\n",
        name);
    return;
  }
  std::size_t width = 7;  // "PROFILE"
  for (const VgpuTypeOffer& v : types.offered) width = std::max(width, v.profile.size());
  ctx.out << fmt::format("vGPU types offered by {} (config.sharedPassthruGpuTypes, {}):\n", name,
                         types.offered.size());
  ctx.out << fmt::format("  {:<{}}  DISK-SNAPSHOT  MEMORY-SNAPSHOT  SUSPEND  MIGRATE\n", "PROFILE",
                         width);
  for (const VgpuTypeOffer& v : types.offered) {
    ctx.out << fmt::format("  {:<{}}  {:<13}  {:<15}  {:<7}  {}\n", v.profile, width,
                           yes_no(v.disk_snapshot), yes_no(v.memory_snapshot), yes_no(v.suspend),
                           yes_no(v.migrate));
  }
}

int run_host_check(const HostCheckCli& o, Context& ctx) {
  const bool from_server = server_host_wanted(o.server);
  if (o.hosts.empty() && !from_server) {
    throw vmxkit::Error("host-check: give at least one HOST, or --server URL --esx-host NAME");
  }
  vmxkit::HostCheckOptions options;
  if (!o.cmdline.empty()) {
    options.cmdline = read_file_bytes(o.cmdline);
    options.cmdline_name = o.cmdline;
  }
  std::ostringstream ignored;
  Context quiet{ctx.in, ctx.out, ignored};  // input warnings are findings here
  const Host host =
      from_server ? read_server_host(o.server, o.hosts, quiet) : read_host_inputs(o.hosts, quiet);
  // A host read from the vSphere API is an ESXi host.
  options.kind = from_server ? HostKind::esxi : HostKind::unknown;
  if (!o.host_kind.empty()) options.kind = *parse_host_kind(o.host_kind);  // checked by CLI11
  const HostCheckReport report = check_host(host, options);
  int code = kExitClean;
  for (const CheckFinding& f : report.findings) {
    if (f.severity == Severity::error || f.severity == Severity::warning) code = kExitFindings;
  }
  if (o.format == "json") {
    ctx.out << render_host_check_json(report);
    return code;
  }
  if (report.kind != HostKind::unknown) {
    ctx.out << fmt::format("host: {} ({})\n", to_string(report.kind),
                           options.kind == HostKind::unknown ? "from the inputs" : "--host-kind");
  }
  if (report.vgpu_types) print_vgpu_types(*report.vgpu_types, ctx);
  for (const CheckFinding& f : report.findings) {
    if (!f.subject.empty()) ctx.out << f.subject << ": ";
    ctx.out << fmt::format("{}: {} [{}]\n", to_string(f.severity), f.message, f.rule_id);
    if (!f.fix.empty()) ctx.out << "  fix: " << f.fix << '\n';
  }
  std::size_t unchecked = 0;
  std::size_t problems = 0;
  for (const CheckFinding& f : report.findings) {
    unchecked += f.rule_name == "not-checked";
    problems += f.severity == Severity::error || f.severity == Severity::warning;
  }
  if (problems == 0 && unchecked == 0) {
    ctx.out << "host ready: no problems found\n";
  } else if (problems == 0) {
    // Nothing wrong in what the inputs show, but not all was shown: not "ready".
    ctx.out << fmt::format(
        "no problems in what the inputs show; {} check(s) not made: give the "
        "inputs named above before calling the host ready\n",
        unchecked);
  }
  return code;
}

}  // namespace

void setup_host_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<HostCheckCli>();
  auto* sub = app.add_subcommand(
      "host-check",
      "Check a host for GPUDirect RDMA and SR-IOV: IOMMU on the kernel command "
      "line, SR-IOV VFs, ACS and ATS on the GPU/NIC paths, ESXi passthrough state; "
      "each finding says the command that fixes it; exit 1 on warnings or errors");
  add_host_inputs(*sub, o->hosts, "Host inputs as for topo");
  sub->add_option("--cmdline", o->cmdline, "/proc/cmdline or /etc/default/grub of the host");
  sub->add_option("--host-kind", o->host_kind,
                  "esxi, kvm (assigns devices to VMs) or bare-metal (GPUDirect RDMA without VMs); "
                  "detected from the inputs when not given")
      ->check(CLI::IsMember({"esxi", "kvm", "bare-metal"}));
  sub->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  add_server_options(*sub, o->server, true);
  sub->callback([o, &ctx] { ctx.exit_code = run_host_check(*o, ctx); });
}

}  // namespace vmxkit::cli
