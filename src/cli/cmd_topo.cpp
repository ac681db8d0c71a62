// SPDX-License-Identifier: Apache-2.0
// vmxkit topo HOST... : the GPU/NIC matrix like `nvidia-smi topo -m`, with P2P verdicts.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct TopoOptions {
  HostInputs hosts;
  std::string format = "text";
  bool all_nics = false;
  bool full_matrix = false;
  std::string cmdline;
  std::string vm;        ///< --vm: the VM whose passthrough devices a diagram highlights
  std::string output;    ///< -o: the file to write (stdout when empty)
  bool force = false;    ///< --force: write -o even when the VM holds its lock
  ServerOptions server;  ///< --server, --esx-host: the host from the vSphere API
};

// The diagram's heading: the host inputs as given, and the server's host.
std::string diagram_title(const TopoOptions& o) {
  std::string title = "PCIe tree of ";
  bool first = true;
  for (const auto* list : {&o.hosts.positional, &o.hosts.flagged.hosts}) {
    for (const std::string& source : *list) {
      if (!first) title += ", ";
      title += display_name(source);
      first = false;
    }
  }
  if (!o.server.esx_host.empty()) {
    title += (first ? "" : ", ") + o.server.esx_host + " (vSphere API)";
  }
  return title;
}

int run_topo(const TopoOptions& o, Context& ctx) {
  const bool from_server = server_host_wanted(o.server);
  if (o.hosts.empty() && !from_server)
    throw vmxkit::Error(
        "topo: give at least one HOST (file, sysfs directory or live), or --server URL "
        "--esx-host NAME");
  const bool diagram = o.format == "dot" || o.format == "svg";
  if (!o.vm.empty() && !diagram) {
    throw vmxkit::Error(
        "topo: --vm highlights the VM's devices on a diagram: use it with "
        "--format dot or --format svg");
  }
  const Host host =
      from_server ? read_server_host(o.server, o.hosts, ctx) : read_host_inputs(o.hosts, ctx);
  TopologyOptions options;
  options.all_nics = o.all_nics;
  options.full_matrix = o.full_matrix;
  if (!o.cmdline.empty()) {
    options.iommu_translating = iommu_translating(host, read_file_bytes(o.cmdline), o.cmdline);
  }
  for (const std::string& w : nvidia_smi_warnings(host)) {
    ctx.err << "vmxkit: warning: " << w << '\n';
  }
  const std::optional<std::string> smi_only = nvidia_smi_only_input(host);
  if (smi_only && diagram) {
    throw vmxkit::Error(fmt::format(
        "topo --format {}: {} is nvidia-smi topo -m, which has no PCIe tree to draw; give the "
        "host's lspci -vvv (or lspci -tv) with it",
        o.format, *smi_only));
  }
  TopologyRenderOptions render;
  std::optional<VmxDocument> vm;
  if (diagram) {
    render.title = diagram_title(o);
    if (!o.vm.empty()) {
      vm = read_vmx_document(o.vm, ctx);
      warn_malformed(*vm, ctx);
      render.vm = &*vm;
    }
    render.message = [&ctx](std::string_view message) { ctx.err << message; };
  }
  const TopologyReport report = topology_report(host, options);
  if (o.format == "text" && !smi_only && report.gpu_count() + report.nic_count() == 0) {
    ctx.err << "vmxkit: no GPUs or RDMA NICs on the host\n";
  }
  const std::string text = render_topology(report, diagram ? "dot" : o.format, render);
  write_output(o.output, o.format == "svg" ? render_svg(text) : text, ctx, o.force);
  return kExitClean;
}

}  // namespace

void setup_topo(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<TopoOptions>();
  auto* sub = app.add_subcommand(
      "topo",
      "Print the GPU/NIC matrix like `nvidia-smi topo -m` (PIX/PXB/PHB/NODE/SYS) with a "
      "P2P verdict and its reasons for every pair, and the best NIC for each GPU; or, with "
      "--format dot|svg, the host's PCIe tree as a diagram (NUMA nodes, host bridges, root "
      "ports, one box per switch, GPUs, NICs, other devices folded per bridge)");
  add_host_inputs(*sub, o->hosts,
                  "lspci -vvv, lspci -tv, esxcli hardware pci list, esxcli hardware pci "
                  "pcipassthru list, numactl --hardware, esxcli hardware memory get, nvidia-smi "
                  "topo -m or dmesg output, a HostSystem's vSphere API properties (XML), a sysfs "
                  "directory, or live; several are merged");
  sub->add_option("--format", o->format,
                  "text or json (the matrix), dot or svg (the PCIe tree as a Graphviz diagram)")
      ->check(CLI::IsMember({"text", "json", "dot", "svg"}));
  sub->add_option("--vm", o->vm,
                  "With dot or svg: highlight this .vmx's passthrough devices (pciPassthruN.id) "
                  "and draw each GPU/NIC pair's path in its class's colour (PIX/PXB green, "
                  "PHB/NODE amber, SYS red)");
  sub->add_option("-o,--output", o->output, "Write to this file (atomically) instead of stdout");
  sub->add_flag("--force", o->force, "Write -o even when it is a VM that holds its lock (OUT.lck)");
  sub->add_flag("--all-nics", o->all_nics, "List every NIC, not only RDMA-capable ones");
  sub->add_flag("--matrix", o->full_matrix,
                fmt::format("The full matrix and every pair's verdict also for hosts with more "
                            "than {} GPUs and NICs (which get each GPU's nearest peers instead)",
                            kFullMatrixLimit));
  sub->add_option("--cmdline", o->cmdline, "/proc/cmdline or /etc/default/grub (IOMMU mode)");
  add_server_options(*sub, o->server, true);
  sub->callback([o, &ctx] { ctx.exit_code = run_topo(*o, ctx); });
}

}  // namespace vmxkit::cli
