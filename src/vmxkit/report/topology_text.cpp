// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/topology_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <string>
#include <vector>

#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/core/text.h"
#include "vmxkit/report/pair_reason.h"

namespace vmxkit::report {
// The file's own names, where pci's are used unqualified (a namespace of its own, so that the
// using-directive reaches no other file of a unity build).
namespace topology_text {
using namespace vmxkit::pci;

namespace {

// The matrix rows of `nvidia-smi topo -m` with the CPU/NUMA affinity columns. Returns whether a
// cell is `?`.
bool render_matrix(const Host& host, const Topology& t, std::string& out) {
  const std::size_t n = t.size();
  for (std::size_t i = 0; i < n; ++i) {
    out += '\t';
    out += t.label(i);
  }
  out += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  bool any_unknown = false;
  for (std::size_t i = 0; i < n; ++i) {
    out += t.label(i);
    for (std::size_t j = 0; j < n; ++j) {
      const PathClass c = t.matrix.at(i, j);
      any_unknown = any_unknown || c == PathClass::unknown;
      if (c == PathClass::self) {
        out += "\t X ";
      } else {
        out += '\t';
        out += t.cell_text(i, j);
      }
    }
    if (i < t.gpus.size()) {
      const Device& d = host.at(t.device(i));
      std::string cpus = "N/A";
      if (d.numa_node) {
        if (const auto it = host.numa().cpus.find(*d.numa_node); it != host.numa().cpus.end())
          cpus = cpu_ranges(it->second);
      }
      out +=
          fmt::format("\t{}\t{}\t\tN/A", cpus, d.numa_node ? std::to_string(*d.numa_node) : "N/A");
    }
    out += '\n';
  }
  return any_unknown;
}

// The note and each GPU's nearest peers, for a `listed` topology. Returns whether a class is `?`.
bool render_nearest(const Host& host, const Topology& t, std::string& out) {
  bool any_unknown = false;
  out += "Note: ";
  out += listing_note(t);
  out += "\n\nNearest NICs and GPU peers per GPU (path class, P2P verdict):\n\n";
  auto peers = [&](const std::vector<Peer>& list, std::size_t offset) {
    if (list.empty()) return std::string("none");
    std::string text;
    for (const Peer& p : list) {
      any_unknown = any_unknown || p.cls == PathClass::unknown;
      if (!text.empty()) text += ", ";
      text += fmt::format("{} ({}, {})", t.label(offset + p.index),
                          p.nvlinks ? fmt::format("NV{}", *p.nvlinks) : to_string(p.cls),
                          to_string(p.verdict));
    }
    return text;
  };
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const Device& d = host.at(t.gpus[i]);
    const std::string nics = peers(t.nearest[i].nics, t.gpus.size());
    const std::string gpus = peers(t.nearest[i].gpus, 0);
    out += fmt::format("  {} (NUMA {}): NICs: {}; GPUs: {}\n", t.label(i),
                       d.numa_node ? std::to_string(*d.numa_node) : "N/A", nics, gpus);
  }
  return any_unknown;
}

// The legend of the path classes, as nvidia-smi prints it, and vmxkit's `?`.
void render_class_legend(const Host& host, bool any_unknown, std::string& out) {
  out +=
      "\nLegend:\n\n"
      "  X    = Self\n"
      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
      "(e.g., QPI/UPI)\n"
      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
      "within a NUMA node\n"
      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
      "Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n";
  if (host.smi_topo()) out += "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  if (any_unknown)
    out +=
        "  ?    = NODE or SYS: no NUMA node is known for a host bridge (or a device is not "
        "placed)\n";
  if (host.numa().single_node_inferred) {
    out += fmt::format(
        "  NUMA: {} has no `NUMA node:` line, so the kernel knew one node: every device is on "
        "it, as nvidia-smi reads it\n",
        host.numa().no_numa_lines_in);
  }
}

// The NIC and GPU legends: each label's device.
void render_device_legend(const Host& host, const Topology& t, std::string& out) {
  auto legend = [&](std::size_t i) {
    const Device& d = host.at(t.device(i));
    std::string name =
        d.rdma_name.empty() ? d.bdf.to_string() : d.rdma_name + " " + d.bdf.to_string();
    if (d.model) {
      name += " " + d.model->model;
    } else if (!d.name.empty()) {
      name += " " + d.name;
    }
    if (d.role == Role::nic_vf) name += " (VF)";
    return fmt::format("  {}: {}\n", t.label(i), name);
  };
  if (!t.nics.empty()) {
    out += "\nNIC Legend:\n\n";
    for (std::size_t i = t.gpus.size(); i < t.size(); ++i) out += legend(i);
  }
  if (!t.gpus.empty()) {
    out += "\nGPU Legend:\n\n";
    for (std::size_t i = 0; i < t.gpus.size(); ++i) out += legend(i);
  }
}

// The host's NVLink notes: GPUs whose NVLink the PCI inputs cannot show.
void render_nvlink_notes(const Host& host, const Topology& t, std::string& out) {
  for (const NvlinkNote& note : nvlink_notes(host, t.gpus)) {
    out += "\nNote: " + nvlink_note_text(host, note) + "\n";
  }
}

// Each judged pair: its class and verdict, the reasons, and the fix of each that is not ok.
void render_pairs(const Host& host, const Topology& t, std::string& out) {
  const std::size_t n = t.size();
  if (!t.pairs.empty()) out += "\nP2P verdicts:\n";
  // Row/column of each device, for the labels of the pairs.
  std::vector<std::size_t> position(host.devices().size(), n);
  for (std::size_t i = 0; i < n; ++i) position[t.device(i)] = i;
  auto label_of = [&](std::size_t dev) {
    return position[dev] < n ? t.label(position[dev]) : host.at(dev).bdf.to_string();
  };
  for (const PairVerdict& v : t.pairs) {
    out += fmt::format("\n  {} <-> {}  {}  {}\n", label_of(v.a), label_of(v.b),
                       v.nvlinks ? fmt::format("NV{}", *v.nvlinks) : to_string(v.path.cls),
                       to_string(v.verdict));
    for (const Reason& r : v.reasons) {
      out += fmt::format("    - {}\n", reason_text(host, v, r));
      if (r.effect == Verdict::ok) continue;
      if (const std::string fix = reason_fix(host, v, r); !fix.empty()) {
        out += fmt::format("      fix: {}\n", fix);
      }
    }
  }
}

// The best NIC of each GPU, with the pair's class and verdict.
void render_best_nics(const Host& host, const Topology& t, std::string& out) {
  if (t.gpus.empty() || t.nics.empty()) return;
  out += "\nBest NIC per GPU:\n\n";
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    if (!t.best_nic[i]) continue;  // listed: no NIC is near this GPU
    const std::size_t j = *t.best_nic[i];
    PathClass c = PathClass::unknown;
    Verdict verdict = Verdict::ok;
    if (t.listed) {
      for (const Peer& p : t.nearest[i].nics) {
        if (p.index == j) std::tie(c, verdict) = std::pair(p.cls, p.verdict);
      }
    } else {
      c = t.matrix.at(i, t.gpus.size() + j);
      verdict = t.gpu_nic_pair(i, j).verdict;
    }
    out += fmt::format("  GPU{}: NIC{} ({}, {}, {})\n", i, j, host.at(t.nics[j]).bdf.to_string(),
                       to_string(c), to_string(verdict));
  }
}

}  // namespace

std::string render(const Host& host, const Topology& t) {
  std::string out;
  const bool any_unknown = t.listed ? render_nearest(host, t, out) : render_matrix(host, t, out);
  render_class_legend(host, any_unknown, out);
  render_device_legend(host, t, out);
  render_nvlink_notes(host, t, out);
  render_pairs(host, t, out);
  render_best_nics(host, t, out);
  return out;
}

}  // namespace topology_text

std::string nvlink_note_text(const pci::Host& host, const pci::NvlinkNote& note) {
  std::vector<std::string> bdfs;
  bdfs.reserve(note.gpus.size());
  for (const std::size_t g : note.gpus) bdfs.push_back(host.at(g).bdf.to_string());
  const std::string gpus = fmt::format("GPUs {} ({})", fmt::join(bdfs, ", "), note.model->model);
  const std::string cited = fmt::format("catalogue {}; {}", note.model->id_string(), note.source);
  if (note.kind == pci::NvlinkSupport::baseboard) {
    return fmt::format(
        "{} are joined by NVLink or NVSwitches on their baseboard, which the PCI inputs cannot "
        "show: the GPU<->GPU verdicts here are PCIe-only and understate their P2P; give "
        "`nvidia-smi topo -m` with --host to include NVLink ({})",
        gpus, cited);
  }
  const std::optional<unsigned> width = note.model->nvlink_bridge_gpus;
  return fmt::format(
      "{} take an NVLink bridge{}, which the PCI inputs cannot show (a bridge is not a PCI "
      "device): the GPU<->GPU verdicts here are PCIe-only; give `nvidia-smi topo -m` with --host "
      "to include NVLink ({})",
      gpus, width ? fmt::format(" (one bridge set joins at most {} boards)", *width) : "", cited);
}

std::string listing_note(const pci::Topology& topo) {
  if (!topo.listed) return {};
  const std::size_t n = topo.size();
  const std::size_t g = topo.gpus.size();
  return fmt::format(
      "{} GPUs and NICs ({} GPUs, {} NICs) are more than the {} vmxkit prints the full matrix "
      "for: it would have {} cells and {} pair verdicts. Listed instead: each GPU's nearest {} "
      "NICs and {} GPU peers, closest first (vmxkit topo --matrix prints the full matrix).",
      n, g, topo.nics.size(), pci::kFullMatrixLimit, n * n, g * (g - 1) / 2 + g * topo.nics.size(),
      pci::kNearestPeers, pci::kNearestPeers);
}

std::string render_topology_text(const pci::Host& host, const pci::Topology& topo) {
  return topology_text::render(host, topo);
}

}  // namespace vmxkit::report
