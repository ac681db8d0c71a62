// SPDX-License-Identifier: Apache-2.0
// What NCCL computes from a topology tree: its system graph (ncclTopoGetSystemFromXml and
// ncclTopoFlattenBcmSwitches, src/graph/topo.cc) and its path types and bandwidths
// (ncclTopoSetPaths, src/graph/paths.cc), re-stated from NCCL 2.30.7 (commit 5067397c) for the
// nodes a PCI tree has: CPU, PCI switch, GPU, NIC. No NVLink, C2C or NVSwitch.
#include <algorithm>
#include <limits>
#include <string>

#include "vmxkit/analysis/nccl_topo.h"

namespace vmxkit::guest {

namespace {

// Link types (LINK_* in src/graph/topo.h): a path starts with its first link's type.
constexpr int kLinkPci = 4;
constexpr int kLinkSys = 9;
constexpr double kLocBw = 5000.0;  // LOC_BW, topo.h
// The inter-CPU link's bandwidth depends on the CPU model (ncclTopoGetInterCpuBw); it is left
// out of the bandwidths here (NcclPairPath::crosses_cpus says a path crosses it).
constexpr double kUncounted = std::numeric_limits<double>::infinity();

enum class GType : unsigned char { cpu, pci, gpu, nic };

struct GLink {
  std::size_t to = 0;
  int type = kLinkPci;
  double bw = 0;
};

struct GNode {
  GType type = GType::pci;
  std::uint64_t device = 0;  // vendor<<48 | device<<32 | subsystem_vendor<<16 | subsystem_device
  std::size_t tree = 0;
  bool removed = false;
  std::vector<GLink> links;
};

/// ncclTopoGetIntDevice (topo.cc): the four ids of a `<pci>` as one number.
std::uint64_t int_device(const NcclTopoNode& n) {
  return std::uint64_t{n.vendor.value_or(0)} << 48 | std::uint64_t{n.device.value_or(0)} << 32 |
         std::uint64_t{n.subsystem_vendor.value_or(0)} << 16 | n.subsystem_device.value_or(0);
}

/// getBcmGen (topo.cc): a Broadcom PEX880xx (Gen4: 1000:c010 subsystem 1000:a0xx at every
/// level) or PEX890xx (Gen5: 1000:c030, subsystem 1000:0xxx at the top, 1000:1xxx below).
int bcm_gen(std::uint64_t id, int level) {
  const std::uint64_t masked = id & 0xfffffffffffff000ULL;
  if (masked == 0x1000c0101000a000ULL) return 4;
  if (masked == (0x1000c03010000000ULL | static_cast<std::uint64_t>(level) * 0x1000)) return 5;
  return 0;
}

class Graph {
 public:
  explicit Graph(const NcclTopoTree& tree) {
    for (std::size_t i : tree.document_order()) add(tree, i);
    // ncclTopoConnectCpus: every two CPUs of the system, a LINK_SYS.
    for (std::size_t a : cpus_) {
      for (std::size_t b : cpus_) {
        if (a != b) nodes_[a].links.push_back({b, kLinkSys, kUncounted});
      }
    }
    flatten_bcm_switches();
  }

  const std::vector<GNode>& nodes() const { return nodes_; }
  std::optional<std::size_t> of_tree(std::size_t tree_index) const {
    const auto it = by_tree_.find(tree_index);
    if (it == by_tree_.end()) return std::nullopt;
    return it->second;
  }

  /// ncclTopoSetPaths from `base`: every node's path type, bandwidth and hop count to it.
  struct Path {
    NcclPathType type = NcclPathType::dis;
    double bw = 0;
    int count = 0;
  };
  std::vector<Path> paths_to(std::size_t base) const;

 private:
  void add(const NcclTopoTree& tree, std::size_t i) {
    const NcclTopoNode& n = tree.nodes[i];
    GNode g;
    g.tree = i;
    g.type = n.kind == NcclNodeKind::cpu   ? GType::cpu
             : n.kind == NcclNodeKind::gpu ? GType::gpu
             : n.kind == NcclNodeKind::nic ? GType::nic
                                           : GType::pci;
    g.device = int_device(n);
    nodes_.push_back(g);
    const std::size_t index = nodes_.size() - 1;
    by_tree_[i] = index;
    if (g.type == GType::cpu) {
      cpus_.push_back(index);
      return;
    }
    // ncclTopoAddPci: the link to the parent carries this element's own link bandwidth.
    const std::size_t parent = by_tree_.at(*n.parent);
    const double bw = nccl_link_bw(n.link_speed, n.link_width);
    nodes_[index].links.push_back({parent, kLinkPci, bw});
    nodes_[parent].links.push_back({index, kLinkPci, bw});
  }

  /// ncclTopoFlattenBcmSwitches: a Broadcom switch's top level absorbs its sub-switches of the
  /// same generation (their links move to it), then its subsystem becomes 0xffff so it is not
  /// merged again; restart after each.
  void flatten_bcm_switches() {
    for (std::size_t s = 0; s < nodes_.size(); ++s) {
      GNode& sw = nodes_[s];
      if (sw.removed || sw.type != GType::pci) continue;
      const int gen = bcm_gen(sw.device, 0);
      if (gen == 0) continue;
      std::vector<std::size_t> subs;
      for (auto l = sw.links.begin(); l != sw.links.end();) {
        const GNode& sub = nodes_[l->to];
        if (sub.type == GType::pci && bcm_gen(sub.device, 1) == gen) {
          subs.push_back(l->to);
          l = sw.links.erase(l);
        } else {
          ++l;
        }
      }
      for (std::size_t sub : subs) absorb(s, sub);
      nodes_[s].device |= 0xffff;
      s = static_cast<std::size_t>(-1);  // restart
    }
  }

  void absorb(std::size_t sw, std::size_t sub) {
    for (const GLink& l : nodes_[sub].links) {
      if (l.to == sw) continue;
      nodes_[sw].links.push_back(l);
      for (GLink& back : nodes_[l.to].links) {
        if (back.to == sub) {
          back.to = sw;
          break;
        }
      }
    }
    nodes_[sub].removed = true;
    nodes_[sub].links.clear();
  }

  std::vector<GNode> nodes_;
  std::vector<std::size_t> cpus_;
  std::map<std::size_t, std::size_t> by_tree_;
};

std::vector<Graph::Path> Graph::paths_to(std::size_t base) const {
  std::vector<Path> path(nodes_.size());
  path[base] = {NcclPathType::loc, kLocBw, 0};
  std::vector<std::size_t> list = {base};
  while (!list.empty()) {
    std::vector<std::size_t> next;
    for (std::size_t node : list) {
      for (const GLink& link : nodes_[node].links) {
        const std::size_t rem = link.to;
        const double bw = std::min(path[node].bw, link.bw);
        // "Differentiate between one and multiple PCI switches"; "Consider a path going
        // through the CPU as PATH_PHB" (paths.cc).
        int type = link.type;
        if (nodes_[node].type == GType::pci && nodes_[rem].type == GType::pci) {
          type = static_cast<int>(NcclPathType::pxb);
        }
        if (link.type == kLinkPci &&
            (nodes_[node].type == GType::cpu || nodes_[rem].type == GType::cpu)) {
          type = static_cast<int>(NcclPathType::phb);
        }
        const auto t = static_cast<NcclPathType>(std::max(static_cast<int>(path[node].type), type));
        Path& r = path[rem];
        if (t < r.type || (t == r.type && r.bw < bw) ||
            (t == r.type && r.bw == bw && r.count > path[node].count + 1)) {
          r = {t, bw, path[node].count + 1};
          if (std::find(next.begin(), next.end(), rem) == next.end()) next.push_back(rem);
        }
      }
    }
    list = std::move(next);
  }
  return path;
}

NcclPairPath pair_path(const Graph& g, const std::vector<Graph::Path>& to_a, std::size_t a,
                       std::size_t b) {
  NcclPairPath p;
  p.a = g.nodes()[a].tree;
  p.b = g.nodes()[b].tree;
  p.type = to_a[b].type;
  p.crosses_cpus = p.type == NcclPathType::sys;
  p.bw = to_a[b].bw;
  return p;
}

}  // namespace

std::string_view to_string(NcclPathType type) {
  static constexpr std::string_view kNames[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                                "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};
  return kNames[static_cast<std::size_t>(type)];
}

double nccl_link_bw(std::string_view link_speed, std::optional<unsigned> link_width) {
  // kvDictPciGen (topo.cc): x100 Mbps per lane; kvConvertToInt matches a prefix of the value.
  static constexpr std::pair<std::string_view, int> kGen[] = {
      {"2.5 GT/s", 15},        {"5 GT/s", 30},         {"8 GT/s", 60},
      {"16 GT/s", 120},        {"32 GT/s", 240},       {"2.5 GT/s PCIe", 15},
      {"5.0 GT/s PCIe", 30},   {"8.0 GT/s PCIe", 60},  {"16.0 GT/s PCIe", 120},
      {"32.0 GT/s PCIe", 240}, {"64.0 GT/s PCIe", 480}};
  int speed = 60;  // "Default fallback"
  for (const auto& [key, value] : kGen) {
    if (link_speed.starts_with(key)) {
      speed = value;
      break;
    }
  }
  const unsigned width = link_width.value_or(0) == 0 ? 16 : *link_width;
  return width * speed / 80.0;
}

const NcclPairPath* NcclPaths::find(std::size_t a, std::size_t b) const {
  for (const auto* list : {&gpu_nic, &gpu_gpu}) {
    for (const NcclPairPath& p : *list) {
      if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return &p;
    }
  }
  return nullptr;
}

NcclPaths nccl_paths(const NcclTopoTree& tree) {
  const Graph g(tree);
  std::vector<std::size_t> gpus;
  std::vector<std::size_t> nics;
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    if (g.nodes()[i].type == GType::gpu) gpus.push_back(i);
    if (g.nodes()[i].type == GType::nic) nics.push_back(i);
  }
  NcclPaths out;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const std::vector<Graph::Path> to_gpu = g.paths_to(gpus[gi]);
    for (std::size_t n : nics) out.gpu_nic.push_back(pair_path(g, to_gpu, gpus[gi], n));
    for (std::size_t gj = gi + 1; gj < gpus.size(); ++gj) {
      out.gpu_gpu.push_back(pair_path(g, to_gpu, gpus[gi], gpus[gj]));
    }
    // ncclTopoGetLocal: the highest bandwidth, then the lowest path type. A path across CPUs
    // ranks below every other: its bandwidth is capped by the inter-CPU link's, 6 to 40 GB/s
    // by CPU model (ncclTopoGetInterCpuBw), which these inputs do not give.
    double best_bw = -1;
    NcclPathType best_type = NcclPathType::dis;
    std::vector<std::size_t>& local = out.local_nics[g.nodes()[gpus[gi]].tree];
    for (std::size_t n : nics) {
      const Graph::Path& p = to_gpu[n];
      const double bw = p.type == NcclPathType::sys ? 0 : p.bw;
      if (bw > best_bw || (bw == best_bw && p.type < best_type)) {
        best_bw = bw;
        best_type = p.type;
        local.clear();
      }
      if (bw == best_bw && p.type == best_type) local.push_back(g.nodes()[n].tree);
    }
  }
  return out;
}

}  // namespace vmxkit::guest
