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
#include "vmxkit/analysis/topology.h"
#include "vmxkit/checks/host_context.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/host/cmdline.h"
#include "vmxkit/report/json.h"

namespace vmxkit::cli {

using report::Json, report::json_text, report::write_json_document;

namespace {

struct HostCheckOptions {
  HostInputs hosts;
  std::string cmdline;
  std::string host_kind;
  std::string format = "text";
  ServerOptions server;
};

std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "-"; }

Json optional_bool(const std::optional<bool>& b) { return b ? Json(*b) : Json(nullptr); }

// The vGPU types the host offers (config.sharedPassthruGpuTypes) with what a VM holding each may
// do (config.sharedGpuCapabilities); null when the inputs do not say (not the vSphere API).
Json vgpu_types_json(const pci::HostVgpuTypes& types) {
  if (!types.known) return nullptr;
  Json list = Json::array();
  for (const pci::VgpuOffer& v : types.offered) {
    list.push_back({{"vgpu", json_text(v.profile)},
                    {"disk_snapshot_supported", optional_bool(v.disk_snapshot)},
                    {"memory_snapshot_supported", optional_bool(v.memory_snapshot)},
                    {"suspend_supported", optional_bool(v.suspend)},
                    {"migrate_supported", optional_bool(v.migrate)}});
  }
  return list;
}

void print_vgpu_types(const pci::HostVgpuTypes& types, Context& ctx) {
  if (!types.known) return;
  const std::string name = types.host_name.empty() ? "the host" : types.host_name;
  if (types.offered.empty()) {
    ctx.out << fmt::format(
        "vGPU types: none offered by {} (config.sharedPassthruGpuTypes is empty: no NVIDIA vGPU "
        "manager, or no GPU in Shared Direct mode)\n",
        name);
    return;
  }
  std::size_t width = 7;  // "PROFILE"
  for (const pci::VgpuOffer& v : types.offered) width = std::max(width, v.profile.size());
  ctx.out << fmt::format("vGPU types offered by {} (config.sharedPassthruGpuTypes, {}):\n", name,
                         types.offered.size());
  ctx.out << fmt::format("  {:<{}}  DISK-SNAPSHOT  MEMORY-SNAPSHOT  SUSPEND  MIGRATE\n", "PROFILE",
                         width);
  for (const pci::VgpuOffer& v : types.offered) {
    ctx.out << fmt::format("  {:<{}}  {:<13}  {:<15}  {:<7}  {}\n", v.profile, width,
                           yes_no(v.disk_snapshot), yes_no(v.memory_snapshot), yes_no(v.suspend),
                           yes_no(v.migrate));
  }
}

void write_json(const std::vector<checks::Finding>& findings, pci::HostKind advised,
                const pci::Host& host, Context& ctx) {
  Json list = Json::array();
  for (const checks::Finding& f : findings) {
    list.push_back({{"id", f.check->id},
                    {"name", f.check->name},
                    {"severity", to_string(f.severity)},
                    {"subject", json_text(f.subject)},
                    {"message", json_text(f.message)},
                    {"fix", f.fix.empty() ? Json(nullptr) : Json(json_text(f.fix))}});
  }
  write_json_document(
      ctx.out,
      {{"host_kind", advised == pci::HostKind::unknown ? Json(nullptr) : Json(to_string(advised))},
       {"findings", std::move(list)},
       {"vgpu_types", vgpu_types_json(host.vgpu_types())}});
}

int run_host_check(const HostCheckOptions& o, Context& ctx) {
  const bool from_server = server_host_wanted(o.server);
  if (o.hosts.empty() && !from_server) {
    throw vmxkit::Error("host-check: give at least one HOST, or --server URL --esx-host NAME");
  }
  std::optional<pci::KernelCmdline> cmdline;
  if (!o.cmdline.empty()) cmdline = pci::parse_kernel_cmdline(read_file(o.cmdline), o.cmdline);
  std::ostringstream ignored;
  Context quiet{ctx.in, ctx.out, ignored};  // input warnings are findings here
  const pci::Host host =
      from_server ? load_server_host(o.server, o.hosts, quiet) : load_host_inputs(o.hosts, quiet);
  // A host read from the vSphere API is an ESXi host.
  pci::HostKind kind = from_server ? pci::HostKind::esxi : pci::HostKind::unknown;
  if (!o.host_kind.empty()) kind = *pci::parse_host_kind(o.host_kind);  // checked by CLI11
  const std::vector<checks::Finding> findings = checks::check_host(host, cmdline, kind);
  const pci::HostKind detected = pci::detect_host_kind(host, cmdline);
  const pci::HostKind advised = kind == pci::HostKind::unknown ? detected : kind;
  int code = kExitClean;
  for (const checks::Finding& f : findings) {
    if (f.severity == Severity::error || f.severity == Severity::warning) code = kExitFindings;
  }
  if (o.format == "json") {
    write_json(findings, advised, host, ctx);
    return code;
  }
  if (advised != pci::HostKind::unknown) {
    ctx.out << fmt::format("host: {} ({})\n", to_string(advised),
                           kind == pci::HostKind::unknown ? "from the inputs" : "--host-kind");
  }
  print_vgpu_types(host.vgpu_types(), ctx);
  for (const checks::Finding& f : findings) {
    if (!f.subject.empty()) ctx.out << f.subject << ": ";
    ctx.out << fmt::format("{}: {} [{}]\n", to_string(f.severity), f.message, f.check->id);
    if (!f.fix.empty()) ctx.out << "  fix: " << f.fix << '\n';
  }
  std::size_t unchecked = 0;
  std::size_t problems = 0;
  for (const checks::Finding& f : findings) {
    unchecked += f.check->name == "not-checked";
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
  auto o = std::make_shared<HostCheckOptions>();
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
