// SPDX-License-Identifier: Apache-2.0
// nccl-topo: guest GPU/NIC -> host device (pciPassthruN ids, --map), then the host's PCIe tree
// above them as NCCL's topology XML (src/graph/xml.cc, topo.cc in NCCL; docs/nccl-topo.md).
#include "vmxkit/analysis/nccl_topo.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/model/vm_config.h"
#include "vmxkit/formats/vsphere/xml_support.h"

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

bool is_candidate(const pci::Device& d) {
  if (d.vendor_id && *d.vendor_id == 0x15ad) return false;  // VMware's own virtual devices
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
    const Setting* id_setting = entry_setting(cfg, p, "id");
    const auto bdf = parse_any_bdf(*p.id);
    if (!bdf) {
      fail_at(doc, id_setting,
              fmt::format("pciPassthru{}.id \"{}\": expected a host PCI address like "
                          "\"00000:059:00.0\"",
                          p.index, vmx::shorten(*p.id)));
    }
    Entry e;
    e.index = p.index;
    e.id_bdf = *bdf;
    e.vf = kind == PassthroughKind::sriov_vf;
    const auto at_id = host.index_of(*bdf);
    if (e.vf) {
      if (p.pf_id) {
        const Setting* pf_setting = entry_setting(cfg, p, "pfId");
        const auto pf = parse_any_bdf(*p.pf_id);
        if (!pf) {
          fail_at(doc, pf_setting,
                  fmt::format("pciPassthru{}.pfId \"{}\": expected a host PCI address like "
                              "\"00000:059:00.0\"",
                              p.index, vmx::shorten(*p.pf_id)));
        }
        e.position = host.index_of(*pf);
      } else if (at_id && host.at(*at_id).physfn) {
        e.position = host.at(*at_id).physfn;
      } else {
        e.position = at_id;
      }
    } else {
      e.position = at_id;
    }
    // The id the guest sees: the entry's own vendorId/deviceId, else the host device's, else
    // (a VF the host capture does not list) its PF's SR-IOV VF device id.
    const auto vendor = parse_id16(p.vendor_id);
    const auto device = parse_id16(p.device_id);
    if (vendor && device) {
      e.id = IdKey{*vendor, *device};
    } else if (at_id) {
      e.id = device_id(host.at(*at_id));
    } else if (e.vf && e.position) {
      const pci::Device& pf = host.at(*e.position);
      if (pf.vendor_id && pf.sriov && pf.sriov->vf_device_id) {
        e.id = IdKey{*pf.vendor_id, *pf.sriov->vf_device_id};
      }
    }
    if (!e.position) {
      notes.push_back(fmt::format("pciPassthru{}.id {}: not in the host capture; not mapped",
                                  p.index, bdf->to_string()));
      continue;
    }
    if (!e.id) {
      notes.push_back(fmt::format(
          "pciPassthru{}: the vendor:device id of host {} is not known; not mapped by id", p.index,
          bdf->to_string()));
    }
    entries.push_back(e);
  }
  return entries;
}

[[noreturn]] void fail_guest(const pci::Device& d, const std::string& message) {
  if (d.origins.empty()) throw Error(message);
  throw Error(d.origins.front().path, d.origins.front().line, 1, message);
}

// --- the XML -------------------------------------------------------------------------------

std::string comment_text(std::string s) {
  // "--" may not appear in an XML comment, nor may it end with "-".
  // The option's name is spelled out rather than broken into "- -map".
  for (std::size_t at = s.find("--map"); at != std::string::npos; at = s.find("--map", at)) {
    s.replace(at, 5, "the map option");
  }
  std::string out;
  for (char c : s) {
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += c;
  }
  if (!out.empty() && out.back() == '-') out += ' ';
  return out;
}

struct Node {
  std::optional<std::size_t> mapping;  ///< endpoint: index into mappings
  std::size_t host_index = 0;          ///< bridge: host device; endpoint: its position
  std::vector<Node*> kids;
};

/// The link a device runs at as NCCL reads it from sysfs: the lower of its own max link and
/// its upstream port's (xml.cc ncclTopoGetXmlFromSys: max_link_speed, ../max_link_speed).
const pci::Link* best_link(const pci::Device& d) {
  if (d.link_cap) return &*d.link_cap;
  if (d.link_sta) return &*d.link_sta;
  return nullptr;
}

double speed_value(const std::string& s) {
  try {
    return std::stod(s);
  } catch (...) {
    return 0;
  }
}

}  // namespace

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

NcclTopo build_nccl_topo(const pci::Host& host, const vmx::Document& vm, const Guest& guest,
                         const NcclTopoOptions& options) {
  NcclTopo result;
  std::vector<Entry> entries = read_entries(host, vm, result.notes);
  const pci::Host& gp = guest.pci();

  // --- --map ---
  std::map<std::size_t, DeviceMapping> by_guest;  // guest index -> mapping
  for (const std::string& m : options.maps) {
    const auto eq = m.find('=');
    const auto g = eq == std::string::npos ? std::nullopt : parse_bdf(m.substr(0, eq));
    const auto h = eq == std::string::npos ? std::nullopt : parse_bdf(m.substr(eq + 1));
    if (!g || !h) {
      throw Error(fmt::format(
          "--map {}: expected GUEST_BDF=HOST_BDF, both like 0000:03:00.0 (lspci -D form)",
          vmx::shorten(m)));
    }
    const auto gi = gp.index_of(*g);
    if (!gi || !is_candidate(gp.at(*gi))) {
      throw Error(
          fmt::format("--map {}: the guest capture has no GPU or NIC at {}", m, g->to_string()));
    }
    const auto hi = host.index_of(*h);
    if (!hi) {
      throw Error(fmt::format("--map {}: the host capture has no device at {}", m, h->to_string()));
    }
    if (by_guest.count(*gi)) {
      throw Error(fmt::format("--map {}: {} is mapped twice", m, g->to_string()));
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
    for (Entry& e : entries) {
      if (!e.used && (e.id_bdf == *h || (e.position && *e.position == *hi && !e.vf))) {
        e.used = true;
        dm.entry = e.index;
        dm.vf = dm.vf || e.vf;
        if (e.vf && e.position) dm.host_index = *e.position;
        break;
      }
    }
    dm.how = dm.entry ? fmt::format("--map (pciPassthru{})", *dm.entry)
                      : std::string("--map (no pciPassthruN entry has this id)");
    by_guest.emplace(*gi, dm);
  }

  // --- by id and order ---
  std::map<IdKey, std::vector<std::size_t>> guest_by_id;  // guest indices, in bus order
  std::vector<std::size_t> guest_devices;
  for (std::size_t i = 0; i < gp.devices().size(); ++i) {
    if (is_candidate(gp.at(i))) guest_devices.push_back(i);
  }
  std::sort(guest_devices.begin(), guest_devices.end(),
            [&](std::size_t a, std::size_t b) { return gp.at(a).bdf < gp.at(b).bdf; });
  for (std::size_t i : guest_devices) {
    if (by_guest.count(i)) continue;
    const auto id = device_id(gp.at(i));
    if (!id) {
      fail_guest(gp.at(i), fmt::format("guest {} {} has no vendor:device id in the capture; give "
                                       "--map {}=HOST_BDF",
                                       kind_name(gp.at(i)), gp.at(i).bdf.to_string(),
                                       gp.at(i).bdf.to_string()));
    }
    guest_by_id[*id].push_back(i);
  }
  std::map<IdKey, std::vector<Entry*>> entries_by_id;
  for (Entry& e : entries) {
    if (!e.used && e.id) entries_by_id[*e.id].push_back(&e);
  }
  for (const auto& [id, guests] : guest_by_id) {
    std::vector<Entry*>& pool = entries_by_id[id];
    const bool ambiguous = guests.size() > 1 || pool.size() > 1;
    for (std::size_t n = 0; n < guests.size(); ++n) {
      const pci::Device& gd = gp.at(guests[n]);
      if (n >= pool.size()) {
        std::string have;
        for (const Entry* e : pool) {
          have += fmt::format(" pciPassthru{} ({})", e->index, e->id_bdf.to_string());
        }
        fail_guest(gd, fmt::format("guest {} {} ({}) has no host match: {} has {} "
                                   "pciPassthruN entr{} of that id{}{}; give --map {}=HOST_BDF",
                                   kind_name(gd), gd.bdf.to_string(), id_text(id), vm.path(),
                                   pool.size(), pool.size() == 1 ? "y" : "ies",
                                   pool.empty() ? "" : ":", have, gd.bdf.to_string()));
      }
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
        result.notes.push_back(fmt::format("guest {} {} -> host {}: {}", kind_name(gd),
                                           gd.bdf.to_string(), e.id_bdf.to_string(), dm.how));
      } else {
        dm.how = fmt::format("by id {} (pciPassthru{})", id_text(id), e.index);
      }
      by_guest.emplace(guests[n], dm);
    }
  }
  for (const Entry& e : entries) {
    if (!e.used) {
      result.notes.push_back(fmt::format(
          "pciPassthru{} (host {}) matches no GPU or NIC in the guest capture; left out", e.index,
          e.id_bdf.to_string()));
    }
  }
  for (auto& [gi, dm] : by_guest) {
    if (dm.vf)
      dm.how +=
          fmt::format(", an SR-IOV VF placed at its PF {}", host.at(dm.host_index).bdf.to_string());
    result.mappings.push_back(dm);
  }

  // --- synthetic domains for the bridges ---
  std::set<std::uint16_t> guest_domains;
  for (const pci::Device& d : gp.devices()) guest_domains.insert(d.bdf.domain);
  std::map<std::uint16_t, std::uint16_t> domain_of;  // host domain -> domain in the file
  std::uint32_t next = 0xffff;
  auto synthetic_domain = [&](std::uint16_t host_domain) {
    auto it = domain_of.find(host_domain);
    if (it != domain_of.end()) return it->second;
    while (next > 0 && guest_domains.count(static_cast<std::uint16_t>(next))) --next;
    const auto d = static_cast<std::uint16_t>(next--);
    domain_of.emplace(host_domain, d);
    return d;
  };

  // --- the tree ---
  std::vector<std::unique_ptr<Node>> nodes;
  std::map<std::size_t, Node*> bridges;    // host index -> node
  std::map<int, std::vector<Node*>> cpus;  // numa id -> top nodes
  std::set<int> unknown_numa;
  for (std::size_t m = 0; m < result.mappings.size(); ++m) {
    nodes.push_back(std::make_unique<Node>());
    Node* child = nodes.back().get();
    child->mapping = m;
    child->host_index = result.mappings[m].host_index;
    std::optional<std::size_t> up = host.at(child->host_index).parent;
    std::size_t top = child->host_index;
    bool joined = false;
    while (up) {
      auto it = bridges.find(*up);
      if (it != bridges.end()) {
        it->second->kids.push_back(child);
        joined = true;
        break;
      }
      nodes.push_back(std::make_unique<Node>());
      Node* b = nodes.back().get();
      b->host_index = *up;
      b->kids.push_back(child);
      bridges.emplace(*up, b);
      child = b;
      top = *up;
      up = host.at(*up).parent;
    }
    if (joined) continue;
    const pci::Device& td = host.at(top);
    std::optional<int> numa = td.numa_node;
    if (!numa && td.root) numa = host.roots()[*td.root].numa_node;
    if (!numa) numa = host.at(child->host_index).numa_node;
    if (!numa || *numa < 0) {
      unknown_numa.insert(static_cast<int>(m));
      numa = 0;
    }
    cpus[*numa].push_back(child);
  }

  // --- writing ---
  std::string& x = result.xml;
  x += "<!-- NCCL topology for this VM, written by vmxkit nccl-topo: the host's PCIe tree above\n"
       "     each passthrough GPU and NIC, with the guest's bus ids on the devices.\n"
       "     Use: NCCL_TOPO_FILE=<this file>. -->\n";
  x += fmt::format("<!-- VM: {} -->\n", comment_text(vm.path()));
  if (!domain_of.empty()) {
    std::string list;
    for (const auto& [h, d] : domain_of) {
      list += fmt::format("{}{:04x} -> {:04x}", list.empty() ? "" : ", ", h, d);
    }
    x += fmt::format(
        "<!-- Bridges are not in the guest: their busid is the host's bus/device/function in a "
        "PCI domain no guest device uses (host domain {}), so NCCL cannot mistake one for a "
        "guest device; NCCL reads their attributes from this file only. -->\n",
        list);
  }
  if (!unknown_numa.empty()) {
    x += "<!-- The host capture gives no NUMA node for some devices: numaid 0 is assumed for "
         "them (give numactl --hardware or lspci -vvv with NUMA node lines). -->\n";
    result.notes.push_back(
        "the host capture gives no NUMA node for some devices: numaid 0 is assumed");
  }
  x += "<system version=\"1\">\n";
  auto attr = [](std::string& out, const char* key, const std::string& value) {
    out += fmt::format(" {}=\"", key);
    vsphere::xml::escape_append(value, out);
    out += '"';
  };
  auto write_node = [&](auto&& self, const Node& n, int indent) -> void {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    const pci::Device& hd = host.at(n.host_index);
    const DeviceMapping* dm = n.mapping ? &result.mappings[*n.mapping] : nullptr;
    const pci::Device* gd = dm ? &gp.at(dm->guest_index) : nullptr;
    std::string busid;
    if (dm) {
      x += pad + "<!-- " +
           comment_text(fmt::format("{} guest {} is host {}: {}", kind_name(*gd),
                                    dm->guest_bdf.to_string(), dm->host_bdf.to_string(), dm->how)) +
           " -->\n";
      busid = dm->guest_bdf.to_string();
    } else {
      busid = synthetic_busid(synthetic_domain(hd.bdf.domain), hd.bdf);
      x += pad + "<!-- " +
           comment_text(fmt::format("host {} {}", hd.bdf.to_string(),
                                    hd.port_type == pci::PortType::unknown
                                        ? std::string("bridge")
                                        : std::string(pci::to_string(hd.port_type)))) +
           " -->\n";
    }
    x += pad + "<pci";
    attr(x, "busid", busid);
    std::optional<std::uint16_t> cls = hd.class_code;
    if (!cls && gd) cls = gd->class_code;
    if (!dm && !cls) cls = 0x0604;
    if (cls) attr(x, "class", fmt::format("0x{:04x}00", *cls));
    const pci::Device& ids = (dm && gd && gd->vendor_id) ? *gd : hd;
    if (ids.vendor_id) attr(x, "vendor", fmt::format("0x{:04x}", *ids.vendor_id));
    if (ids.device_id) attr(x, "device", fmt::format("0x{:04x}", *ids.device_id));
    const pci::Device& sub = hd.subsys_vendor_id ? hd : (gd ? *gd : hd);
    if (sub.subsys_vendor_id) {
      attr(x, "subsystem_vendor", fmt::format("0x{:04x}", *sub.subsys_vendor_id));
    }
    if (sub.subsys_device_id) {
      attr(x, "subsystem_device", fmt::format("0x{:04x}", *sub.subsys_device_id));
    }
    const pci::Link* own = best_link(hd);
    const pci::Link* port = hd.parent ? best_link(host.at(*hd.parent)) : nullptr;
    if (own) {
      std::string speed = own->speed;
      if (port && !port->speed.empty() && speed_value(port->speed) > 0 &&
          speed_value(port->speed) < speed_value(speed)) {
        speed = port->speed;
      }
      const std::string s = nccl_link_speed(speed);
      if (!s.empty()) attr(x, "link_speed", s);
      if (own->width) {
        unsigned w = *own->width;
        if (port && port->width) w = std::min(w, *port->width);
        attr(x, "link_width", std::to_string(w));
      }
    }
    if (n.kids.empty()) {
      x += "/>\n";
      return;
    }
    x += ">\n";
    std::vector<const Node*> kids(n.kids.begin(), n.kids.end());
    std::sort(kids.begin(), kids.end(), [&](const Node* a, const Node* b) {
      return host.at(a->host_index).bdf < host.at(b->host_index).bdf;
    });
    for (const Node* k : kids) self(self, *k, indent + 2);
    x += pad + "</pci>\n";
  };
  for (const auto& [numa, tops] : cpus) {
    x += fmt::format("  <cpu numaid=\"{}\">\n", numa);
    std::vector<const Node*> sorted(tops.begin(), tops.end());
    std::sort(sorted.begin(), sorted.end(), [&](const Node* a, const Node* b) {
      return host.at(a->host_index).bdf < host.at(b->host_index).bdf;
    });
    for (const Node* t : sorted) write_node(write_node, *t, 4);
    x += "  </cpu>\n";
  }
  x += "</system>\n";
  return result;
}

}  // namespace vmxkit::guest
