// SPDX-License-Identifier: Apache-2.0
// vmxkit host-check HOST... [--cmdline FILE] : readiness of a host for GPUDirect RDMA and SR-IOV.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
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
        ctx.out, {{"host_kind",
                   advised == pci::HostKind::unknown ? Json(nullptr) : Json(to_string(advised))},
                  {"findings", std::move(list)}});
    return code;
  }
  if (advised != pci::HostKind::unknown) {
    ctx.out << fmt::format("host: {} ({})\n", to_string(advised),
                           kind == pci::HostKind::unknown ? "from the inputs" : "--host-kind");
  }
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
