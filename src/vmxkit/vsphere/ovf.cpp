// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/ovf.h"

#include <cstdint>
#include <pugixml.hpp>
#include <set>

#include "vmxkit/core/text.h"
#include "vmxkit/vsphere/ids.h"
#include "vmxkit/vsphere/xml_support.h"

namespace vmxkit::vsphere {
namespace {

using xml::attribute;
using xml::child;
using xml::local_name;

constexpr std::string_view kFilePrefix = "ovf:/file/";

class Reader {
 public:
  explicit Reader(const SourceFile& source) : pos_(source) {}

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
  void device_group_section(pugi::xml_node section, std::vector<OvfDeviceGroup>& out) {
    for (pugi::xml_node g = section.first_child(); g; g = g.next_sibling()) {
      if (g.type() != pugi::node_element || local_name(g.name()) != "DeviceGroup") continue;
      OvfDeviceGroup d;
      d.name = attribute(g, "deviceGroupName").value();
      d.label = attribute(g, "label").value();
      d.summary = attribute(g, "summary").value();
      d.whole = pos_.element(g);
      const pugi::xml_attribute key = attribute(g, "groupInstanceKey");
      const auto k = key ? parse_long(key.value()) : std::nullopt;
      if (!k || *k < INT32_MIN || *k > INT32_MAX) {
        pos_.fail(g, "DeviceGroup without an integer ovf:groupInstanceKey");
      }
      d.group_instance_key = static_cast<std::int32_t>(*k);
      out.push_back(std::move(d));
    }
  }

  OvfVirtualSystem system(pugi::xml_node vs) {
    OvfVirtualSystem out;
    out.id = attribute(vs, "id").value();
    out.groups = envelope_groups_;
    VmConfig& cfg = out.config;
    unsigned n = 0;
    for (pugi::xml_node hw = vs.first_child(); hw; hw = hw.next_sibling()) {
      if (hw.type() == pugi::node_element && local_name(hw.name()) == "VirtualDeviceGroupSection") {
        device_group_section(hw, out.groups);
        continue;
      }
      if (hw.type() != pugi::node_element || local_name(hw.name()) != "VirtualHardwareSection") {
        continue;
      }
      for (pugi::xml_node c = hw.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        const std::string_view name = local_name(c.name());
        if (name == "Item") {
          item(c, cfg, n, out);
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
    return out;
  }

  void item(pugi::xml_node node, VmConfig& cfg, unsigned& n, OvfVirtualSystem& out) {
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
    const std::string p = "pciPassthru" + std::to_string(n++) + ".";
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
      const KeyValue kv = key_value(c);
      if (sriov && kv.key == "sriovBacking.physicalFunctionBacking.id") {
        // The PF, by the property-path convention of the other keys (backing.id); the entry
        // then takes the form ESXi writes for a VF: pfId, id, BYPASS.
        const std::string pf = vmx_id_from_api(kv.value).value_or(kv.value);
        cfg.add(p + "pfId", pf, kv.whole, kv.value_span);
        cfg.add(p + "id", pf, kv.whole, kv.value_span);
        cfg.add(p + "systemId", "BYPASS", kv.whole, kv.value_span);
      } else if (sriov && kv.key == "virtualDev") {
        cfg.add(p + "virtualDev", kv.value, kv.whole, kv.value_span);
      } else if (kv.key.rfind("deviceGroupInfo.", 0) == 0) {
        // vSphere 8 device groups: VirtualDevice.deviceGroupInfo {groupInstanceKey, sequenceId}.
        out.device_groups.push_back({n - 1, kv.key.substr(16), kv.value, kv.value_span});
      } else if (kv.key.rfind("dvx.", 0) == 0 || kv.key == "wakeOnLanEnabled" ||
                 kv.key.rfind("connectable.", 0) == 0 || kv.key.rfind("slotInfo.", 0) == 0 ||
                 (!sriov && kv.key == "virtualDev")) {
        // Device Virtualization Extensions' vendor settings and the card's own properties:
        // nothing the rules judge.
      } else if (kv.key == "backing.id") {
        cfg.add(p + "id", vmx_id_from_api(kv.value).value_or(kv.value), kv.whole, kv.value_span);
      } else if (kv.key == "backing.deviceId") {
        const auto id = parse_api_hex_id(kv.value);
        cfg.add(p + "deviceId", id ? format_vmx_pci_id(*id) : kv.value, kv.whole, kv.value_span);
      } else if (kv.key == "backing.vendorId") {
        const auto v = parse_long(kv.value);
        const bool ok = v && *v >= -32768 && *v <= 65535;
        cfg.add(p + "vendorId",
                ok ? format_vmx_pci_id(static_cast<std::uint16_t>(*v & 0xffff)) : kv.value,
                kv.whole, kv.value_span);
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
                                            (sriov ? "an SR-IOV network adapter" : sub) +
                                            " is not read by vmxkit"});
      }
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
  std::vector<OvfDeviceGroup> envelope_groups_;
};

}  // namespace

std::vector<OvfVirtualSystem> read_ovf(const SourceFile& source) {
  pugi::xml_document doc;
  xml::load(source, doc);
  return Reader(source).read(doc.document_element());
}

}  // namespace vmxkit::vsphere
