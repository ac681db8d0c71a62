// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/ovf.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <pugixml.hpp>
#include <set>

#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::vsphere {
namespace {

using xml::attribute;
using xml::child;
using xml::local_name;

constexpr std::string_view kFilePrefix = "ovf:/file/";

class OvfReader {
 public:
  explicit OvfReader(const SourceFile& source) : pos_(source) {}

  std::vector<OvfVirtualSystem> read(pugi::xml_node root) {
    if (local_name(root.name()) != "Envelope") {
      pos_.fail(root, "expected an OVF Envelope, found " + std::string(local_name(root.name())));
    }
    if (const pugi::xml_node refs = child(root, "References")) {
      for (pugi::xml_node f = refs.first_child(); f; f = f.next_sibling()) {
        if (f.type() == pugi::node_element && local_name(f.name()) == "File") {
          if (const auto id = attribute(f, "id")) files_.insert(id.value());
        }
      }
    }
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element && local_name(c.name()) == "VirtualDeviceGroupSection") {
        device_group_section(c, envelope_groups_);
      }
    }
    std::vector<OvfVirtualSystem> out;
    collect(root, out, 0);
    if (out.empty()) pos_.fail(root, "the OVF descriptor has no VirtualSystem");
    return out;
  }

 private:
  void collect(pugi::xml_node node, std::vector<OvfVirtualSystem>& out, std::size_t depth) {
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::string_view name = local_name(c.name());
      if (name == "VirtualSystem") {
        out.push_back(system(c));
      } else if (name == "VirtualSystemCollection" && depth < xml::kMaxDepth) {
        collect(c, out, depth + 1);
      }
    }
  }

  // A `vmw:Config` or `vmw:ExtraConfig` element's key and value.
  struct KeyValue {
    std::string key;
    std::string value;
    SourceSpan whole, key_span, value_span;
  };

  KeyValue key_value(pugi::xml_node n) {
    KeyValue kv;
    const pugi::xml_attribute k = attribute(n, "key");
    const pugi::xml_attribute v = attribute(n, "value");
    if (!k) pos_.fail(n, std::string(n.name()) + " without vmw:key");
    kv.key = k.value();
    kv.value = v.value();
    kv.whole = pos_.element(n);
    kv.key_span = pos_.attribute_value(n, k);
    kv.value_span = v ? pos_.attribute_value(n, v) : kv.whole;
    check_file_reference(n, kv);
    return kv;
  }

  void check_file_reference(pugi::xml_node n, const KeyValue& kv) {
    const std::string_view v = kv.value;
    if (v.substr(0, kFilePrefix.size()) != kFilePrefix) return;
    const std::string id(v.substr(kFilePrefix.size()));
    if (files_.count(id) == 0) {
      pos_.fail_at(kv.value_span.begin, kv.key + " refers to " + kv.value +
                                            ", but References declares no File '" + id + "'");
    }
    (void)n;
  }

  // `vmw:VirtualDeviceGroupSection`: one `DeviceGroup` per vSphere 8 device group, with
  // `ovf:deviceGroupName`, `ovf:groupInstanceKey`, `ovf:label` and `ovf:summary` (govmomi
  // ovf/fixtures/external/vdg-vm.ovf; the ConfigSpec's VirtualMachineVirtualDeviceGroups).
  void device_group_section(pugi::xml_node section, std::vector<DeviceGroup>& out) {
    for (pugi::xml_node g = section.first_child(); g; g = g.next_sibling()) {
      if (g.type() != pugi::node_element || local_name(g.name()) != "DeviceGroup") continue;
      DeviceGroup d;
      if (const pugi::xml_attribute name = attribute(g, "deviceGroupName")) d.name = name.value();
      d.label = attribute(g, "label").value();
      d.summary = attribute(g, "summary").value();
      d.whole = pos_.element(g);
      const pugi::xml_attribute key = attribute(g, "groupInstanceKey");
      const auto k = key ? parse_long(key.value()) : std::nullopt;
      if (!k || *k < INT32_MIN || *k > INT32_MAX) {
        pos_.fail(g, "DeviceGroup without an integer ovf:groupInstanceKey");
      }
      d.key = static_cast<std::int32_t>(*k);
      for (const DeviceGroup& seen : out) {
        if (seen.key == d.key) {
          pos_.fail(g, "a second DeviceGroup with ovf:groupInstanceKey " + std::to_string(d.key));
        }
      }
      out.push_back(std::move(d));
    }
  }

  // An Item's `vmw:Config` `deviceGroupInfo.groupInstanceKey` and `.sequenceId`.
  struct Membership {
    unsigned device = 0;
    std::optional<std::int32_t> key, sequence;
    SourceSpan key_span, sequence_span;
  };

  std::int32_t int32_value(const KeyValue& kv) {
    const auto v = parse_long(kv.value);
    if (!v || *v < INT32_MIN || *v > INT32_MAX) {
      pos_.fail_at(kv.value_span.begin, kv.key + " must be an integer, not " + kv.value);
    }
    return static_cast<std::int32_t>(*v);
  }

  // Each member joins the group it names; a name no section declares is an error, as vSphere
  // adds a group with its devices in one request.
  void join_groups(const std::vector<Membership>& members, VmConfig& cfg) {
    for (const Membership& m : members) {
      if (!m.key) {
        pos_.fail_at(m.sequence_span.begin,
                     "deviceGroupInfo.sequenceId without deviceGroupInfo.groupInstanceKey");
      }
      DeviceGroup* group = nullptr;
      for (DeviceGroup& g : cfg.device_groups) {
        if (g.key == *m.key) group = &g;
      }
      if (group == nullptr) {
        pos_.fail_at(m.key_span.begin, "deviceGroupInfo.groupInstanceKey " +
                                           std::to_string(*m.key) +
                                           " names no DeviceGroup of a VirtualDeviceGroupSection");
      }
      group->members.push_back({m.device, m.sequence.value_or(0), m.key_span});
    }
    // A group of the Envelope's section that none of this system's items joins is another
    // system's.
    std::erase_if(cfg.device_groups, [&](const DeviceGroup& g) {
      return g.members.empty() && std::any_of(envelope_groups_.begin(), envelope_groups_.end(),
                                              [&](const DeviceGroup& e) { return e.key == g.key; });
    });
  }

  OvfVirtualSystem system(pugi::xml_node vs) {
    OvfVirtualSystem out;
    out.id = attribute(vs, "id").value();
    VmConfig& cfg = out.config;
    cfg.device_groups = envelope_groups_;
    std::vector<Membership> members;
    unsigned n = 0;
    for (pugi::xml_node hw = vs.first_child(); hw; hw = hw.next_sibling()) {
      if (hw.type() == pugi::node_element && local_name(hw.name()) == "VirtualDeviceGroupSection") {
        device_group_section(hw, cfg.device_groups);
        continue;
      }
      if (hw.type() != pugi::node_element || local_name(hw.name()) != "VirtualHardwareSection") {
        continue;
      }
      for (pugi::xml_node c = hw.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        const std::string_view name = local_name(c.name());
        if (name == "Item") {
          item(c, cfg, n, out, members);
        } else if (name == "ExtraConfig") {
          const KeyValue kv = key_value(c);
          cfg.settings.push_back({kv.key, kv.value, kv.whole, kv.key_span, kv.value_span});
        } else if (name == "Config") {
          const KeyValue kv = key_value(c);
          if (kv.key == "firmware") {
            cfg.add("firmware", kv.value, kv.whole, kv.value_span);
          } else if (kv.key == "memoryReservationLockedToMax") {
            cfg.add("sched.mem.pin", kv.value == "true" ? "TRUE" : "FALSE", kv.whole,
                    kv.value_span);
          }
        }
      }
    }
    join_groups(members, cfg);
    return out;
  }

  // A passthrough Item being read: the .vmx keys its Config elements become (`pciPassthruN.`).
  struct PassthroughItem {
    std::string prefix;   // pciPassthruN.
    unsigned device = 0;  // N
    bool sriov = false;   // an SR-IOV network adapter
    std::string sub;      // its ResourceSubType
  };

  void item(pugi::xml_node node, VmConfig& cfg, unsigned& n, OvfVirtualSystem& out,
            std::vector<Membership>& members) {
    const std::string type = child(node, "ResourceType").text().get();
    const std::string sub = child(node, "ResourceSubType").text().get();
    if (type == "4") {
      memory(node, cfg);
      return;
    }
    // An SR-IOV network adapter: ResourceType 10 (Ethernet adapter) with ResourceSubType
    // `SriovEthernetCard`, which govmomi's ovf.ToConfigSpec maps, lowercased, to a
    // VirtualSriovEthernetCard (object/virtual_device_list.go, CreateEthernetCard; fixtures
    // ovf/fixtures/external/sriovEthernetCard.ovf and vdg-vm.ovf).
    const bool sriov = type == "10" && (iequals(sub, "SriovEthernetCard") || iequals(sub, "sriov"));
    if (!sriov && sub.rfind("vmware.pci.passthrough", 0) != 0) return;
    const unsigned device = n++;
    const PassthroughItem it{"pciPassthru" + std::to_string(device) + ".", device, sriov, sub};
    const std::string& p = it.prefix;
    const SourceSpan whole = pos_.element(node);
    cfg.add(p + "present", "TRUE", whole, whole);
    if (sub == "vmware.pci.passthrough-dvx") cfg.add(p + "virtualDev", "dvx", whole, whole);
    if (sriov) {
      if (const pugi::xml_node conn = child(node, "Connection")) {
        cfg.add(p + "networkName", conn.text().get(), pos_.element(conn), pos_.text(conn));
      }
    }
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element || local_name(c.name()) != "Config") continue;
      item_config(key_value(c), it, cfg, out, members);
    }
  }

  // vSphere 8 device groups: VirtualDevice.deviceGroupInfo {groupInstanceKey, sequenceId}, one
  // key of it for `device`.
  void group_membership(const KeyValue& kv, unsigned device, std::vector<Membership>& members) {
    if (members.empty() || members.back().device != device) {
      members.emplace_back();
      members.back().device = device;
    }
    Membership& m = members.back();
    if (kv.key == "deviceGroupInfo.groupInstanceKey") {
      m.key = int32_value(kv);
      m.key_span = kv.whole;
    } else {
      m.sequence = int32_value(kv);
      m.sequence_span = kv.whole;
    }
  }

  // One `vmw:Config` of a passthrough Item, as its .vmx key; a key vmxkit does not read is noted
  // as unread.
  void item_config(const KeyValue& kv, const PassthroughItem& it, VmConfig& cfg,
                   OvfVirtualSystem& out, std::vector<Membership>& members) {
    const std::string& p = it.prefix;
    const bool sriov = it.sriov;
    if (sriov && kv.key == "sriovBacking.physicalFunctionBacking.id") {
      // The PF, by the property-path convention of the other keys (backing.id); the entry
      // then takes the form ESXi writes for a VF: pfId, id, BYPASS.
      const std::string pf = vmx_id_from_api(kv.value).value_or(kv.value);
      cfg.add(p + "pfId", pf, kv.whole, kv.value_span);
      cfg.add(p + "id", pf, kv.whole, kv.value_span);
      cfg.add(p + "systemId", "BYPASS", kv.whole, kv.value_span);
    } else if (sriov && kv.key == "virtualDev") {
      cfg.add(p + "virtualDev", kv.value, kv.whole, kv.value_span);
    } else if (kv.key == "deviceGroupInfo.groupInstanceKey" ||
               kv.key == "deviceGroupInfo.sequenceId") {
      group_membership(kv, it.device, members);
    } else if (kv.key == "dvx.deviceClass" || kv.key.rfind("dvx.config.", 0) == 0) {
      // Device Virtualization Extensions: the device class and its configParams
      // (VirtualPCIPassthroughDvxBackingInfo), as the .vmx keys `pciPassthruN.dvx.deviceClass`
      // and `pciPassthruN.dvx.config.KEY`.
      cfg.add(p + kv.key, kv.value, kv.whole, kv.value_span);
    } else if (kv.key == "wakeOnLanEnabled" || kv.key.rfind("connectable.", 0) == 0 ||
               kv.key.rfind("slotInfo.", 0) == 0 || (!sriov && kv.key == "virtualDev")) {
      // The card's own properties: nothing the rules judge.
    } else if (kv.key == "backing.id") {
      cfg.add(p + "id", vmx_id_from_api(kv.value).value_or(kv.value), kv.whole, kv.value_span);
    } else if (kv.key == "backing.deviceId") {
      const auto id = parse_api_hex_id(kv.value);
      cfg.add(p + "deviceId", id ? format_vmx_pci_id(*id) : kv.value, kv.whole, kv.value_span);
    } else if (kv.key == "backing.vendorId") {
      const auto v = parse_long(kv.value);
      const bool ok = v && *v >= -32768 && *v <= 65535;
      cfg.add(p + "vendorId",
              ok ? format_vmx_pci_id(static_cast<std::uint16_t>(*v & 0xffff)) : kv.value, kv.whole,
              kv.value_span);
    } else if (kv.key == "backing.systemId") {
      cfg.add(p + "systemId", kv.value, kv.whole, kv.value_span);
    } else if (kv.key == "backing.vgpu") {
      cfg.add(p + "vgpu", kv.value, kv.whole, kv.value_span);
    } else if (kv.key == "backing.allowedDevice") {
      // `0x8086:0x10d3:s=0x15ad:t=0x7d0:r=0x0`: vendor:device, then sub-ids and revision.
      const std::size_t c1 = kv.value.find(':');
      const std::size_t c2 = c1 == std::string::npos ? c1 : kv.value.find(':', c1 + 1);
      cfg.add(p + "allowedDevices", kv.value.substr(0, c2), kv.whole, kv.value_span);
    } else if (kv.key == "backing.customLabel") {
      cfg.add(p + "customLabel", kv.value, kv.whole, kv.value_span);
    } else {
      out.unread.push_back({kv.whole, "vmw:Config " + kv.key + " of " +
                                          (sriov ? "an SR-IOV network adapter" : it.sub) +
                                          " is not read by vmxkit"});
    }
  }

  void memory(pugi::xml_node node, VmConfig& cfg) {
    const pugi::xml_node qty = child(node, "VirtualQuantity");
    if (!qty) return;
    const auto mb = parse_long(qty.text().get());
    if (!mb) pos_.fail(qty, "VirtualQuantity must be an integer");
    // AllocationUnits: "byte * 2^20" (MB, the default VMware writes) or "byte * 2^30" (GB).
    const std::string units = child(node, "AllocationUnits").text().get();
    const std::int64_t scale = units.find("2^30") != std::string::npos ? 1024 : 1;
    cfg.add("memsize", std::to_string(*mb * scale), pos_.element(qty), pos_.text(qty));
    if (const pugi::xml_node res = child(node, "Reservation")) {
      const auto r = parse_long(res.text().get());
      if (!r) pos_.fail(res, "Reservation must be an integer");
      if (*r > 0) {
        cfg.add("sched.mem.min", std::to_string(*r * scale), pos_.element(res), pos_.text(res));
      }
    }
  }

  xml::Positions pos_;
  std::set<std::string, std::less<>> files_;
  std::vector<DeviceGroup> envelope_groups_;
};

}  // namespace

std::vector<OvfVirtualSystem> read_ovf(const SourceFile& source) {
  pugi::xml_document doc;
  xml::load(source, doc);
  return OvfReader(source).read(doc.document_element());
}

}  // namespace vmxkit::vsphere
