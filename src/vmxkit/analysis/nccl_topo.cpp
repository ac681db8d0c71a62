// SPDX-License-Identifier: Apache-2.0
// nccl-topo: guest GPU/NIC -> host device (pciPassthruN ids, --map), then the tree NCCL's sysfs
// walk builds on the host above them (src/graph/xml.cc ncclTopoGetXmlFromSys in NCCL;
// docs/nccl-topo.md). The tree's helpers are here too; paths are nccl_topo_paths.cpp's.
#include "vmxkit/analysis/nccl_topo.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <set>
#include <utility>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/devices/emulated.h"
#include "vmxkit/model/vm_config.h"

namespace vmxkit::guest {

namespace {

using IdKey = std::pair<std::uint16_t, std::uint16_t>;  // vendor, device

std::string id_text(const IdKey& id) { return fmt::format("{:04x}:{:04x}", id.first, id.second); }

std::string ordinal(std::size_t n) {
  const std::size_t k = n + 1;
  const char* suffix = (k % 100 >= 11 && k % 100 <= 13) ? "th"
                       : k % 10 == 1                    ? "st"
                       : k % 10 == 2                    ? "nd"
                       : k % 10 == 3                    ? "rd"
                                                        : "th";
  return std::to_string(k) + suffix;
}

bool is_candidate_role(const pci::Device& d) {
  return d.role == pci::Role::gpu || d.role == pci::Role::rdma_nic || d.role == pci::Role::nic_vf ||
         d.role == pci::Role::nic;
}

const char* kind_name(const pci::Device& d) { return d.role == pci::Role::gpu ? "GPU" : "NIC"; }

std::optional<IdKey> device_id(const pci::Device& d) {
  if (!d.vendor_id || !d.device_id) return std::nullopt;
  return IdKey{*d.vendor_id, *d.device_id};
}

/// One pciPassthruN entry that names a host device.
struct Entry {
  unsigned index = 0;
  Bdf id_bdf;                           ///< pciPassthruN.id
  std::optional<std::size_t> position;  ///< host device written for it (a VF's PF)
  std::optional<IdKey> id;              ///< what the guest sees
  bool vf = false;
  bool used = false;
};

/// The setting `pciPassthruN.<field>` of an entry, or nullptr.
const Setting* entry_setting(const VmConfig& cfg, const PassthroughDevice& p,
                             std::string_view field) {
  for (std::size_t i : p.settings) {
    const auto key = split_passthrough_key(cfg.settings[i].key);
    if (key && iequals(key->field, field)) return &cfg.settings[i];
  }
  return nullptr;
}

[[noreturn]] void fail_at(const vmx::Document& doc, const Setting* s, const std::string& message) {
  if (s == nullptr) throw Error(doc.path(), message);
  const Location loc = doc.location(s->value_span.begin);
  throw Error(doc.path(), loc.line, loc.column, message);
}

std::optional<Bdf> parse_any_bdf(std::string_view text) {
  if (auto b = parse_vmx_bdf(text)) return b;
  return parse_bdf(text);
}

std::optional<std::uint16_t> parse_id16(const std::optional<std::string>& value) {
  if (!value) return std::nullopt;
  const auto v = parse_int(*value);
  if (!v || *v < 0 || *v > 0xffff) return std::nullopt;
  return static_cast<std::uint16_t>(*v);
}

Bdf entry_address(const vmx::Document& doc, const Setting* s, unsigned index,
                  std::string_view field, const std::string& value) {
  const auto bdf = parse_any_bdf(value);
  if (!bdf) {
    fail_at(doc, s,
            fmt::format("pciPassthru{}.{} \"{}\": expected a host PCI address like "
                        "\"00000:059:00.0\"",
                        index, field, vmx::shorten(value)));
  }
  return *bdf;
}

/// Where an entry's device is written: a VF at its PF (`pfId`, else the PF the host capture
/// links the VF to), anything else at its own address.
std::optional<std::size_t> entry_position(const pci::Host& host, const vmx::Document& doc,
                                          const VmConfig& cfg, const PassthroughDevice& p,
                                          const Entry& e) {
  const auto at_id = host.index_of(e.id_bdf);
  if (!e.vf) return at_id;
  if (p.pf_id) {
    return host.index_of(
        entry_address(doc, entry_setting(cfg, p, "pfId"), p.index, "pfId", *p.pf_id));
  }
  if (at_id && host.at(*at_id).physfn) return host.at(*at_id).physfn;
  return at_id;
}

/// The id the guest sees: the entry's own vendorId/deviceId, else the host device's, else (a VF
/// the host capture does not list) its PF's SR-IOV VF device id.
std::optional<IdKey> entry_id(const pci::Host& host, const PassthroughDevice& p, const Entry& e) {
  const auto vendor = parse_id16(p.vendor_id);
  const auto device = parse_id16(p.device_id);
  if (vendor && device) return IdKey{*vendor, *device};
  if (const auto at_id = host.index_of(e.id_bdf)) return device_id(host.at(*at_id));
  if (e.vf && e.position) {
    const pci::Device& pf = host.at(*e.position);
    if (pf.vendor_id && pf.sriov && pf.sriov->vf_device_id) {
      return IdKey{*pf.vendor_id, *pf.sriov->vf_device_id};
    }
  }
  return std::nullopt;
}

std::vector<Entry> read_entries(const pci::Host& host, const vmx::Document& doc,
                                std::vector<std::string>& notes) {
  const VmConfig cfg = vmx::to_vm_config(doc);
  std::vector<Entry> entries;
  for (const PassthroughDevice& p : cfg.passthrough_devices()) {
    if (!p.present) continue;
    const PassthroughKind kind = p.kind();
    if (kind == PassthroughKind::vgpu || kind == PassthroughKind::dynamic || !p.id) {
      notes.push_back(fmt::format(
          "pciPassthru{} names no host device by id ({}); a guest device it gives needs --map",
          p.index, to_string(kind)));
      continue;
    }
    Entry e;
    e.index = p.index;
    e.id_bdf = entry_address(doc, entry_setting(cfg, p, "id"), p.index, "id", *p.id);
    e.vf = kind == PassthroughKind::sriov_vf;
    e.position = entry_position(host, doc, cfg, p, e);
    e.id = entry_id(host, p, e);
    if (!e.position) {
      notes.push_back(fmt::format("pciPassthru{}.id {}: not in the host capture; not mapped",
                                  p.index, e.id_bdf.to_string()));
      continue;
    }
    if (!e.id) {
      notes.push_back(fmt::format(
          "pciPassthru{}: the vendor:device id of host {} is not known; not mapped by id", p.index,
          e.id_bdf.to_string()));
    }
    entries.push_back(e);
  }
  return entries;
}

[[noreturn]] void fail_guest(const pci::Device& d, const std::string& message) {
  if (d.origins.empty()) throw Error(message);
  throw Error(d.origins.front().path, d.origins.front().line, 1, message);
}

DeviceMapping mapping_from_map(const std::string& m, const pci::Host& host, const pci::Host& gp,
                               const std::vector<std::size_t>& candidates) {
  const auto eq = m.find('=');
  const auto g = eq == std::string::npos ? std::nullopt : parse_bdf(m.substr(0, eq));
  const auto h = eq == std::string::npos ? std::nullopt : parse_bdf(m.substr(eq + 1));
  if (!g || !h) {
    throw Error(
        fmt::format("--map {}: expected GUEST_BDF=HOST_BDF, both like 0000:03:00.0 (lspci -D form)",
                    vmx::shorten(m)));
  }
  const auto gi = gp.index_of(*g);
  if (!gi || std::find(candidates.begin(), candidates.end(), *gi) == candidates.end()) {
    throw Error(
        fmt::format("--map {}: the guest capture has no GPU or NIC at {}", m, g->to_string()));
  }
  const auto hi = host.index_of(*h);
  if (!hi) {
    throw Error(fmt::format("--map {}: the host capture has no device at {}", m, h->to_string()));
  }
  DeviceMapping dm;
  dm.guest_index = *gi;
  dm.guest_bdf = *g;
  dm.host_bdf = *h;
  dm.host_index = *hi;
  dm.from_map = true;
  if (host.at(*hi).physfn) {
    dm.host_index = *host.at(*hi).physfn;
    dm.vf = true;
  }
  return dm;
}

void apply_maps(const NcclTopoOptions& options, const pci::Host& host, const pci::Host& gp,
                const std::vector<std::size_t>& candidates, std::vector<Entry>& entries,
                std::map<std::size_t, DeviceMapping>& by_guest) {
  for (const std::string& m : options.maps) {
    DeviceMapping dm = mapping_from_map(m, host, gp, candidates);
    if (by_guest.count(dm.guest_index)) {
      throw Error(fmt::format("--map {}: {} is mapped twice", m, dm.guest_bdf.to_string()));
    }
    const auto hi = host.index_of(dm.host_bdf);
    for (Entry& e : entries) {
      if (!e.used && (e.id_bdf == dm.host_bdf || (e.position && *e.position == *hi && !e.vf))) {
        e.used = true;
        dm.entry = e.index;
        dm.vf = dm.vf || e.vf;
        if (e.vf && e.position) dm.host_index = *e.position;
        break;
      }
    }
    dm.how = dm.entry ? fmt::format("--map (pciPassthru{})", *dm.entry)
                      : std::string("--map (no pciPassthruN entry has this id)");
    by_guest.emplace(dm.guest_index, dm);
  }
}

[[noreturn]] void fail_no_match(const pci::Device& gd, const IdKey& id, const vmx::Document& vm,
                                const std::vector<Entry*>& pool) {
  std::string have;
  for (const Entry* e : pool) {
    have += fmt::format(" pciPassthru{} ({})", e->index, e->id_bdf.to_string());
  }
  fail_guest(gd, fmt::format("guest {} {} ({}) has no host match: {} has {} pciPassthruN "
                             "entr{} of that id{}{}; give --map {}=HOST_BDF",
                             kind_name(gd), gd.bdf.to_string(), id_text(id), vm.path(), pool.size(),
                             pool.size() == 1 ? "y" : "ies", pool.empty() ? "" : ":", have,
                             gd.bdf.to_string()));
}

/// The guest devices --map did not place, grouped by vendor:device id, in bus order.
std::map<IdKey, std::vector<std::size_t>> unmapped_by_id(
    const pci::Host& gp, const std::vector<std::size_t>& candidates,
    const std::map<std::size_t, DeviceMapping>& by_guest) {
  std::map<IdKey, std::vector<std::size_t>> out;
  for (std::size_t i : candidates) {
    if (by_guest.count(i)) continue;
    const auto id = device_id(gp.at(i));
    if (!id) {
      fail_guest(gp.at(i), fmt::format("guest {} {} has no vendor:device id in the capture; give "
                                       "--map {}=HOST_BDF",
                                       kind_name(gp.at(i)), gp.at(i).bdf.to_string(),
                                       gp.at(i).bdf.to_string()));
    }
    out[*id].push_back(i);
  }
  return out;
}

void match_by_id(const vmx::Document& vm, const pci::Host& gp,
                 const std::vector<std::size_t>& candidates, std::vector<Entry>& entries,
                 std::map<std::size_t, DeviceMapping>& by_guest, std::vector<std::string>& notes) {
  std::map<IdKey, std::vector<Entry*>> entries_by_id;
  for (Entry& e : entries) {
    if (!e.used && e.id) entries_by_id[*e.id].push_back(&e);
  }
  for (const auto& [id, guests] : unmapped_by_id(gp, candidates, by_guest)) {
    std::vector<Entry*>& pool = entries_by_id[id];
    const bool ambiguous = guests.size() > 1 || pool.size() > 1;
    for (std::size_t n = 0; n < guests.size(); ++n) {
      const pci::Device& gd = gp.at(guests[n]);
      if (n >= pool.size()) fail_no_match(gd, id, vm, pool);
      Entry& e = *pool[n];
      e.used = true;
      DeviceMapping dm;
      dm.guest_index = guests[n];
      dm.guest_bdf = gd.bdf;
      dm.host_bdf = e.id_bdf;
      dm.host_index = *e.position;
      dm.entry = e.index;
      dm.vf = e.vf;
      dm.by_order = ambiguous;
      if (ambiguous) {
        dm.how = fmt::format(
            "by order: the {} of {} guest devices {} is the {} of {} pciPassthruN entries of "
            "that id (pciPassthru{}); give --map GUEST_BDF=HOST_BDF if the guest orders them "
            "otherwise",
            ordinal(n), guests.size(), id_text(id), ordinal(n), pool.size(), e.index);
        notes.push_back(fmt::format("guest {} {} -> host {}: {}", kind_name(gd), gd.bdf.to_string(),
                                    e.id_bdf.to_string(), dm.how));
      } else {
        dm.how = fmt::format("by id {} (pciPassthru{})", id_text(id), e.index);
      }
      by_guest.emplace(guests[n], dm);
    }
  }
}

// --- the tree ----------------------------------------------------------------------------------

/// "32.0 GT/s PCIe" -> 32; 0 when empty or unreadable.
double speed_number(const std::string& nccl_speed) {
  double v = 0;
  const auto r = std::from_chars(nccl_speed.data(), nccl_speed.data() + nccl_speed.size(), v);
  return r.ec == std::errc() ? v : 0;
}

/// The link a device's sysfs `max_link_speed`/`max_link_width` hold: LnkCap (LnkSta where the
/// capture has no LnkCap).
const pci::Link* sysfs_link(const pci::Device& d) {
  if (d.link_cap) return &*d.link_cap;
  if (d.link_sta) return &*d.link_sta;
  return nullptr;
}

/// Builds NcclTopo::tree from the mappings.
class TreeBuilder {
 public:
  TreeBuilder(const pci::Host& host, const Guest& guest, NcclTopo& topo)
      : host_(host), gp_(guest.pci()), topo_(topo) {}

  void build() {
    assign_domains();
    for (std::size_t m = 0; m < topo_.mappings.size(); ++m) place(m);
    for (std::size_t cpu : topo_.tree.cpus) fill_bridge_links(cpu);
  }

 private:
  void assign_domains() {
    std::set<std::uint16_t> guest_domains;
    for (const pci::Device& d : gp_.devices()) guest_domains.insert(d.bdf.domain);
    std::uint32_t next = 0xffff;
    for (const DeviceMapping& dm : topo_.mappings) {
      for (std::size_t b : nccl_parent_bridges(host_, dm.host_index)) {
        const std::uint16_t domain = host_.at(b).bdf.domain;
        if (topo_.synthetic_domains.count(domain)) continue;
        while (next > 0 && guest_domains.count(static_cast<std::uint16_t>(next))) --next;
        topo_.synthetic_domains.emplace(domain, static_cast<std::uint16_t>(next--));
      }
    }
  }

  /// The `<cpu>` the top of a chain hangs off: the NUMA node of that device as sysfs says
  /// (ncclTopoGetXmlFromSys reads numa_node of the node whose parent is the host bridge).
  std::size_t cpu_for(std::size_t top) {
    const pci::Device& d = host_.at(top);
    std::optional<int> numa = d.numa_node;
    if (!numa && d.root) numa = host_.roots()[*d.root].numa_node;
    if (!numa || *numa < 0) {
      topo_.numa_assumed = true;
      numa = 0;
    }
    if (const auto c = topo_.tree.find_cpu(*numa)) return *c;
    // Keep the cpus in NUMA order whatever order the devices come in.
    const std::size_t index = topo_.tree.add_cpu(*numa);
    std::vector<std::size_t>& cpus = topo_.tree.cpus;
    std::sort(cpus.begin(), cpus.end(), [&](std::size_t a, std::size_t b) {
      return topo_.tree.nodes[a].numaid < topo_.tree.nodes[b].numaid;
    });
    return index;
  }

  std::size_t bridge_node(std::size_t host_index, std::size_t parent) {
    const auto it = bridges_.find(host_index);
    if (it != bridges_.end()) return it->second;
    const pci::Device& d = host_.at(host_index);
    NcclTopoNode n;
    n.kind = NcclNodeKind::bridge;
    n.busid = synthetic_busid(topo_.synthetic_domains.at(d.bdf.domain), d.bdf);
    // Every <pci> needs a class (ncclTopoAddPci: xmlGetAttrStr fails without one); a bridge's
    // is 0x060400, the key kvDictPciClass maps to a PCI switch node.
    n.pci_class = static_cast<std::uint32_t>(d.class_code.value_or(0x0604)) << 8;
    n.vendor = d.vendor_id;
    n.device = d.device_id;
    n.subsystem_vendor = d.subsys_vendor_id;
    n.subsystem_device = d.subsys_device_id;
    n.host_bdf = d.bdf;
    n.host_port = d.port_type;
    set_host_link(n, host_index, false);
    const std::size_t index = topo_.tree.add_pci(std::move(n), parent);
    bridges_.emplace(host_index, index);
    return index;
  }

  void place(std::size_t m) {
    const DeviceMapping& dm = topo_.mappings[m];
    const std::vector<std::size_t> kept = nccl_parent_bridges(host_, dm.host_index);
    std::size_t parent = cpu_for(kept.empty() ? dm.host_index : kept.front());
    for (std::size_t b : kept) parent = bridge_node(b, parent);
    if (const auto same = topo_.tree.find(dm.busid)) {
      // Two functions of one NIC (or VFs on one guest bus): one bus id for NCCL, one element.
      topo_.notes.push_back(fmt::format(
          "guest {} is {} for NCCL (ncclIbGetPciPath merges functions and VFs), as is the "
          "device written for host {}: one element",
          dm.guest_bdf.to_string(), dm.busid,
          topo_.tree.nodes[*same].host_bdf ? topo_.tree.nodes[*same].host_bdf->to_string()
                                           : std::string("?")));
      return;
    }
    topo_.tree.add_pci(endpoint(m), parent);
  }

  NcclTopoNode endpoint(std::size_t m) const {
    const DeviceMapping& dm = topo_.mappings[m];
    const pci::Device& hd = host_.at(dm.host_index);
    const pci::Device& gd = gp_.at(dm.guest_index);
    NcclTopoNode n;
    n.kind = dm.kind;
    n.busid = dm.busid;
    n.mapping = m;
    n.host_bdf = hd.bdf;
    n.host_port = hd.port_type;
    const auto cls = hd.class_code ? hd.class_code : gd.class_code;
    if (cls) n.pci_class = static_cast<std::uint32_t>(*cls) << 8;
    const pci::Device& ids = gd.vendor_id ? gd : hd;
    n.vendor = ids.vendor_id;
    n.device = ids.device_id;
    const pci::Device& sub = gd.subsys_vendor_id ? gd : hd;
    n.subsystem_vendor = sub.subsys_vendor_id;
    n.subsystem_device = sub.subsys_device_id;
    set_host_link(n, dm.host_index, dm.kind == NcclNodeKind::gpu);
    if (n.link_speed.empty() || !n.link_width) guest_link(n, gd);
    return n;
  }

  /// As NCCL reads sysfs on the host: the lower of the device's `max_link_speed` and its
  /// parent's (`../max_link_speed`), and of the widths (ncclTopoGetXmlFromSys). For a GPU NCCL
  /// asks NVML for the current link instead: its width is capped by LnkSta's (a degraded link),
  /// its speed is not (a GPU lowers its link speed when idle).
  void set_host_link(NcclTopoNode& n, std::size_t index, bool gpu) const {
    const pci::Device& d = host_.at(index);
    const pci::Link* own = sysfs_link(d);
    if (own == nullptr) return;
    const pci::Link* port = d.parent ? sysfs_link(host_.at(*d.parent)) : nullptr;
    std::string speed = nccl_link_speed(own->speed);
    if (port != nullptr) {
      const std::string p = nccl_link_speed(port->speed);
      if (!p.empty() && (speed.empty() || speed_number(p) < speed_number(speed))) speed = p;
    }
    std::optional<unsigned> width = own->width;
    if (port != nullptr && port->width && (!width || *port->width < *width)) width = port->width;
    if (gpu && d.link_sta && d.link_sta->width && width && *d.link_sta->width > 0 &&
        *d.link_sta->width < *width) {
      width = d.link_sta->width;
    }
    if (speed.empty() || !width) return;
    n.link_speed = speed;
    n.link_width = width;
    n.link_source = LinkSource::host;
  }

  /// The host capture has no link (esxcli, the vSphere API): the guest's LnkCap of the
  /// passthrough device, whose config space is the device's own; else NCCL's default.
  static void guest_link(NcclTopoNode& n, const pci::Device& gd) {
    const pci::Link* own = sysfs_link(gd);
    const std::string speed = own ? nccl_link_speed(own->speed) : std::string();
    if (own != nullptr && !speed.empty() && own->width) {
      n.link_speed = speed;
      n.link_width = own->width;
      n.link_source = LinkSource::guest;
      return;
    }
    n.link_speed = "8.0 GT/s PCIe";
    n.link_width = 16;
    n.link_source = LinkSource::nccl_default;
  }

  /// A bridge no capture gives a link for: the fastest and widest of the elements below it.
  void fill_bridge_links(std::size_t index) {
    for (std::size_t c : topo_.tree.nodes[index].children) fill_bridge_links(c);
    NcclTopoNode& n = topo_.tree.nodes[index];
    if (n.kind != NcclNodeKind::bridge || (!n.link_speed.empty() && n.link_width)) return;
    std::string speed;
    unsigned width = 0;
    for (std::size_t c : n.children) {
      const NcclTopoNode& k = topo_.tree.nodes[c];
      if (!k.link_speed.empty() && speed_number(k.link_speed) > speed_number(speed)) {
        speed = k.link_speed;
      }
      width = std::max(width, k.link_width.value_or(0));
    }
    const bool known = !speed.empty() && width > 0;
    n.link_speed = known ? speed : "8.0 GT/s PCIe";
    n.link_width = known ? width : 16;
    n.link_source = known ? LinkSource::below : LinkSource::nccl_default;
  }

  const pci::Host& host_;
  const pci::Host& gp_;
  NcclTopo& topo_;
  std::map<std::size_t, std::size_t> bridges_;  // host index -> tree node
};

void check_nic_functions(const pci::Host& gp, NcclTopo& topo) {
  for (const DeviceMapping& dm : topo.mappings) {
    if (dm.kind != NcclNodeKind::nic ||
        nccl_busid(dm.guest_bdf, dm.kind) == dm.guest_bdf.to_string())
      continue;
    const Bdf zero{dm.guest_bdf.domain, dm.guest_bdf.bus, 0, 0};
    if (gp.find(zero) != nullptr) continue;
    topo.notes.push_back(fmt::format(
        "guest NIC {}: NCCL's IB plugin names it {} (ncclIbGetPciPath: function and VF device "
        "number 0), which the guest does not have: NCCL attaches this NIC to the first CPU "
        "whatever the file says (\"is not a PCI device\", ncclTopoFillNet); set "
        "NCCL_IB_MERGE_VFS=0 if it is a VF",
        dm.guest_bdf.to_string(), nccl_busid(dm.guest_bdf, dm.kind)));
  }
}

}  // namespace

// --- tree helpers ------------------------------------------------------------------------------

std::string_view to_string(NcclNodeKind kind) {
  switch (kind) {
    case NcclNodeKind::cpu:
      return "CPU";
    case NcclNodeKind::bridge:
      return "bridge";
    case NcclNodeKind::gpu:
      return "GPU";
    case NcclNodeKind::nic:
      return "NIC";
    case NcclNodeKind::other:
      return "device";
  }
  return "device";
}

std::size_t NcclTopoTree::add_cpu(int numaid) {
  NcclTopoNode n;
  n.kind = NcclNodeKind::cpu;
  n.numaid = numaid;
  nodes.push_back(std::move(n));
  cpus.push_back(nodes.size() - 1);
  return nodes.size() - 1;
}

std::size_t NcclTopoTree::add_pci(NcclTopoNode node, std::size_t parent, bool in_busid_order) {
  node.parent = parent;
  const std::string busid = node.busid;
  nodes.push_back(std::move(node));
  const std::size_t index = nodes.size() - 1;
  std::vector<std::size_t>& kids = nodes[parent].children;
  const auto at =
      !in_busid_order ? kids.end() : std::find_if(kids.begin(), kids.end(), [&](std::size_t k) {
        return std::strcmp(busid.c_str(), nodes[k].busid.c_str()) < 0;
      });
  kids.insert(at, index);
  return index;
}

std::vector<std::size_t> NcclTopoTree::document_order() const {
  std::vector<std::size_t> out;
  std::function<void(std::size_t)> walk = [&](std::size_t i) {
    out.push_back(i);
    for (std::size_t c : nodes[i].children) walk(c);
  };
  for (std::size_t c : cpus) walk(c);
  return out;
}

std::optional<std::size_t> NcclTopoTree::find(std::string_view busid) const {
  for (std::size_t i : document_order()) {
    if (nodes[i].kind != NcclNodeKind::cpu && nodes[i].busid == busid) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> NcclTopoTree::find_cpu(int numaid) const {
  for (std::size_t c : cpus) {
    if (nodes[c].numaid == numaid) return c;
  }
  return std::nullopt;
}

NcclNodeKind nccl_kind(const pci::Device& d) {
  return d.role == pci::Role::gpu ? NcclNodeKind::gpu : NcclNodeKind::nic;
}

std::string nccl_busid(const Bdf& bdf, NcclNodeKind kind) {
  if (kind == NcclNodeKind::nic) return Bdf{bdf.domain, bdf.bus, 0, 0}.to_string();
  return bdf.to_string();
}

std::string synthetic_busid(std::uint16_t domain, const Bdf& host_bdf) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, host_bdf.bus, host_bdf.device,
                     host_bdf.function);
}

std::string nccl_link_speed(const std::string& lspci_speed) {
  // lspci prints "2.5GT/s", "5GT/s", "8GT/s", "16GT/s", "32GT/s", "64GT/s"; sysfs (Linux 5.7+)
  // "2.5 GT/s PCIe", "5.0 GT/s PCIe", ... which kvDictPciGen in topo.cc matches.
  static const std::map<std::string, std::string> kSpeeds = {
      {"2.5", "2.5 GT/s PCIe"},   {"5", "5.0 GT/s PCIe"},    {"8", "8.0 GT/s PCIe"},
      {"16", "16.0 GT/s PCIe"},   {"32", "32.0 GT/s PCIe"},  {"64", "64.0 GT/s PCIe"},
      {"5.0", "5.0 GT/s PCIe"},   {"8.0", "8.0 GT/s PCIe"},  {"16.0", "16.0 GT/s PCIe"},
      {"32.0", "32.0 GT/s PCIe"}, {"64.0", "64.0 GT/s PCIe"}};
  const auto gt = lspci_speed.find("GT/s");
  if (gt == std::string::npos) return {};
  std::string num = lspci_speed.substr(0, gt);
  while (!num.empty() && num.back() == ' ') num.pop_back();
  const auto it = kSpeeds.find(num);
  return it == kSpeeds.end() ? std::string() : it->second;
}

std::vector<std::size_t> nccl_parent_bridges(const pci::Host& host, std::size_t device) {
  std::vector<std::size_t> ancestors;
  for (auto up = host.at(device).parent; up; up = host.at(*up).parent) ancestors.push_back(*up);
  std::vector<std::size_t> kept;
  for (std::size_t i = 1; i < ancestors.size(); i += 2) kept.push_back(ancestors[i]);
  std::reverse(kept.begin(), kept.end());
  return kept;
}

std::vector<std::size_t> nccl_devices(const Guest& guest) {
  const pci::Host& gp = guest.pci();
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < gp.devices().size(); ++i) {
    const pci::Device& d = gp.at(i);
    if (is_candidate_role(d) && !pci::is_emulated(d, gp.devices())) out.push_back(i);
  }
  std::sort(out.begin(), out.end(),
            [&](std::size_t a, std::size_t b) { return gp.at(a).bdf < gp.at(b).bdf; });
  return out;
}

NcclTopo build_nccl_topo(const pci::Host& host, const vmx::Document& vm, const Guest& guest,
                         const NcclTopoOptions& options) {
  NcclTopo result;
  result.vm_path = vm.path();
  std::vector<Entry> entries = read_entries(host, vm, result.notes);
  const pci::Host& gp = guest.pci();
  const std::vector<std::size_t> candidates = nccl_devices(guest);
  std::map<std::size_t, DeviceMapping> by_guest;  // guest index -> mapping
  apply_maps(options, host, gp, candidates, entries, by_guest);
  match_by_id(vm, gp, candidates, entries, by_guest, result.notes);
  for (const Entry& e : entries) {
    if (!e.used) {
      result.notes.push_back(fmt::format(
          "pciPassthru{} (host {}) matches no GPU or NIC in the guest capture; left out", e.index,
          e.id_bdf.to_string()));
    }
  }
  for (auto& [gi, dm] : by_guest) {
    if (dm.vf) {
      dm.how +=
          fmt::format(", an SR-IOV VF placed at its PF {}", host.at(dm.host_index).bdf.to_string());
    }
    dm.kind = nccl_kind(gp.at(gi));
    dm.busid = nccl_busid(dm.guest_bdf, dm.kind);
    result.mappings.push_back(dm);
  }
  check_nic_functions(gp, result);
  TreeBuilder(host, guest, result).build();
  if (result.numa_assumed) {
    result.notes.emplace_back(
        "the host capture gives no NUMA node for some devices: numaid 0 is assumed");
  }
  return result;
}

}  // namespace vmxkit::guest
