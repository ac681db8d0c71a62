// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/configspec_xml.h"

#include <optional>
#include <pugixml.hpp>

#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::vsphere {
namespace {

using xml::attribute;
using xml::child;
using xml::local_name;
using xml::xsi_type;

class ConfigSpecReader {
 public:
  explicit ConfigSpecReader(const SourceFile& source) : pos_(source) {}

  XmlConfigSpec read(pugi::xml_node root) {
    XmlConfigSpec out;
    pugi::xml_node spec = root;
    if (local_name(root.name()) == "Envelope") {
      out.envelope = true;
      const pugi::xml_node body = child(root, "Body");
      if (!body) pos_.fail(root, "SOAP envelope without a Body");
      const pugi::xml_node op =
          body.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; });
      if (!op) pos_.fail(body, "empty SOAP Body: expected ReconfigVM_Task");
      if (local_name(op.name()) != "ReconfigVM_Task") {
        pos_.fail(op, "expected ReconfigVM_Task in the SOAP Body, found " +
                          std::string(local_name(op.name())));
      }
      const pugi::xml_node self = child(op, "_this");
      if (!self) pos_.fail(op, "ReconfigVM_Task without _this (the VirtualMachine moref)");
      const pugi::xml_attribute type = attribute(self, "type");
      if (!type || std::string_view(type.value()) != "VirtualMachine") {
        pos_.fail(self, "_this must have type=\"VirtualMachine\"");
      }
      out.vm = self.text().get();
      spec = child(op, "spec");
      if (!spec) pos_.fail(op, "ReconfigVM_Task without spec");
    }
    const std::string_view type = xsi_type(spec);
    if (!type.empty() && type != "VirtualMachineConfigSpec") {
      pos_.fail(spec, "expected a VirtualMachineConfigSpec, found xsi:type " + std::string(type));
    }
    out.spec = read_spec(spec);
    return out;
  }

  std::optional<DeviceChange> device(pugi::xml_node node) {
    DeviceChange dc;
    if (!read_device(node, dc)) return std::nullopt;
    return dc;
  }

  XmlDocument read_document(pugi::xml_node root) {
    XmlDocument out;
    pugi::xml_node op = root;
    const bool envelope = local_name(root.name()) == "Envelope";
    if (envelope) {
      const pugi::xml_node body = child(root, "Body");
      if (!body) pos_.fail(root, "SOAP envelope without a Body");
      op = first_element(body);
      if (!op) pos_.fail(body, "empty SOAP Body: expected " + std::string(kExpectedInBody));
    }
    const std::string_view name = local_name(op.name());
    if (name == "RetrievePropertiesExResponse" || name == "RetrievePropertiesResponse" ||
        name == "ContinueRetrievePropertiesExResponse") {
      out.kind = XmlDocumentKind::retrieve;
      read_retrieve_response(op, out.vms);
      return out;
    }
    if (name == "FetchResponse") {
      out.kind = XmlDocumentKind::fetch;
      const pugi::xml_node val = child(op, "returnval");
      if (!val) pos_.fail(op, "a Fetch response without a returnval");
      const std::string_view type = xsi_type(val);
      if (type != "VirtualMachineConfigInfo") {
        pos_.fail(val, "a Fetch response whose returnval is " +
                           (type.empty() ? std::string("untyped") : std::string(type)) +
                           ", not a VM's config (VirtualMachineConfigInfo): fetch the "
                           "VirtualMachine's config property");
      }
      out.vms.push_back(config_info_vm(val, {}, {}));
      return out;
    }
    if (name == "Fault") {
      const std::string_view fault = child(op, "faultstring").text().get();
      pos_.fail(op, "a SOAP Fault, not a VM configuration: " +
                        quote_for_message(fault.empty() ? "(no faultstring)" : fault));
    }
    if (envelope) {
      if (name != "ReconfigVM_Task") {
        pos_.fail(op, "expected " + std::string(kExpectedInBody) + ", found " + std::string(name));
      }
      XmlConfigSpec x = read(root);
      out.kind = XmlDocumentKind::reconfigure;
      out.vms.push_back({std::move(x.spec), x.vm, x.vm});
      return out;
    }
    const std::string_view type = xsi_type(root);
    if (type == "VirtualMachineConfigInfo" ||
        (type.empty() && (name == "VirtualMachineConfigInfo" || child(root, "hardware")))) {
      out.kind = XmlDocumentKind::configinfo;
      out.vms.push_back(config_info_vm(root, {}, {}));
      return out;
    }
    if (!type.empty() && type != "VirtualMachineConfigSpec") {
      pos_.fail(root,
                "expected a VirtualMachineConfigSpec or VirtualMachineConfigInfo, found "
                "xsi:type " +
                    std::string(type));
    }
    XmlConfigSpec x = read(root);
    out.kind = XmlDocumentKind::configspec;
    out.vms.push_back({std::move(x.spec), {}, {}});
    return out;
  }

 private:
  static constexpr std::string_view kExpectedInBody =
      "ReconfigVM_Task in the SOAP Body, or a RetrievePropertiesEx, RetrieveProperties or Fetch "
      "response with a VM's config";

  static pugi::xml_node first_element(pugi::xml_node node) {
    return node.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; });
  }

  XmlVm config_info_vm(pugi::xml_node config, std::string name, std::string moref) {
    XmlVm vm;
    vm.spec = read_config_info(config);
    vm.moref = std::move(moref);
    vm.name = !name.empty()                            ? std::move(name)
              : vm.spec.name && !vm.spec.name->empty() ? *vm.spec.name
                                                       : vm.moref;
    return vm;
  }

  // RetrievePropertiesEx and ContinueRetrievePropertiesEx return a RetrieveResult (`objects`),
  // RetrieveProperties the ObjectContents themselves. Each VirtualMachine with a `config`
  // property is one VM; objects of other types are not VMs and are left out, but a response
  // with no VM config at all is not a VM configuration.
  void read_retrieve_response(pugi::xml_node op, std::vector<XmlVm>& vms) {
    const std::string_view op_name = local_name(op.name());
    const std::string what =
        "a " +
        std::string(op_name.substr(0, op_name.size() - std::string_view("Response").size())) +
        " response";
    std::vector<std::string> others;
    for (pugi::xml_node r = op.first_child(); r; r = r.next_sibling()) {
      if (r.type() != pugi::node_element || local_name(r.name()) != "returnval") continue;
      if (op_name == "RetrievePropertiesResponse") {
        read_object_content(r, vms, others);
        continue;
      }
      for (pugi::xml_node oc = r.first_child(); oc; oc = oc.next_sibling()) {
        if (oc.type() == pugi::node_element && local_name(oc.name()) == "objects") {
          read_object_content(oc, vms, others);
        }
      }
    }
    if (!vms.empty()) return;
    std::string message = what + " with no VirtualMachine config property";
    if (others.empty()) {
      message += " (it holds no objects)";
    } else {
      message += " (it holds ";
      for (std::size_t i = 0; i < others.size() && i < 4; ++i) {
        message += (i == 0 ? "" : ", ") + others[i];
      }
      if (others.size() > 4) message += " and " + std::to_string(others.size() - 4) + " more";
      message += ")";
    }
    pos_.fail(op, message + ": retrieve the config property of VirtualMachine objects");
  }

  void read_object_content(pugi::xml_node oc, std::vector<XmlVm>& vms,
                           std::vector<std::string>& others) {
    const pugi::xml_node obj = child(oc, "obj");
    if (!obj) pos_.fail(oc, "an ObjectContent without obj (the managed object reference)");
    const std::string type = attribute(obj, "type").value();
    const std::string moref = obj.text().get();
    if (type != "VirtualMachine") {
      others.push_back((type.empty() ? std::string("an object") : type) + " " + moref);
      return;
    }
    pugi::xml_node config;
    std::string name;
    std::string properties;
    for (pugi::xml_node p = oc.first_child(); p; p = p.next_sibling()) {
      if (p.type() != pugi::node_element || local_name(p.name()) != "propSet") continue;
      const std::string_view prop = child(p, "name").text().get();
      properties += (properties.empty() ? "" : ", ") + std::string(prop);
      if (prop == "config") {
        config = child(p, "val");
        if (!config) pos_.fail(p, "the config property of " + moref + " has no val");
      } else if (prop == "name") {
        name = child(p, "val").text().get();
      }
    }
    if (!config) {
      std::string message = "VirtualMachine " + moref + " has no config property here";
      message += properties.empty() ? " (no properties" : " (only " + properties;
      if (const pugi::xml_node missing = child(oc, "missingSet")) {
        const pugi::xml_node fault = child(missing, "fault");
        const std::string_view fault_type = xsi_type(child(fault, "fault"));
        message += std::string("; missing: ") + child(missing, "path").text().get();
        if (!fault_type.empty()) message += ", " + std::string(fault_type);
      }
      pos_.fail(oc, message + "): retrieve its config property");
    }
    const std::string_view config_type = xsi_type(config);
    if (config_type != "VirtualMachineConfigInfo") {
      pos_.fail(config,
                "the config property of " + moref + " is " +
                    (config_type.empty() ? std::string("untyped") : std::string(config_type)) +
                    ", not a VirtualMachineConfigInfo");
    }
    vms.push_back(config_info_vm(config, std::move(name), moref));
  }

  ConfigSpec read_spec(pugi::xml_node node) {
    ConfigSpec s;
    s.whole = pos_.element(node);
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::string_view name = local_name(c.name());
      if (name == "numCPUs") {
        s.num_cpus = int32(c, "numCPUs");
        s.cpus_span = pos_.element(c);
      } else if (name == "numCoresPerSocket") {
        s.num_cores_per_socket = int32(c, "numCoresPerSocket");
        s.cores_span = pos_.element(c);
      } else if (name == "memoryMB") {
        s.memory_mb = integer(c, "memoryMB");
        s.memory_span = pos_.element(c);
      } else if (name == "deviceChange") {
        if (auto dc = read_device_change(c)) s.device_change.push_back(std::move(*dc));
      } else {
        read_shared_field(c, name, s);
      }
    }
    return s;
  }

  // A VirtualMachineConfigInfo as the ConfigSpec that gives a VM this configuration: the
  // hardware's CPU, memory and passthrough devices (as devices being added), the fields the
  // two types share as they are.
  ConfigSpec read_config_info(pugi::xml_node node) {
    ConfigSpec s;
    s.whole = pos_.element(node);
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::string_view name = local_name(c.name());
      if (name != "hardware") {
        read_shared_field(c, name, s);
        continue;
      }
      for (pugi::xml_node h = c.first_child(); h; h = h.next_sibling()) {
        if (h.type() != pugi::node_element) continue;
        const std::string_view field = local_name(h.name());
        if (field == "numCPU") {
          s.num_cpus = int32(h, "numCPU");
          s.cpus_span = pos_.element(h);
        } else if (field == "numCoresPerSocket") {
          s.num_cores_per_socket = int32(h, "numCoresPerSocket");
          s.cores_span = pos_.element(h);
        } else if (field == "memoryMB") {
          s.memory_mb = integer(h, "memoryMB");
          s.memory_span = pos_.element(h);
        } else if (field == "device") {
          DeviceChange dc;
          dc.whole = pos_.element(h);
          if (read_device(h, dc)) s.device_change.push_back(std::move(dc));
        }
      }
    }
    return s;
  }

  // The fields VirtualMachineConfigSpec and VirtualMachineConfigInfo share.
  void read_shared_field(pugi::xml_node c, std::string_view name, ConfigSpec& s) {
    if (name == "name") {
      s.name = c.text().get();
      s.name_span = pos_.element(c);
    } else if (name == "guestId") {
      s.guest_id = c.text().get();
      s.guest_id_span = pos_.element(c);
    } else if (name == "memoryAllocation") {
      if (const pugi::xml_node r = child(c, "reservation")) {
        s.memory_reservation_mb = integer(r, "reservation");
        s.reservation_span = pos_.element(r);
      }
      if (const pugi::xml_node l = child(c, "limit")) {
        s.memory_limit_mb = integer(l, "limit");
        s.limit_span = pos_.element(l);
      }
    } else if (name == "extraConfig") {
      s.extra_config.push_back(read_option(c));
    } else if (name == "firmware") {
      s.firmware = c.text().get();
      s.firmware_span = pos_.element(c);
    } else if (name == "memoryReservationLockedToMax") {
      s.memory_reservation_locked_to_max = boolean(c);
      s.locked_span = pos_.element(c);
    } else if (name == "nestedHVEnabled") {
      s.nested_hv_enabled = boolean(c);
      s.nested_span = pos_.element(c);
    } else if (name == "deviceGroups") {
      read_device_groups(c, s);
    }
  }

  // `deviceGroups` (VirtualMachineVirtualDeviceGroups): its `deviceGroup` entries, a vendor
  // device group (VirtualMachineVirtualDeviceGroupsVendorDeviceGroup) with `deviceGroupName`.
  void read_device_groups(pugi::xml_node node, ConfigSpec& s) {
    for (pugi::xml_node g = node.first_child(); g; g = g.next_sibling()) {
      if (g.type() != pugi::node_element || local_name(g.name()) != "deviceGroup") continue;
      DeviceGroupSpec d;
      d.whole = pos_.element(g);
      d.group_instance_key = int32(required(g, "groupInstanceKey"), "groupInstanceKey");
      const std::string_view type = xsi_type(g);
      if (const pugi::xml_node name = child(g, "deviceGroupName")) {
        d.device_group_name = name.text().get();
      } else if (type == "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup") {
        pos_.fail(g, "a VendorDeviceGroup without <deviceGroupName>");
      }
      if (const pugi::xml_node info = child(g, "deviceInfo")) {
        if (const pugi::xml_node l = child(info, "label")) d.label = l.text().get();
        if (const pugi::xml_node m = child(info, "summary")) d.summary = m.text().get();
      }
      s.device_groups.push_back(std::move(d));
    }
  }

  OptionValue read_option(pugi::xml_node node) {
    OptionValue o;
    o.whole = pos_.element(node);
    const pugi::xml_node key = child(node, "key");
    if (!key) pos_.fail(node, "extraConfig without <key>");
    o.key = key.text().get();
    o.key_span = pos_.text(key);
    if (const pugi::xml_node value = child(node, "value")) {
      o.value = value.text().get();
      o.value_span = pos_.text(value);
      const std::string_view t = xsi_type(value);
      if (!t.empty()) o.value_type = std::string(t);
    } else {
      o.value_span = {o.key_span.end, o.key_span.end};
    }
    return o;
  }

  std::optional<DeviceChange> read_device_change(pugi::xml_node node) {
    DeviceChange dc;
    dc.whole = pos_.element(node);
    const pugi::xml_node op = child(node, "operation");
    if (op) {
      dc.operation = op.text().get();
      dc.operation_span = pos_.element(op);
      if (dc.operation != "add" && dc.operation != "remove" && dc.operation != "edit") {
        pos_.fail(op,
                  "operation must be add, remove or edit, not " + quote_for_message(dc.operation));
      }
    } else {
      dc.operation.clear();
    }
    const pugi::xml_node device = child(node, "device");
    if (!device) pos_.fail(node, "deviceChange without <device>");
    if (!read_device(device, dc)) return std::nullopt;
    return dc;
  }

  // A VirtualDevice (a ConfigSpec's deviceChange.device or a ConfigInfo's hardware.device);
  // false for devices that are not passthrough.
  bool read_device(pugi::xml_node device, DeviceChange& dc) {
    const std::string_view type = xsi_type(device);
    if (type == "VirtualPCIPassthrough") {
      dc.type = DeviceType::pci_passthrough;
    } else if (type == "VirtualSriovEthernetCard") {
      dc.type = DeviceType::sriov_ethernet;
    } else if (type.empty()) {
      pos_.fail(device,
                "<device> needs an xsi:type (VirtualPCIPassthrough, ...): without one its "
                "type is unknown, as in a document serialized for an API version older than "
                "the device's type (pyVmomi's SoapAdapter.Serialize(obj) without version= "
                "writes vSphere 2.0's types; pass the session's, version=si._stub.version)");
    } else {
      return false;  // a disk, a NIC, ...: not passthrough, not vmxkit's business
    }
    dc.device_span = pos_.element(device);
    const pugi::xml_node key = child(device, "key");
    if (!key) pos_.fail(device, "<device> without <key>");
    const std::int64_t k = integer(key, "key");
    if (k < INT32_MIN || k > INT32_MAX) pos_.fail(key, "key is out of the range of xsd:int");
    dc.key = static_cast<std::int32_t>(k);
    if (const pugi::xml_node backing = child(device, "backing")) read_backing(backing, dc);
    if (const pugi::xml_node group = child(device, "deviceGroupInfo")) {
      DeviceGroupInfo info;
      info.whole = pos_.element(group);
      info.group_instance_key = int32(required(group, "groupInstanceKey"), "groupInstanceKey");
      info.sequence_id = int32(required(group, "sequenceId"), "sequenceId");
      dc.group = info;
    }
    if (const pugi::xml_node sriov = child(device, "sriovBacking")) {
      if (const pugi::xml_node pf = child(sriov, "physicalFunctionBacking")) {
        dc.physical_function = read_device_backing(pf);
      }
    }
    if (const pugi::xml_node dvx = child(device, "dvxBackingInfo")) dc.dvx = read_dvx(dvx);
    return true;
  }

  // VirtualPCIPassthroughDvxBackingInfo: `deviceClass` and the `configParams` OptionValues.
  DvxBacking read_dvx(pugi::xml_node node) {
    DvxBacking d;
    d.whole = pos_.element(node);
    d.device_class = child(node, "deviceClass").text().get();
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element || local_name(c.name()) != "configParams") continue;
      const OptionValue o = read_option(c);
      d.config_params.emplace_back(o.key, o.value);
    }
    return d;
  }

  void read_backing(pugi::xml_node node, DeviceChange& dc) {
    dc.backing_span = pos_.element(node);
    const std::string_view type = xsi_type(node);
    if (type == "VirtualPCIPassthroughDeviceBackingInfo") {
      dc.backing_type = BackingType::device;
      dc.device = read_device_backing(node);
    } else if (type == "VirtualPCIPassthroughVmiopBackingInfo") {
      dc.backing_type = BackingType::vmiop;
      const pugi::xml_node vgpu = child(node, "vgpu");
      dc.vgpu = vgpu.text().get();
      dc.vgpu_span = vgpu ? pos_.text(vgpu) : dc.backing_span;
    } else if (type == "VirtualPCIPassthroughDynamicBackingInfo") {
      dc.backing_type = BackingType::dynamic;
      dc.allowed_span = dc.backing_span;
      bool first = true;
      for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        const std::string_view name = local_name(c.name());
        if (name == "allowedDevice") {
          AllowedDevice a;
          a.whole = pos_.element(c);
          if (first) dc.allowed_span = a.whole;
          first = false;
          a.vendor_id = int32(required(c, "vendorId"), "vendorId");
          a.device_id = int32(required(c, "deviceId"), "deviceId");
          if (const auto n = child(c, "subVendorId")) a.sub_vendor_id = int32(n, "subVendorId");
          if (const auto n = child(c, "subDeviceId")) a.sub_device_id = int32(n, "subDeviceId");
          if (const auto n = child(c, "revisionId")) {
            const auto v = parse_short(n.text().get());
            if (!v) pos_.fail(n, "revisionId must be an xsd:short");
            a.revision_id = *v;
          }
          dc.allowed_devices.push_back(a);
        } else if (name == "customLabel") {
          dc.custom_label = c.text().get();
        }
      }
    } else if (type == "VirtualPCIPassthroughDvxBackingInfo") {
      dc.backing_type = BackingType::dvx;
      dc.dvx = read_dvx(node);
    } else if (type == "VirtualEthernetCardNetworkBackingInfo") {
      dc.backing_type = BackingType::network;
      dc.network_name = child(node, "deviceName").text().get();
    } else if (type == "VirtualEthernetCardDistributedVirtualPortBackingInfo") {
      dc.backing_type = BackingType::dvport;
      const pugi::xml_node port = child(node, "port");
      dc.switch_uuid = child(port, "switchUuid").text().get();
      dc.portgroup_key = child(port, "portgroupKey").text().get();
    } else if (type.empty()) {
      pos_.fail(node, "<backing> needs an xsi:type");
    } else {
      pos_.fail(node,
                "unsupported backing type " + std::string(type) + " for a passthrough device");
    }
  }

  DeviceBacking read_device_backing(pugi::xml_node node) {
    DeviceBacking b;
    b.whole = pos_.element(node);
    b.device_name = child(node, "deviceName").text().get();
    auto text = [&](std::string_view name, std::string& value, SourceSpan& span) {
      const pugi::xml_node n = child(node, name);
      value = n.text().get();
      span = n ? pos_.text(n) : b.whole;
    };
    text("id", b.id, b.id_span);
    text("deviceId", b.device_id, b.device_id_span);
    text("systemId", b.system_id, b.system_id_span);
    if (const pugi::xml_node v = child(node, "vendorId")) {
      const auto n = parse_long(v.text().get());
      if (!n || *n < -32768 || *n > 65535) {
        pos_.fail(v,
                  "vendorId must be a PCI vendor id as an xsd:short (0x10de is 4318, "
                  "0x8086 is -32634), not " +
                      quote_for_message(v.text().get()));
      }
      b.vendor_id = static_cast<std::int32_t>(*n);
      b.vendor_id_span = pos_.text(v);
    } else {
      b.vendor_id_span = b.whole;
    }
    return b;
  }

  pugi::xml_node required(pugi::xml_node node, std::string_view name) {
    const pugi::xml_node c = child(node, name);
    if (!c)
      pos_.fail(node, "<" + std::string(local_name(node.name())) + "> without <" +
                          std::string(name) + ">");
    return c;
  }

  std::int64_t integer(pugi::xml_node node, std::string_view what) {
    const auto v = parse_long(node.text().get());
    if (!v) {
      pos_.fail(node, std::string(what) + " must be an integer, not " +
                          quote_for_message(node.text().get()));
    }
    return *v;
  }

  std::int32_t int32(pugi::xml_node node, std::string_view what) {
    const std::int64_t v = integer(node, what);
    if (v < INT32_MIN || v > INT32_MAX) pos_.fail(node, std::string(what) + " is not an xsd:int");
    return static_cast<std::int32_t>(v);
  }

  bool boolean(pugi::xml_node node) {
    const std::string_view t = node.text().get();
    if (t == "true" || t == "1") return true;
    if (t == "false" || t == "0") return false;
    pos_.fail(node, std::string(local_name(node.name())) + " must be true or false, not " +
                        quote_for_message(t));
  }

  xml::Positions pos_;
};

// --- writing ---

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void spec_fields(const ConfigSpec& s, int indent) {
    if (s.name) leaf(indent, "name", *s.name);
    if (s.guest_id) leaf(indent, "guestId", *s.guest_id);
    if (s.num_cpus) leaf(indent, "numCPUs", std::to_string(*s.num_cpus));
    if (s.num_cores_per_socket) {
      leaf(indent, "numCoresPerSocket", std::to_string(*s.num_cores_per_socket));
    }
    if (s.memory_mb) leaf(indent, "memoryMB", std::to_string(*s.memory_mb));
    for (const DeviceChange& dc : s.device_change) device_change(dc, indent);
    if (s.memory_reservation_mb || s.memory_limit_mb) {
      open(indent, "memoryAllocation", {});
      if (s.memory_reservation_mb) {
        leaf(indent + 1, "reservation", std::to_string(*s.memory_reservation_mb));
      }
      if (s.memory_limit_mb) leaf(indent + 1, "limit", std::to_string(*s.memory_limit_mb));
      close(indent, "memoryAllocation");
    }
    for (const OptionValue& o : s.extra_config) {
      open(indent, "extraConfig", "OptionValue");
      leaf(indent + 1, "key", o.key);
      line(indent + 1);
      out_ += "<value xsi:type=\"xsd:";
      out_ += o.value_type;
      out_ += "\">";
      xml::escape_append(o.value, out_);
      out_ += "</value>\n";
      close(indent, "extraConfig");
    }
    if (s.firmware) leaf(indent, "firmware", *s.firmware);
    if (s.memory_reservation_locked_to_max) {
      leaf(indent, "memoryReservationLockedToMax",
           *s.memory_reservation_locked_to_max ? "true" : "false");
    }
    if (s.nested_hv_enabled)
      leaf(indent, "nestedHVEnabled", *s.nested_hv_enabled ? "true" : "false");
    if (!s.device_groups.empty()) {
      open(indent, "deviceGroups", "VirtualMachineVirtualDeviceGroups");
      for (const DeviceGroupSpec& g : s.device_groups) {
        open(indent + 1, "deviceGroup",
             g.device_group_name ? "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup"
                                 : "VirtualMachineVirtualDeviceGroupsDeviceGroup");
        leaf(indent + 2, "groupInstanceKey", std::to_string(g.group_instance_key));
        if (g.label || g.summary) {
          open(indent + 2, "deviceInfo", "Description");
          leaf(indent + 3, "label", g.label.value_or(""));
          leaf(indent + 3, "summary", g.summary.value_or(""));
          close(indent + 2, "deviceInfo");
        }
        if (g.device_group_name) leaf(indent + 2, "deviceGroupName", *g.device_group_name);
        close(indent + 1, "deviceGroup");
      }
      close(indent, "deviceGroups");
    }
  }

 private:
  void device_change(const DeviceChange& dc, int indent) {
    open(indent, "deviceChange", "VirtualDeviceConfigSpec");
    if (!dc.operation.empty()) leaf(indent + 1, "operation", dc.operation);
    const int d = indent + 1;
    open(d, "device",
         dc.type == DeviceType::sriov_ethernet ? "VirtualSriovEthernetCard"
                                               : "VirtualPCIPassthrough");
    leaf(d + 1, "key", std::to_string(dc.key));
    backing(dc, d + 1);
    if (dc.group) {
      open(d + 1, "deviceGroupInfo", "VirtualDeviceDeviceGroupInfo");
      leaf(d + 2, "groupInstanceKey", std::to_string(dc.group->group_instance_key));
      leaf(d + 2, "sequenceId", std::to_string(dc.group->sequence_id));
      close(d + 1, "deviceGroupInfo");
    }
    if (dc.type == DeviceType::sriov_ethernet && dc.physical_function) {
      open(d + 1, "sriovBacking", "VirtualSriovEthernetCardSriovBackingInfo");
      open(d + 2, "physicalFunctionBacking", "VirtualPCIPassthroughDeviceBackingInfo");
      device_backing_fields(*dc.physical_function, d + 3);
      close(d + 2, "physicalFunctionBacking");
      close(d + 1, "sriovBacking");
    }
    if (dc.type == DeviceType::sriov_ethernet && dc.dvx) {
      open(d + 1, "dvxBackingInfo", "VirtualPCIPassthroughDvxBackingInfo");
      dvx_fields(*dc.dvx, d + 2);
      close(d + 1, "dvxBackingInfo");
    }
    close(d, "device");
    close(indent, "deviceChange");
  }

  void backing(const DeviceChange& dc, int indent) {
    switch (dc.backing_type) {
      case BackingType::none:
        return;
      case BackingType::device:
        open(indent, "backing", "VirtualPCIPassthroughDeviceBackingInfo");
        device_backing_fields(dc.device, indent + 1);
        break;
      case BackingType::vmiop:
        open(indent, "backing", "VirtualPCIPassthroughVmiopBackingInfo");
        leaf(indent + 1, "vgpu", dc.vgpu);
        break;
      case BackingType::dynamic:
        open(indent, "backing", "VirtualPCIPassthroughDynamicBackingInfo");
        leaf(indent + 1, "deviceName", "");
        for (const AllowedDevice& a : dc.allowed_devices) {
          open(indent + 1, "allowedDevice", {});
          leaf(indent + 2, "vendorId", std::to_string(a.vendor_id));
          leaf(indent + 2, "deviceId", std::to_string(a.device_id));
          if (a.sub_vendor_id) leaf(indent + 2, "subVendorId", std::to_string(*a.sub_vendor_id));
          if (a.sub_device_id) leaf(indent + 2, "subDeviceId", std::to_string(*a.sub_device_id));
          if (a.revision_id) leaf(indent + 2, "revisionId", std::to_string(*a.revision_id));
          close(indent + 1, "allowedDevice");
        }
        if (!dc.custom_label.empty()) leaf(indent + 1, "customLabel", dc.custom_label);
        break;
      case BackingType::network:
        open(indent, "backing", "VirtualEthernetCardNetworkBackingInfo");
        leaf(indent + 1, "deviceName", dc.network_name);
        break;
      case BackingType::dvport:
        open(indent, "backing", "VirtualEthernetCardDistributedVirtualPortBackingInfo");
        open(indent + 1, "port", {});
        leaf(indent + 2, "switchUuid", dc.switch_uuid);
        leaf(indent + 2, "portgroupKey", dc.portgroup_key);
        close(indent + 1, "port");
        break;
      case BackingType::dvx:
        open(indent, "backing", "VirtualPCIPassthroughDvxBackingInfo");
        if (dc.dvx) dvx_fields(*dc.dvx, indent + 1);
        break;
    }
    close(indent, "backing");
  }

  void dvx_fields(const DvxBacking& dvx, int indent) {
    leaf(indent, "deviceClass", dvx.device_class);
    for (const auto& [key, value] : dvx.config_params) {
      open(indent, "configParams", "OptionValue");
      leaf(indent + 1, "key", key);
      line(indent + 1);
      out_ += "<value xsi:type=\"xsd:string\">";
      xml::escape_append(value, out_);
      out_ += "</value>\n";
      close(indent, "configParams");
    }
  }

  void device_backing_fields(const DeviceBacking& b, int indent) {
    leaf(indent, "deviceName", b.device_name);  // minOccurs=1: always, even empty
    leaf(indent, "id", b.id);
    leaf(indent, "deviceId", b.device_id);
    leaf(indent, "systemId", b.system_id);
    leaf(indent, "vendorId", std::to_string(b.vendor_id));
  }

  void line(int indent) { out_.append(static_cast<std::size_t>(indent) * 2, ' '); }

  void open(int indent, std::string_view name, std::string_view type) {
    line(indent);
    out_ += '<';
    out_ += name;
    if (!type.empty()) {
      out_ += " xsi:type=\"";
      out_ += type;
      out_ += '"';
    }
    out_ += ">\n";
  }

  void close(int indent, std::string_view name) {
    line(indent);
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }

  void leaf(int indent, std::string_view name, std::string_view text) {
    line(indent);
    out_ += '<';
    out_ += name;
    out_ += '>';
    xml::escape_append(text, out_);
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }

  std::string& out_;
};

std::string namespaces() {
  return std::string(" xmlns:xsd=\"") + std::string(kXsdNs) + "\" xmlns:xsi=\"" +
         std::string(kXsiNs) + "\"";
}

}  // namespace

XmlConfigSpec read_configspec_xml(const SourceFile& source) {
  pugi::xml_document doc;
  xml::load(source, doc);
  return ConfigSpecReader(source).read(doc.document_element());
}

std::optional<DeviceChange> read_vim25_device(const SourceFile& source, pugi::xml_node device) {
  return ConfigSpecReader(source).device(device);
}

XmlDocument read_vim25_xml(const SourceFile& source) {
  pugi::xml_document doc;
  xml::load(source, doc);
  return ConfigSpecReader(source).read_document(doc.document_element());
}

std::string write_configspec_xml(const ConfigSpec& spec) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<spec xmlns=\"";
  out += kVim25Ns;
  out += '"';
  out += namespaces();
  out += ">\n";
  Writer(out).spec_fields(spec, 1);
  out += "</spec>\n";
  return out;
}

std::string write_soap_envelope(const ConfigSpec& spec, std::string_view vm) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<soapenv:Envelope xmlns:soapenv=\"";
  out += kSoapEnvNs;
  out += '"';
  out += namespaces();
  out += ">\n  <soapenv:Body>\n    <ReconfigVM_Task xmlns=\"";
  out += kVim25Ns;
  out += "\">\n      <_this type=\"VirtualMachine\">";
  xml::escape_append(vm, out);
  out += "</_this>\n      <spec>\n";
  Writer(out).spec_fields(spec, 4);
  out += "      </spec>\n    </ReconfigVM_Task>\n  </soapenv:Body>\n</soapenv:Envelope>\n";
  return out;
}

}  // namespace vmxkit::vsphere
