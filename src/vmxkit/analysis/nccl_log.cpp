// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/nccl_log.h"

#include <charconv>

namespace vmxkit::guest {
namespace {

using Version = std::array<unsigned, 3>;

bool at_least(const Version& v, unsigned major, unsigned minor, unsigned patch) {
  return v >= Version{major, minor, patch};
}

// topoPathTypeStr by NCCL tag (paths.cc; the first tag of each layout):
// v2.6.4-1  LOC NVL PIX PXB PHB SYS NET
// v2.8.3-1  LOC NVL NVB PIX PXB PHB SYS
// v2.12.7-1 LOC NVL NVB PIX PXB PXN PHB SYS DIS (NET before DIS from v2.21.5-1)
// v2.26.2-1 LOC NVL NVB C2C PIX PXB PXN PHB SYS NET DIS
// v2.27.3-1 LOC NVL NVB C2C PIX PXB PXN P2C PHB SYS NET DIS
// v2.27.5-1 LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS NET DIS
std::vector<NcclPathType> path_types(const Version& v) {
  using T = NcclPathType;
  if (at_least(v, 2, 27, 5)) {
    return {T::loc, T::nvl, T::nvb, T::c2c, T::pix, T::pxb, T::p2c, T::pxn, T::phb, T::sys, T::net};
  }
  if (at_least(v, 2, 27, 0)) {
    return {T::loc, T::nvl, T::nvb, T::c2c, T::pix, T::pxb, T::pxn, T::p2c, T::phb, T::sys, T::net};
  }
  if (at_least(v, 2, 26, 0)) {
    return {T::loc, T::nvl, T::nvb, T::c2c, T::pix, T::pxb, T::pxn, T::phb, T::sys, T::net};
  }
  if (at_least(v, 2, 12, 7))
    return {T::loc, T::nvl, T::nvb, T::pix, T::pxb, T::pxn, T::phb, T::sys};
  if (at_least(v, 2, 8, 3)) return {T::loc, T::nvl, T::nvb, T::pix, T::pxb, T::phb, T::sys};
  if (at_least(v, 2, 6, 0)) return {T::loc, T::nvl, T::pix, T::pxb, T::phb, T::sys, T::net};
  return {};  // 2.4 and 2.5 numbered the old levels (LOC, PIX, PXB, PHB, SYS) another way
}

std::optional<std::uint64_t> hex_value(std::string_view s) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<unsigned> decimal_value(std::string_view s) {
  unsigned v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// The HCA of a decision as its net device index: `%d` before 2.21, the netId in hex (its local
// id for one node) from 2.21, `S-L` in 2.29.
std::optional<unsigned> hca_index(std::string_view hca, const std::optional<Version>& v) {
  if (const auto dash = hca.find('-'); dash != std::string_view::npos) {
    return decimal_value(hca.substr(dash + 1));
  }
  if (v && !at_least(*v, 2, 21, 0)) return decimal_value(hca);
  const auto h = hex_value(hca);
  if (!h || *h > 0xffff) return std::nullopt;
  return static_cast<unsigned>(*h);
}

// The bus id the Init lines of one host give a rank (the first line that names it), or empty.
// A log of several nodes has a rank 0 on one host only; each host has its own bus ids.
std::string bus_of_rank(const NcclLog& log, std::string_view rank, const std::string& host) {
  const auto r = decimal_value(rank);
  if (!r) return {};
  for (const NcclRankLine& l : log.ranks) {
    if (l.rank == static_cast<int>(*r) && l.host == host) return l.bus_id;
  }
  return {};
}

std::optional<std::size_t> decision_gpu(const Guest& g, const NcclLog& log, const NcclGdrLine& l,
                                        const std::optional<Version>& v) {
  // The GPU is a bus id before 2.24 (`GPU %lx`), a rank from 2.24 (`GPU %d`, `(rank %d)`).
  const bool rank = l.gpu_is_rank || (v && at_least(*v, 2, 24, 0));
  if (!rank && (v || l.gpu.size() >= 4)) return nccl_log_bus_device(g, l.gpu);
  if (!rank) return std::nullopt;
  const std::string bus = bus_of_rank(log, l.gpu, l.host);
  return bus.empty() ? std::nullopt : nccl_log_bus_device(g, bus);
}

}  // namespace

std::optional<std::array<unsigned, 3>> nccl_log_version(const NcclLog& log) {
  if (!log.version) return std::nullopt;
  std::string_view s = log.version->value;
  s = s.substr(0, s.find('+'));
  Version v{};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto dot = s.find('.');
    const auto n = decimal_value(s.substr(0, dot));
    if (!n) return i >= 2 ? std::optional<Version>(v) : std::nullopt;
    v[i] = *n;
    if (dot == std::string_view::npos) break;
    s.remove_prefix(dot + 1);
  }
  return v;
}

std::optional<NcclPathType> nccl_log_path_type(const std::optional<std::array<unsigned, 3>>& v,
                                               int number) {
  if (!v || number < 0) return std::nullopt;
  const std::vector<NcclPathType> types = path_types(*v);
  if (static_cast<std::size_t>(number) >= types.size()) return std::nullopt;
  return types[static_cast<std::size_t>(number)];
}

std::optional<std::size_t> nccl_log_bus_device(const Guest& g, std::string_view hex) {
  const auto id = hex_value(hex);
  if (!id) return std::nullopt;
  Bdf b;
  b.domain = static_cast<std::uint16_t>(*id >> 20);
  b.bus = static_cast<std::uint8_t>((*id >> 12) & 0xff);
  b.device = static_cast<std::uint8_t>((*id >> 4) & 0xff);
  b.function = static_cast<std::uint8_t>(*id & 0xf);
  return g.pci().index_of(b);
}

std::vector<NcclGdrDecision> nccl_gdr_decisions(const Guest& g) {
  std::vector<NcclGdrDecision> out;
  if (!g.nccl_log()) return out;
  const NcclLog& log = *g.nccl_log();
  const auto v = nccl_log_version(log);
  const auto over = log.env.find("NCCL_NET_GDR_LEVEL");
  for (const NcclGdrLine& l : log.gdr) {
    bool seen = false;
    for (const NcclGdrDecision& d : out) {
      seen |= d.line->gpu == l.gpu && d.line->hca == l.hca && d.line->host == l.host;
    }
    if (seen) continue;
    NcclGdrDecision d;
    d.line = &l;
    d.distance = nccl_log_path_type(v, l.distance);
    d.level = nccl_log_path_type(v, l.level);
    d.gpu_index = decision_gpu(g, log, l, v);
    d.hca_index = hca_index(l.hca, v);
    if (const auto i = d.hca_index) {
      for (const NcclNetDevice& n : log.ib_devices) {
        if (n.index == *i) d.nic_name = n.name;
      }
    }
    if (over != log.env.end()) d.level_override = &over->second;
    out.push_back(std::move(d));
  }
  return out;
}

NcclNetUse nccl_net_use(const NcclLog& log) {
  NcclNetUse u;
  for (const NcclChannelLine& c : log.channels) {
    if (c.net.empty()) {
      ++u.other;
    } else if (c.net == "Socket") {
      u.socket.push_back(&c);
    } else {
      (c.gdr ? u.with_gdr : u.without_gdr).push_back(&c);
    }
  }
  return u;
}

std::optional<std::size_t> nccl_channel_gpu(const Guest& g, const NcclChannelLine& c) {
  // "0[3b000]" or "0[0]": the rank, and the bus id (before 2.18.3) or the nvmlDev (since).
  const std::string& end = c.direction == "receive" ? c.to : c.from;
  const auto open = end.find('[');
  if (open == std::string::npos || end.back() != ']' || !g.nccl_log()) return std::nullopt;
  const std::string_view rank = std::string_view(end).substr(0, open);
  const std::string_view inner = std::string_view(end).substr(open + 1, end.size() - open - 2);
  const std::string bus = bus_of_rank(*g.nccl_log(), rank, c.host);
  if (!bus.empty()) return nccl_log_bus_device(g, bus);
  const auto v = nccl_log_version(*g.nccl_log());
  if (v && !at_least(*v, 2, 18, 3)) return nccl_log_bus_device(g, inner);
  return std::nullopt;
}

pci::PathClass class_of_nccl(NcclPathType t) {
  switch (t) {
    case NcclPathType::pix:
      return pci::PathClass::pix;
    case NcclPathType::pxb:
      return pci::PathClass::pxb;
    case NcclPathType::phb:
      return pci::PathClass::phb;
    case NcclPathType::sys:
      return pci::PathClass::sys;
    default:
      return pci::PathClass::unknown;
  }
}

std::vector<NcclPathDiff> nccl_dump_path_diffs(const Guest& g, const NcclTopoInput& dump,
                                               const std::vector<NcclPair>& view) {
  std::vector<NcclPathDiff> out;
  const NcclPaths paths = nccl_paths(dump.tree);
  for (const NcclPair& p : view) {
    if (!p.gpu_index || !p.nic_index || p.cls == pci::PathClass::unknown) continue;
    const pci::Device& gpu = g.pci().at(*p.gpu_index);
    const pci::Device& nic = g.pci().at(*p.nic_index);
    const auto a = dump.tree.find(nccl_busid(gpu.bdf, NcclNodeKind::gpu));
    const auto b = dump.tree.find(nccl_busid(nic.bdf, nccl_kind(nic)));
    if (!a || !b) continue;
    const NcclPairPath* path = paths.find(*a, *b);
    if (path == nullptr) continue;
    const pci::PathClass vm = p.cls == pci::PathClass::node ? pci::PathClass::phb : p.cls;
    if (class_of_nccl(path->type) == vm) continue;
    out.push_back(NcclPathDiff{*p.gpu_index, *p.nic_index, path->type, vm, true,
                               pci::Origin{dump.path, dump.tree.nodes[*b].line}});
  }
  return out;
}

namespace {

// Whether a decision's HCA is the NIC of a pair: by name, else by its index among the guest's
// RDMA NICs in PCI order.
bool same_nic(const Guest& g, const NcclGdrDecision& d, const NcclPair& p) {
  if (!d.nic_name.empty() && !p.nic_name.empty()) return d.nic_name == p.nic_name;
  if (!d.hca_index || !p.nic_index) return false;
  unsigned ordinal = 0;
  for (std::size_t i = 0; i < *p.nic_index; ++i) ordinal += is_guest_rdma_nic(g.pci().at(i));
  return ordinal == *d.hca_index;
}

}  // namespace

std::vector<NcclPathDiff> nccl_log_path_diffs(const Guest& g,
                                              const std::vector<NcclGdrDecision>& decisions,
                                              const std::vector<NcclPair>& view) {
  std::vector<NcclPathDiff> out;
  for (const NcclGdrDecision& d : decisions) {
    if (!d.gpu_index || !d.distance) continue;
    const pci::PathClass nccl = class_of_nccl(*d.distance);
    if (nccl == pci::PathClass::unknown) continue;  // NVLink, PXN, C2C: not a PCI class
    for (const NcclPair& p : view) {
      if (p.gpu_index != d.gpu_index || !p.nic_index || !same_nic(g, d, p)) continue;
      const pci::PathClass vm = p.cls == pci::PathClass::node ? pci::PathClass::phb : p.cls;
      if (vm == pci::PathClass::unknown || vm == nccl) continue;
      out.push_back(
          NcclPathDiff{*p.gpu_index, *p.nic_index, *d.distance, vm, false, d.line->where});
    }
  }
  return out;
}

}  // namespace vmxkit::guest
