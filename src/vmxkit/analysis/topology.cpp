// SPDX-License-Identifier: Apache-2.0
// Path classes follow nvidia-smi's legend; the rules are in the topology reference §2 and §7.
#include "vmxkit/analysis/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace vmxkit::pci {
namespace {

constexpr std::uint64_t kSmallBar1 = std::uint64_t{256} << 20;

std::vector<std::size_t> chain(const Host& host, std::size_t i) {
  std::vector<std::size_t> up;
  for (auto p = host.at(i).parent; p; p = host.at(*p).parent) up.push_back(*p);
  return up;
}

bool counts_as_switch(const Device& d) {
  return d.port_type == PortType::upstream_port || d.port_type == PortType::pcie_to_pci_bridge;
}

std::optional<std::uint64_t> bar1_size(const Device& gpu) {
  if (const Bar* b = gpu.bar(1); b && b->size) return b->size;
  if (gpu.model && gpu.model->bar1_bytes) return gpu.model->bar1_bytes;
  return std::nullopt;
}

// The NIC whose ATS matters: itself, or its PF.
std::size_t ats_owner(const Host& host, std::size_t nic) {
  const Device& d = host.at(nic);
  if (d.ats_present || !d.physfn) return nic;
  return *d.physfn;
}

// The devices that start the pair's peer transfers: the NIC for a GPU and a NIC (GPUDirect RDMA
// reads and writes GPU memory from the NIC), both GPUs for a GPU pair.
std::vector<std::size_t> initiators(const Host& host, std::size_t a, std::size_t b) {
  const bool a_gpu = host.at(a).role == Role::gpu;
  const bool b_gpu = host.at(b).role == Role::gpu;
  if (a_gpu && b_gpu) return {a, b};
  if (a_gpu) return {ats_owner(host, b)};
  if (b_gpu) return {ats_owner(host, a)};
  return {ats_owner(host, a), ats_owner(host, b)};
}

// ACS Direct Translated P2P (DirectTrans+) on every redirecting bridge, and ATS on every
// initiator: translated requests then go peer to peer past the redirect. NVIDIA runs GPUDirect
// RDMA in VMs so (ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+, ATS on the
// ConnectX; docs/research-notes.md).
bool redirect_bypassed(const Host& host, const std::vector<std::size_t>& redirect,
                       const std::vector<std::size_t>& from) {
  for (const std::size_t br : redirect) {
    if ((host.at(br).acs->ctl & Acs::kDirectTrans) == 0) return false;
  }
  return std::all_of(from.begin(), from.end(),
                     [&](std::size_t d) { return host.at(d).ats_enabled == true; });
}

// Adds a reason of `kind` to the verdict, worsened by its effect; the caller sets its facts.
Reason& add(PairVerdict& v, ReasonKind kind, Verdict effect, Traffic traffic) {
  v.verdict = std::max(v.verdict, effect);
  Reason& r = v.reasons.emplace_back();
  r.kind = kind;
  r.effect = effect;
  r.traffic = traffic;
  return r;
}

}  // namespace

std::string_view to_string(PathClass cls) {
  switch (cls) {
    case PathClass::self:
      return "X";
    case PathClass::pix:
      return "PIX";
    case PathClass::pxb:
      return "PXB";
    case PathClass::phb:
      return "PHB";
    case PathClass::node:
      return "NODE";
    case PathClass::sys:
      return "SYS";
    case PathClass::unknown:
      return "?";
  }
  return "?";
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok:
      return "ok";
    case Verdict::degraded:
      return "degraded";
    case Verdict::unsupported:
      return "unsupported";
  }
  return "unsupported";
}

std::string_view to_string(ReasonKind kind) {
  switch (kind) {
    case ReasonKind::path:
      return "path";
    case ReasonKind::path_unknown:
      return "path-unknown";
    case ReasonKind::acs_redirect:
      return "acs-redirect";
    case ReasonKind::acs_direct_translated:
      return "acs-direct-translated";
    case ReasonKind::gpu_no_gdr:
      return "gpu-no-gpudirect";
    case ReasonKind::nic_no_gdr:
      return "nic-no-gpudirect";
    case ReasonKind::gdr_unknown:
      return "gpudirect-unknown";
    case ReasonKind::small_bar1:
      return "small-bar1";
    case ReasonKind::iommu_translating:
      return "iommu-translating";
    case ReasonKind::vf:
      return "vf";
    case ReasonKind::ats_disabled:
      return "ats-disabled";
    case ReasonKind::nvlink:
      return "nvlink";
  }
  return "path";
}

Path classify(const Host& host, std::size_t a, std::size_t b) {
  Path path;
  const Device& da = host.at(a);
  const Device& db = host.at(b);
  if (a == b) {
    path.cls = PathClass::self;
    return path;
  }
  const std::vector<std::size_t> up_a = chain(host, a);
  const std::vector<std::size_t> up_b = chain(host, b);
  if (da.bdf.same_device(db.bdf)) {
    path.cls = PathClass::pix;
    path.kind = PathKind::one_device;
    return path;
  }
  // Lowest common bridge.
  std::optional<std::size_t> pos_a;
  std::optional<std::size_t> pos_b;
  for (std::size_t j = 0; j < up_b.size() && !pos_a; ++j) {
    for (std::size_t i = 0; i < up_a.size(); ++i) {
      if (up_a[i] == up_b[j]) {
        pos_a = i;
        pos_b = j;
        break;
      }
    }
  }
  if (pos_a) {
    path.common = up_a[*pos_a];
    for (std::size_t i = 0; i <= *pos_a; ++i) path.bridges.push_back(up_a[i]);
    for (std::size_t j = *pos_b; j-- > 0;) path.bridges.push_back(up_b[j]);
    for (const std::size_t br : path.bridges) {
      if (counts_as_switch(host.at(br))) ++path.switches;
    }
    path.cls = path.switches <= 1 ? PathClass::pix : PathClass::pxb;
    path.kind = PathKind::below_bridge;
  } else {
    path.bridges = up_a;
    path.bridges.insert(path.bridges.end(), up_b.rbegin(), up_b.rend());
    if (!da.root || !db.root) {
      path.cls = PathClass::unknown;
      path.kind = PathKind::unplaced;
      path.device = !da.root ? a : b;
    } else {
      path.roots = {*da.root, *db.root};
      path.kind = *da.root == *db.root ? PathKind::host_bridge : PathKind::host_bridges;
    }
    if (path.kind == PathKind::host_bridge) {
      path.cls = PathClass::phb;
    } else if (path.kind == PathKind::host_bridges) {
      const auto na = da.numa_node ? da.numa_node : host.roots()[*da.root].numa_node;
      const auto nb = db.numa_node ? db.numa_node : host.roots()[*db.root].numa_node;
      path.numa = {na, nb};
      if (na && nb) {
        path.cls = *na == *nb ? PathClass::node : PathClass::sys;
      } else {
        path.cls = PathClass::unknown;
        path.device = !na ? a : b;
      }
    }
  }
  for (const std::size_t br : path.bridges) {
    if (path.common && br == *path.common) continue;
    const Device& d = host.at(br);
    if (d.acs && d.acs->redirects_p2p()) path.acs_redirect.push_back(br);
  }
  return path;
}

PathClass path_class(const Host& host, std::size_t a, std::size_t b) {
  if (a == b) return PathClass::self;
  const Device& da = host.at(a);
  const Device& db = host.at(b);
  if (da.bdf.same_device(db.bdf)) return PathClass::pix;
  // The lowest common bridge of the chains above a and above b, as classify() finds it,
  // counting the switches on the way (the common bridge once).
  if (da.parent && db.parent) {
    std::size_t x = *da.parent;
    std::size_t y = *db.parent;
    unsigned dx = da.depth - 1;  // the depth of x: a's depth counts the bridges above a
    unsigned dy = db.depth - 1;
    unsigned switches = 0;
    auto up = [&](std::size_t& node, unsigned& depth) {
      const Device& d = host.at(node);
      if (!d.parent) return false;
      if (counts_as_switch(d)) ++switches;
      node = *d.parent;
      --depth;
      return true;
    };
    bool ok = true;
    while (ok && dx > dy) ok = up(x, dx);
    while (ok && dy > dx) ok = up(y, dy);
    while (ok && x != y) ok = up(x, dx) && up(y, dy);
    if (ok && x == y) {
      if (counts_as_switch(host.at(x))) ++switches;
      return switches <= 1 ? PathClass::pix : PathClass::pxb;
    }
  }
  if (!da.root || !db.root) return PathClass::unknown;
  if (*da.root == *db.root) return PathClass::phb;
  const auto na = da.numa_node ? da.numa_node : host.roots()[*da.root].numa_node;
  const auto nb = db.numa_node ? db.numa_node : host.roots()[*db.root].numa_node;
  if (!na || !nb) return PathClass::unknown;
  return *na == *nb ? PathClass::node : PathClass::sys;
}

namespace {

// NCCL's generation of a Broadcom PEX switch from its upstream port's ids (src/graph/topo.cc,
// getBcmGen, on vendor << 48 | device << 32 | subsystem vendor << 16 | subsystem device under
// the mask 0xfffffffffffff000): 4 for a PEX880xx Gen 4 (1000:c010, subsystem 1000:axxx, either
// level), 5 for a PEX890xx Gen 5 (1000:c030) with subsystem 1000:0xxx at `level` 0 (the top of
// the switch) or 1000:1xxx at level 1 (its second level); else 0.
int bcm_gen(const Device& d, int level) {
  if (d.vendor_id != 0x1000 || d.subsys_vendor_id != 0x1000 || !d.device_id ||
      !d.subsys_device_id) {
    return 0;
  }
  const unsigned high = *d.subsys_device_id & 0xf000u;
  if (*d.device_id == 0xc010 && high == 0xa000) return 4;
  if (*d.device_id == 0xc030 && high == static_cast<unsigned>(level) * 0x1000u) return 5;
  return 0;
}

// Whether NCCL sees this PXB path as PIX: ncclTopoFlattenBcmSwitches merges the second-level
// switches of a Broadcom PEX switch into its top ("BCM Gen4 Switches present themselves as a
// two-level hierarchical switch even though they're supposed to sustain full BW across all
// ports"), so a path whose every other switch is such a second level of the switch where it
// turns crosses one switch for NCCL.
bool bcm_flattened(const Host& host, const Path& path) {
  if (path.cls != PathClass::pxb || !path.common) return false;
  std::size_t top = *path.common;  // the switch where the path turns: its upstream port
  if (host.at(top).port_type == PortType::downstream_port && host.at(top).parent) {
    top = *host.at(top).parent;
  }
  if (host.at(top).port_type != PortType::upstream_port) return false;
  const int gen = bcm_gen(host.at(top), 0);
  if (gen == 0) return false;
  for (const std::size_t br : path.bridges) {
    const Device& b = host.at(br);
    if (br == top || b.port_type != PortType::upstream_port) continue;
    // A second level: its upstream port hangs off a downstream port of `top`.
    const std::optional<std::size_t> down = b.parent;
    if (bcm_gen(b, 1) != gen || !down || host.at(*down).parent != top) return false;
  }
  return true;
}

// The path's reason by its class, for GPUDirect RDMA or GPU P2P at NCCL's default level (PXB).
void judge_path(const Host& host, PairVerdict& v, Traffic traffic) {
  switch (v.path.cls) {
    case PathClass::self:
    case PathClass::pix:
    case PathClass::pxb:
      add(v, ReasonKind::path, Verdict::ok, traffic).bcm_flattened = bcm_flattened(host, v.path);
      break;
    case PathClass::phb:
    case PathClass::node:
      add(v, ReasonKind::path, Verdict::degraded, traffic);
      break;
    case PathClass::sys:
      add(v, ReasonKind::path, Verdict::unsupported, traffic);
      break;
    case PathClass::unknown:
      add(v, ReasonKind::path_unknown, Verdict::degraded, traffic);
      break;
  }
}

// GPU P2P through the CPU where NCCL uses it anyway: between at most 2 GPUs on AMD CPUs
// (NCCL src/graph/paths.cc, ncclTopoCheckP2p: p2pLevel = PATH_SYS when the CPU is x86 AMD and
// the node has at most 2 GPUs; since v2.23.4-1, commit 68b54236, which made PXB the default
// for every CPU; before it AMD CPUs had SYS whatever the GPU count; from v2.30.3-1 the count is
// of physical devices, nodes[DEV], not of ranks).
void judge_amd_p2p(PairVerdict& v) {
  add(v, ReasonKind::path, Verdict::degraded, Traffic::gpu_p2p).amd_two_gpus = AmdTwoGpus::used;
}

}  // namespace

bool acs_redirect_bypassed(const Host& host, std::size_t a, std::size_t b, const Path& path) {
  return !path.acs_redirect.empty() &&
         redirect_bypassed(host, path.acs_redirect, initiators(host, a, b));
}

namespace {

// NCCL's P2P level (paths.cc, ncclTopoCheckP2p) for a GPU pair through the CPU: PXB, or SYS
// between at most 2 GPUs on AMD.
bool nccl_p2p_to_sys(const Host& host, const PairVerdict& v, bool gpu_gpu,
                     const AnalysisOptions& options) {
  return gpu_gpu && v.path.cls >= PathClass::phb && v.path.cls != PathClass::unknown &&
         cpu_vendor(host) == CpuVendor::amd && [&] {
           if (options.nccl_gpus) return *options.nccl_gpus <= 2;
           return std::count_if(host.devices().begin(), host.devices().end(),
                                [](const Device& d) { return d.role == Role::gpu; }) <= 2;
         }();
}

// The path's reason: its class, as NCCL would use it.
void judge_route(const Host& host, PairVerdict& v, bool gpu_gpu, const AnalysisOptions& options) {
  if (nccl_p2p_to_sys(host, v, gpu_gpu, options)) {
    judge_amd_p2p(v);
    return;
  }
  judge_path(host, v, gpu_gpu ? Traffic::gpu_p2p : Traffic::gpudirect_rdma);
  // On AMD, the same pair in a VM of at most 2 GPUs is NCCL's P2P all the same (lint judges
  // the VM's count): say so, so that topo and lint do not seem to disagree.
  if (gpu_gpu && v.path.cls >= PathClass::phb && v.path.cls != PathClass::unknown &&
      cpu_vendor(host) == CpuVendor::amd && !v.reasons.empty()) {
    v.reasons.back().amd_two_gpus = AmdTwoGpus::own_vm;
  }
}

// ACS redirecting P2P on the path's bridges: fine where DirectTrans+ and ATS let translated
// requests past it (the initiators are named), else degraded.
void judge_acs(const Host& host, PairVerdict& v, Traffic traffic) {
  if (v.path.acs_redirect.empty()) return;
  std::vector<std::size_t> from = initiators(host, v.a, v.b);
  if (redirect_bypassed(host, v.path.acs_redirect, from)) {
    add(v, ReasonKind::acs_direct_translated, Verdict::ok, traffic).initiators = std::move(from);
  } else {
    add(v, ReasonKind::acs_redirect, Verdict::degraded, traffic);
  }
}

// A GPU of the pair: GPUDirect support of its model, and its BAR1.
void judge_gpu(const Host& host, PairVerdict& v, std::size_t gpu, Traffic traffic) {
  const Device& d = host.at(gpu);
  if (d.model && d.model->gdr == GdrSupport::no) {
    add(v, ReasonKind::gpu_no_gdr, Verdict::unsupported, traffic).subject = gpu;
  } else if (!d.model) {
    add(v, ReasonKind::gdr_unknown, Verdict::ok, traffic).subject = gpu;
  }
  if (const auto bar1 = bar1_size(d); bar1 && *bar1 <= kSmallBar1) {
    Reason& r = add(v, ReasonKind::small_bar1, Verdict::degraded, traffic);
    r.subject = gpu;
    r.bar1_bytes = *bar1;
  }
}

// A NIC of the pair: GPUDirect RDMA support of its model, a VF's PF, ATS.
void judge_nic(const Host& host, PairVerdict& v, std::size_t nic, Traffic traffic) {
  const Device& d = host.at(nic);
  if (d.model && d.model->gdr == GdrSupport::no) {
    add(v, ReasonKind::nic_no_gdr, Verdict::unsupported, traffic).subject = nic;
  } else if (d.role == Role::nic || !d.model || d.model->gdr == GdrSupport::unknown) {
    add(v, ReasonKind::gdr_unknown, d.role == Role::nic ? Verdict::unsupported : Verdict::ok,
        traffic)
        .subject = nic;
  }
  if (d.role == Role::nic_vf) {
    Reason& r = add(v, ReasonKind::vf, Verdict::ok, traffic);
    r.subject = nic;
    r.pf = d.physfn;
  }
  const std::size_t owner = ats_owner(host, nic);
  if (host.at(owner).ats_present && host.at(owner).ats_enabled == false) {
    add(v, ReasonKind::ats_disabled, Verdict::degraded, traffic).subject = owner;
  }
}

}  // namespace

// A GPU pair joined by NVLink in `nvidia-smi topo -m`: NCCL's paths prefer the lower path type
// (src/graph/paths.cc, ncclTopoSetPaths: "Update if better path type"), and PATH_NVL (1) is
// below every PCIe type (PATH_PIX 4 .. PATH_SYS 9, src/graph/topo.h), so the pair's P2P goes
// over NVLink; ncclTopoCheckP2p allows it at any p2pLevel (`path->type <= p2pLevel`, default
// PATH_PXB). NCCL v2.30.7. The PCIe path, its ACS and the BAR1 size do not limit it.
void judge_nvlink(PairVerdict& v, unsigned links) {
  v.nvlinks = links;
  add(v, ReasonKind::nvlink, Verdict::ok, Traffic::gpu_p2p).nvlinks = links;
}

PairVerdict judge_pair(const Host& host, std::size_t a, std::size_t b,
                       const AnalysisOptions& options) {
  PairVerdict v;
  v.a = a;
  v.b = b;
  v.path = classify(host, a, b);
  const bool gpu_gpu = host.at(a).role == Role::gpu && host.at(b).role == Role::gpu;
  if (gpu_gpu) {
    if (const auto links = host.nvlinks(a, b)) {
      judge_nvlink(v, *links);
      return v;
    }
  }
  const Traffic traffic = gpu_gpu ? Traffic::gpu_p2p : Traffic::gpudirect_rdma;
  judge_route(host, v, gpu_gpu, options);
  judge_acs(host, v, traffic);
  for (const std::size_t d : {a, b}) {
    if (host.at(d).role == Role::gpu) {
      judge_gpu(host, v, d, traffic);
    } else {
      judge_nic(host, v, d, traffic);
    }
  }
  if (options.iommu_translating == true) {
    add(v, ReasonKind::iommu_translating, Verdict::degraded, traffic);
  }
  return v;
}

std::string Topology::cell_text(std::size_t row, std::size_t col) const {
  if (!nvlinks.empty() && nvlinks[row * size() + col] != 0) {
    return fmt::format("NV{}", nvlinks[row * size() + col]);
  }
  return std::string(to_string(matrix.at(row, col)));
}

std::string Topology::label(std::size_t i) const {
  return i < gpus.size() ? fmt::format("GPU{}", i) : fmt::format("NIC{}", i - gpus.size());
}

// Each GPU's nearest peers of one kind (the GPUs, or the NICs) without classifying every pair.
//
// The classes from a device `a` fall in levels, each wholly closer than the next: functions of
// its own device (PIX); the devices below its topmost bridge T, which meet it at a common bridge
// (PIX or PXB, classified one by one); the rest of its root bus (PHB); other root buses on its
// NUMA node (NODE), on other NUMA nodes (SYS); and everything else (unknown). A level is looked
// at only while fewer than `k` peers were found, so every level but the subtree below T skips
// fewer than `k` candidates before it takes what it needs: linear in the host for real hosts.
// Outside the anonymous namespace: PeerFinder::Impl, a class with linkage, holds one.
class PeerIndex {
 public:
  // `order` is the preorder (tin) and end (tout) of each device in the forest of parents.
  PeerIndex(const Host& host, const std::vector<std::size_t>& candidates,
            const std::vector<std::size_t>& tin, const std::vector<std::size_t>& tout)
      : host_(host), candidates_(candidates), tin_(tin), tout_(tout) {
    by_root_.resize(host.roots().size());
    for (std::size_t p = 0; p < candidates.size(); ++p) {
      const Device& d = host.at(candidates[p]);
      by_tin_.push_back(p);
      if (d.root) {
        by_root_[*d.root].push_back(p);
        if (const auto n = numa(d)) {
          by_numa_[*n].push_back(p);
          with_numa_.push_back(p);
        }
      }
    }
    std::sort(by_tin_.begin(), by_tin_.end(), [&](std::size_t x, std::size_t y) {
      return tin_[candidates_[x]] < tin_[candidates_[y]];
    });
  }

  // Up to `k` candidates nearest to device `a` (never `a` itself): (class, position), by class,
  // then position (PCI address order).
  std::vector<std::pair<PathClass, std::size_t>> nearest(std::size_t a, std::size_t k) const {
    std::vector<std::pair<PathClass, std::size_t>> out;
    if (k == 0) return out;
    const Device& da = host_.at(a);
    auto same_device = [&](std::size_t p) {
      return host_.at(candidates_[p]).bdf.same_device(da.bdf);
    };
    add_own_functions(a, out);
    // Below a's topmost bridge: the classes differ by the switches on the way.
    std::optional<std::size_t> top;
    for (auto p = da.parent; p; p = host_.at(*p).parent) top = p;
    auto below_top = [&](std::size_t p) { return top && below(p, *top); };
    if (top) add_below(a, *top, out);
    std::sort(out.begin(), out.end());
    auto full = [&] {
      if (out.size() < k) return false;
      out.resize(k);
      return true;
    };
    if (full()) return out;
    // Takes candidate `p` as `cls` unless an earlier level (or `skip`) has it; false once full.
    auto take = [&](std::size_t p, PathClass cls, auto skip) {
      if (out.size() >= k) return false;
      if (candidates_[p] != a && !same_device(p) && !below_top(p) && !skip(p))
        out.emplace_back(cls, p);
      return true;
    };
    const std::optional<int> na = da.root ? numa(da) : std::nullopt;
    auto same_root = [&](std::size_t p) {
      return da.root && host_.at(candidates_[p]).root == da.root;
    };
    if (da.root) {
      const auto none = [](std::size_t) { return false; };
      for (const std::size_t p : by_root_[*da.root]) {
        if (!take(p, PathClass::phb, none)) break;
      }
      if (full()) return out;
      if (na) {
        if (const auto it = by_numa_.find(*na); it != by_numa_.end()) {
          for (const std::size_t p : it->second) {
            if (!take(p, PathClass::node, same_root)) break;
          }
          if (full()) return out;
        }
        const auto same_numa = [&](std::size_t p) {
          return same_root(p) || numa(host_.at(candidates_[p])) == na;
        };
        for (const std::size_t p : with_numa_) {
          if (!take(p, PathClass::sys, same_numa)) break;
        }
        if (full()) return out;
      }
    }
    // The rest: not placed, or no NUMA node known on one side.
    const auto classified = [&](std::size_t p) {
      const Device& d = host_.at(candidates_[p]);
      return same_root(p) || (na && d.root && numa(d));
    };
    for (std::size_t p = 0; p < candidates_.size(); ++p) {
      if (!take(p, PathClass::unknown, classified)) break;
    }
    full();
    return out;
  }

 private:
  // The functions of a's own device (never `a` itself): PIX.
  void add_own_functions(std::size_t a, std::vector<std::pair<PathClass, std::size_t>>& out) const {
    const Device& da = host_.at(a);
    const auto first = std::lower_bound(
        candidates_.begin(), candidates_.end(), Bdf{da.bdf.domain, da.bdf.bus, da.bdf.device, 0},
        [&](std::size_t dev, const Bdf& b) { return host_.at(dev).bdf < b; });
    for (auto it = first; it != candidates_.end() && host_.at(*it).bdf.same_device(da.bdf); ++it) {
      if (*it != a)
        out.emplace_back(PathClass::pix, static_cast<std::size_t>(it - candidates_.begin()));
    }
  }

  // The candidates below bridge `top` but not of a's own device, each classified (PIX or PXB).
  void add_below(std::size_t a, std::size_t top,
                 std::vector<std::pair<PathClass, std::size_t>>& out) const {
    const Device& da = host_.at(a);
    const auto lo =
        std::lower_bound(by_tin_.begin(), by_tin_.end(), tin_[top],
                         [&](std::size_t p, std::size_t t) { return tin_[candidates_[p]] < t; });
    for (auto it = lo; it != by_tin_.end() && tin_[candidates_[*it]] < tout_[top]; ++it) {
      if (candidates_[*it] == a || host_.at(candidates_[*it]).bdf.same_device(da.bdf)) continue;
      out.emplace_back(path_class(host_, a, candidates_[*it]), *it);
    }
  }

  // Whether candidate `p` is in the subtree below device `top`.
  bool below(std::size_t p, std::size_t top) const {
    const std::size_t t = tin_[candidates_[p]];
    return tin_[top] <= t && t < tout_[top];
  }

  // The NUMA node the path classes use: the device's own, else its host bridge's.
  std::optional<int> numa(const Device& d) const {
    if (d.numa_node) return d.numa_node;
    if (d.root) return host_.roots()[*d.root].numa_node;
    return std::nullopt;
  }

  const Host& host_;
  const std::vector<std::size_t>& candidates_;  // device indices, in PCI address order
  const std::vector<std::size_t>& tin_;
  const std::vector<std::size_t>& tout_;
  std::vector<std::size_t> by_tin_;                  // positions by preorder
  std::vector<std::vector<std::size_t>> by_root_;    // positions per root bus
  std::map<int, std::vector<std::size_t>> by_numa_;  // positions per NUMA node (placed only)
  std::vector<std::size_t> with_numa_;               // placed positions with a NUMA node
};

namespace {

// Preorder number and subtree end of every device in the forest of parents (iterative).
void tree_order(const Host& host, std::vector<std::size_t>& tin, std::vector<std::size_t>& tout) {
  const std::size_t n = host.devices().size();
  tin.assign(n, 0);
  tout.assign(n, 0);
  std::size_t clock = 0;
  std::vector<std::pair<std::size_t, std::size_t>> stack;  // device, next child
  for (std::size_t r = 0; r < n; ++r) {
    if (host.at(r).parent) continue;
    stack.emplace_back(r, 0);
    tin[r] = clock++;
    while (!stack.empty()) {
      auto& [dev, next] = stack.back();
      const std::vector<std::size_t>& children = host.at(dev).children;
      if (next < children.size()) {
        const std::size_t c = children[next++];
        tin[c] = clock++;
        stack.emplace_back(c, 0);
      } else {
        tout[dev] = clock;
        stack.pop_back();
      }
    }
  }
}

constexpr std::size_t kNoPosition = static_cast<std::size_t>(-1);

std::size_t bad_reasons(const PairVerdict& v) {
  return static_cast<std::size_t>(std::count_if(
      v.reasons.begin(), v.reasons.end(), [](const Reason& r) { return r.effect != Verdict::ok; }));
}

// The GPUs `nvidia-smi topo -m` joins to GPU `g` by NVLink, as (links, position in t.gpus), most
// links first, then PCI address: NCCL's paths take NVLink (PATH_NVL) before any PCIe type, so
// they are g's nearest GPU peers whatever their PCIe class. `position`: device -> t.gpus index.
std::vector<std::pair<unsigned, std::size_t>> nvlink_peers(const Host& host, std::size_t g,
                                                           const std::vector<std::size_t>& position,
                                                           std::size_t limit) {
  std::vector<std::pair<unsigned, std::size_t>> peers;
  if (!host.smi_topo() || !host.smi_label(g)) return peers;
  for (const std::optional<std::size_t>& dev : host.smi_devices()) {
    if (!dev || *dev == g || position[*dev] == kNoPosition) continue;
    if (const auto links = host.nvlinks(g, *dev); links && *links > 0) {
      peers.emplace_back(*links, position[*dev]);
    }
  }
  std::sort(peers.begin(), peers.end(), [](const auto& x, const auto& y) {
    return std::tie(y.first, x.second) < std::tie(x.first, y.second);
  });
  if (peers.size() > limit) peers.resize(limit);
  return peers;
}

// GPU `g`'s nearest GPU peers, each judged: its NVLink peers, then its nearest by PCIe class.
std::vector<Peer> nearest_gpus(const Host& host, const AnalysisOptions& options, const Topology& t,
                               const PeerIndex& gpu_index, std::size_t g,
                               const std::vector<std::size_t>& position) {
  std::vector<Peer> out;
  for (const auto& [links, j] : nvlink_peers(host, g, position, kNearestPeers)) {
    out.push_back(Peer{j, path_class(host, g, t.gpus[j]), links,
                       judge_pair(host, g, t.gpus[j], options).verdict});
  }
  for (const auto& [cls, pos] : gpu_index.nearest(g, kNearestPeers)) {
    if (out.size() >= kNearestPeers) break;
    const std::size_t j = pos;  // a copy: a lambda cannot capture a structured binding in C++20
    if (std::any_of(out.begin(), out.end(), [&](const Peer& p) { return p.index == j; })) continue;
    out.push_back(Peer{j, cls, std::nullopt, judge_pair(host, g, t.gpus[j], options).verdict});
  }
  return out;
}

// The listing of a large host: each GPU's nearest NICs and GPU peers, each judged, and the best
// of those NICs by the key of the full analysis.
void list_nearest(const Host& host, const AnalysisOptions& options, Topology& t) {
  std::vector<std::size_t> tin;
  std::vector<std::size_t> tout;
  tree_order(host, tin, tout);
  const PeerIndex gpu_index(host, t.gpus, tin, tout);
  const PeerIndex nic_index(host, t.nics, tin, tout);
  t.nearest.resize(t.gpus.size());
  t.best_nic.assign(t.gpus.size(), std::nullopt);
  std::vector<std::size_t> position(host.devices().size(), kNoPosition);
  for (std::size_t i = 0; i < t.gpus.size(); ++i) position[t.gpus[i]] = i;
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const std::size_t g = t.gpus[i];
    NearestPeers& np = t.nearest[i];
    std::optional<std::tuple<Verdict, PathClass, std::size_t, std::size_t>> best;
    for (const auto& [cls, j] : nic_index.nearest(g, kNearestPeers)) {
      const PairVerdict v = judge_pair(host, g, t.nics[j], options);
      np.nics.push_back(Peer{j, cls, std::nullopt, v.verdict});
      const auto key = std::make_tuple(v.verdict, cls, bad_reasons(v), j);
      if (!best || key < *best) best = key;
    }
    if (best) t.best_nic[i] = std::get<3>(*best);
    np.gpus = nearest_gpus(host, options, t, gpu_index, g, position);
  }
}

}  // namespace

struct PeerFinder::Impl {
  Impl(const Host& host, std::vector<std::size_t> devices) : candidates(std::move(devices)) {
    tree_order(host, tin, tout);
    index.emplace(host, candidates, tin, tout);
  }
  std::vector<std::size_t> candidates;
  std::vector<std::size_t> tin;
  std::vector<std::size_t> tout;
  std::optional<PeerIndex> index;  // refers to the three above
};

PeerFinder::PeerFinder(const Host& host, std::vector<std::size_t> candidates)
    : impl_(std::make_unique<Impl>(host, std::move(candidates))) {}

PeerFinder::~PeerFinder() = default;

std::vector<std::pair<PathClass, std::size_t>> PeerFinder::nearest(std::size_t a,
                                                                   std::size_t k) const {
  return impl_->index->nearest(a, k);
}

Topology analyze(const Host& host, const AnalysisOptions& options) {
  Topology t;
  for (std::size_t i = 0; i < host.devices().size(); ++i) {
    const Role r = host.at(i).role;
    if (r == Role::gpu) t.gpus.push_back(i);
    if (r == Role::rdma_nic || r == Role::nic_vf || (options.all_nics && r == Role::nic))
      t.nics.push_back(i);
  }
  const std::size_t n = t.size();
  if (n > kFullMatrixLimit && !options.full_matrix) {
    t.listed = true;
    list_nearest(host, options, t);
    return t;
  }
  t.matrix = PathMatrix(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) {
      const PathClass c = path_class(host, t.device(i), t.device(j));
      t.matrix.set(i, j, c);
      t.matrix.set(j, i, c);
    }
  }
  if (host.smi_topo()) {
    t.nvlinks.assign(n * n, 0);
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      for (std::size_t j = 0; j < t.gpus.size(); ++j) {
        if (i != j) t.nvlinks[i * n + j] = host.nvlinks(t.gpus[i], t.gpus[j]).value_or(0);
      }
    }
  }
  const std::size_t g = t.gpus.size();
  t.pairs.reserve(g * (g - 1) / 2 + g * t.nics.size());
  for (std::size_t i = 0; i < g; ++i) {
    for (std::size_t j = i + 1; j < g; ++j) {
      t.pairs.push_back(judge_pair(host, t.gpus[i], t.gpus[j], options));
    }
  }
  t.best_nic.assign(g, std::nullopt);
  for (std::size_t i = 0; i < g; ++i) {
    std::optional<std::tuple<Verdict, PathClass, std::size_t, std::size_t>> best;
    for (std::size_t j = 0; j < t.nics.size(); ++j) {
      PairVerdict v = judge_pair(host, t.gpus[i], t.nics[j], options);
      const auto key = std::make_tuple(v.verdict, v.path.cls, bad_reasons(v), j);
      if (!best || key < *best) best = key;
      t.pairs.push_back(std::move(v));
    }
    if (best) t.best_nic[i] = std::get<3>(*best);
  }
  return t;
}

}  // namespace vmxkit::pci
