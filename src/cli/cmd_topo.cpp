// SPDX-License-Identifier: Apache-2.0
// vmxkit topo HOST... : the GPU/NIC matrix like `nvidia-smi topo -m`, with P2P verdicts.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <span>
#include <sstream>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "vmxkit/analysis/readiness.h"
#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/checks/context.h"
#include "vmxkit/checks/vm_pairs.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/report/diagram.h"
#include "vmxkit/report/json.h"
#include "vmxkit/report/smi_topology_text.h"
#include "vmxkit/report/topology_json.h"
#include "vmxkit/report/topology_text.h"

namespace vmxkit::cli {

using report::Json, report::json_text, report::write_json_document;

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

// The VM's passthrough devices on the host, matched by `id` as the TOPO rules match them, and
// the pairs those rules judge (checks::peer_pairs), for the diagram.
pci::DiagramHighlight vm_highlight(const std::string& path, const pci::Host& host, Context& ctx) {
  const vmx::Document doc = load_vmx(path, ctx);
  warn_malformed(doc, ctx);
  const VmConfig config = vmx::to_vm_config(doc);
  const checks::Context rc(display_name(path), doc.bytes(), &doc, config, host.catalog(), &host);
  pci::DiagramHighlight h;
  h.vm = display_name(path);
  const LineIndex lines(doc.bytes());
  for (const checks::VmDevice& v : rc.devices()) {
    const std::string name = fmt::format("pciPassthru{}", v.entry->index);
    if (const auto device = checks::host_device(rc, v)) {
      std::string& shown = h.devices[*device];
      shown += (shown.empty() ? "" : ", ") + name;
      continue;
    }
    const PassthroughKind kind = v.entry->kind();
    if (kind != PassthroughKind::directpath && kind != PassthroughKind::sriov_vf) continue;
    const Location at = lines.location(checks::id_span(rc, v).begin);
    ctx.err << fmt::format(
        "vmxkit: warning: {}:{}:{}: {} names no device of the host; it is not highlighted\n", h.vm,
        at.line, at.column, name);
  }
  for (const checks::PeerPair& p : checks::peer_pairs(rc)) h.pairs.push_back(p.verdict);
  return h;
}

// The host's tree as DOT, or as SVG rendered from that DOT.
std::string topology_diagram(const TopoOptions& o, const pci::Host& host, const pci::Topology& t,
                             Context& ctx) {
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
  pci::DiagramHighlight highlight;
  pci::DiagramOptions options;
  if (!o.vm.empty()) {
    highlight = vm_highlight(o.vm, host, ctx);
    title += "; passthrough devices of " + highlight.vm + " highlighted";
    options.highlight = &highlight;
  }
  options.title = std::move(title);
  const std::string dot = pci::to_dot(pci::build_diagram(host, t, options));
  return o.format == "svg" ? pci::render_svg(dot) : dot;
}

// A host known only from `nvidia-smi topo -m`: the matrix's verdicts and what it cannot tell.
int run_smi_topo(const TopoOptions& o, const pci::SmiTopo& smi, Context& ctx) {
  const pci::SmiMatrixVerdicts verdicts = pci::judge_smi_matrix(smi);
  std::ostringstream text;
  if (o.format == "json") {
    write_json_document(text, report::smi_topology_json(smi, verdicts));
  } else {
    text << report::smi_topology_text(smi, verdicts);
  }
  write_output(o.output, text.str(), ctx, o.force);
  return kExitClean;
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
  const pci::Host host =
      from_server ? load_server_host(o.server, o.hosts, ctx) : load_host_inputs(o.hosts, ctx);
  pci::AnalysisOptions options;
  options.all_nics = o.all_nics;
  options.full_matrix = o.full_matrix;
  if (!o.cmdline.empty()) {
    options.iommu_translating =
        pci::iommu_translating(host, pci::parse_kernel_cmdline(read_file(o.cmdline), o.cmdline));
  }
  for (const std::string& w : pci::smi_warnings(host)) ctx.err << "vmxkit: warning: " << w << '\n';
  if (pci::smi_only(host)) {
    if (diagram) {
      throw vmxkit::Error(fmt::format(
          "topo --format {}: {} is nvidia-smi topo -m, which has no PCIe tree to draw; give the "
          "host's lspci -vvv (or lspci -tv) with it",
          o.format, host.smi_topo()->where.path));
    }
    return run_smi_topo(o, *host.smi_topo(), ctx);
  }
  const pci::Topology topo = pci::analyze(host, options);
  std::ostringstream text;
  if (diagram) {
    text << topology_diagram(o, host, topo, ctx);
  } else if (o.format == "json") {
    write_json_document(text, report::topology_json(host, topo));
  } else {
    if (topo.size() == 0) ctx.err << "vmxkit: no GPUs or RDMA NICs on the host\n";
    text << report::render_topology_text(host, topo);
  }
  write_output(o.output, text.str(), ctx, o.force);
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
                            pci::kFullMatrixLimit));
  sub->add_option("--cmdline", o->cmdline, "/proc/cmdline or /etc/default/grub (IOMMU mode)");
  add_server_options(*sub, o->server, true);
  sub->callback([o, &ctx] { ctx.exit_code = run_topo(*o, ctx); });
}

}  // namespace vmxkit::cli
