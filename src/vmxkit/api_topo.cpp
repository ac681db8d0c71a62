// SPDX-License-Identifier: Apache-2.0
// The facade's topology reports (vmxkit/vmxkit.h): topology_report() over analysis/topology.h
// (or, for a host known from `nvidia-smi topo -m` alone, analysis/smi_topology.h), and
// render_topology() over report/ (the matrix text and JSON, the diagram's DOT; its SVG is
// render_svg(), in api_svg.cpp).
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "vmxkit/analysis/readiness.h"
#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/context.h"
#include "vmxkit/checks/vm_pairs.h"
#include "vmxkit/formats/host/cmdline.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/report/diagram.h"
#include "vmxkit/report/json.h"
#include "vmxkit/report/smi_topology_text.h"
#include "vmxkit/report/topology_json.h"
#include "vmxkit/report/topology_text.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

static_assert(kFullMatrixLimit == pci::kFullMatrixLimit);

// The host and one of its two analyses: the PCIe tree's, or the matrix's alone.
struct TopologyReport::Impl {
  Host host;
  std::optional<pci::Topology> topology;      // a host with a PCIe tree
  std::optional<pci::SmiMatrixVerdicts> smi;  // a host known from nvidia-smi topo -m alone
};

namespace {

// A topology's JSON document, as write_json_document writes it.
std::string topology_json_document(const report::Json& doc) {
  std::ostringstream out;
  report::write_json_document(out, doc);
  return std::move(out).str();
}

// The VM's passthrough devices on the host, matched by `id` as the TOPO rules match them, and
// the pairs those rules judge (checks::peer_pairs), for the diagram. An entry that names no
// device of the host is a warning.
pci::DiagramHighlight vm_highlight(const VmxDocument& vm, const pci::Host& host,
                                   const TopologyRenderOptions& options) {
  const vmx::Document doc = vmx::Document::parse(std::string(vm.bytes()), vm.path());
  const VmConfig config = vmx::to_vm_config(doc);
  const checks::Context rc(vm.path(), doc.bytes(), &doc, config, host.catalog(), &host);
  pci::DiagramHighlight h;
  h.vm = vm.path();
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
    if (!options.message) continue;
    const Location at = lines.location(checks::id_span(rc, v).begin);
    options.message(fmt::format(
        "vmxkit: warning: {}:{}:{}: {} names no device of the host; it is not highlighted\n", h.vm,
        at.line, at.column, name));
  }
  for (const checks::PeerPair& p : checks::peer_pairs(rc)) h.pairs.push_back(p.verdict);
  return h;
}

// The host's tree as DOT.
std::string topology_dot(const pci::Host& host, const pci::Topology& topo,
                         const TopologyRenderOptions& options) {
  pci::DiagramOptions diagram;
  diagram.title = options.title;
  pci::DiagramHighlight highlight;
  if (options.vm != nullptr) {
    highlight = vm_highlight(*options.vm, host, options);
    diagram.title += "; passthrough devices of " + highlight.vm + " highlighted";
    diagram.highlight = &highlight;
  }
  return pci::to_dot(pci::build_diagram(host, topo, diagram));
}

}  // namespace

std::optional<bool> iommu_translating(const Host& host, std::string_view cmdline,
                                      const std::string& cmdline_name) {
  return pci::iommu_translating(detail::internal_host(host),
                                pci::parse_kernel_cmdline(cmdline, cmdline_name));
}

std::vector<std::string> nvidia_smi_warnings(const Host& host) {
  return pci::smi_warnings(detail::internal_host(host));
}

std::optional<std::string> nvidia_smi_only_input(const Host& host) {
  const pci::Host& h = detail::internal_host(host);
  if (!pci::smi_only(h)) return std::nullopt;
  return h.smi_topo()->where.path;
}

TopologyReport topology_report(const Host& host, const TopologyOptions& options) {
  auto impl = std::make_shared<TopologyReport::Impl>(TopologyReport::Impl{host, {}, {}});
  const pci::Host& h = detail::internal_host(host);
  if (pci::smi_only(h)) {
    impl->smi = pci::judge_smi_matrix(*h.smi_topo());
  } else {
    pci::AnalysisOptions o;
    o.iommu_translating = options.iommu_translating;
    o.all_nics = options.all_nics;
    o.full_matrix = options.full_matrix;
    impl->topology = pci::analyze(h, o);
  }
  TopologyReport report;
  report.impl_ = std::move(impl);
  return report;
}

std::string render_topology(const TopologyReport& report, std::string_view format,
                            const TopologyRenderOptions& options) {
  const TopologyReport::Impl& r = *report.impl_;
  const pci::Host& host = detail::internal_host(r.host);
  const bool diagram = format == "dot";
  if (!diagram && format != "text" && format != "json") {
    throw Error(
        fmt::format("{}: not a topology format; they are text, json and dot (render_svg() "
                    "lays the dot out as SVG)",
                    format));
  }
  if (r.smi) {
    const pci::SmiTopo& smi = *host.smi_topo();
    if (diagram) {
      throw Error(fmt::format(
          "{} is nvidia-smi topo -m, which has no PCIe tree to draw; give the host's lspci -vvv "
          "(or lspci -tv) with it",
          smi.where.path));
    }
    return format == "json" ? topology_json_document(report::smi_topology_json(smi, *r.smi))
                            : report::smi_topology_text(smi, *r.smi);
  }
  if (diagram) return topology_dot(host, *r.topology, options);
  if (format == "json") return topology_json_document(report::topology_json(host, *r.topology));
  return report::render_topology_text(host, *r.topology);
}

std::size_t TopologyReport::gpu_count() const {
  if (impl_->smi) return detail::internal_host(impl_->host).smi_topo()->gpu_count();
  return impl_->topology->gpus.size();
}

std::size_t TopologyReport::nic_count() const {
  if (impl_->smi) {
    return detail::internal_host(impl_->host).smi_topo()->labels.size() - gpu_count();
  }
  return impl_->topology->nics.size();
}

bool TopologyReport::listed() const { return impl_->topology && impl_->topology->listed; }

bool TopologyReport::nvidia_smi_only() const { return impl_->smi.has_value(); }

}  // namespace vmxkit
