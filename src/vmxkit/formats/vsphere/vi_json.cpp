// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/vi_json.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/json.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/vim25_types.h"

namespace vmxkit::vsphere {
namespace {

using json::Value;
using Type = json::Value::Type;

// The primitive boxes VI/JSON puts in anyType fields, and the JSON type each one holds.
const std::set<std::string, std::less<>> kStringBoxes = {"string", "dateTime", "binary"};
const std::set<std::string, std::less<>> kNumberBoxes = {"byte", "short", "int",
                                                         "long", "float", "double"};

// A name as messages show it: as it is when it is a plain identifier, else quoted and escaped.
std::string shown(std::string_view name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
  });
  return plain ? std::string(name) : quote_for_message(name);
}

class ViJsonReader : json::TypedReader {
 public:
  using TypedReader::TypedReader;

  JsonConfigSpec read(const Value& root) {
    JsonConfigSpec out;
    const Value& spec = top_level(root, out.type_name);
    check_members(spec, out.type_name);
    ConfigSpec& s = out.spec;
    s.whole = spec.span;
    read_text(spec, "name", s.name, s.name_span);
    read_text(spec, "guestId", s.guest_id, s.guest_id_span);
    if (out.type_name == "VirtualMachineConfigInfo") {
      read_hardware(spec, s);
    } else {
      read_int32(spec, "numCPUs", s.num_cpus, s.cpus_span);
      read_int32(spec, "numCoresPerSocket", s.num_cores_per_socket, s.cores_span);
      read_memory(spec, s);
      if (const Value* changes = member(spec, "deviceChange")) {
        for (const Value& c : array(*changes, "deviceChange")) {
          if (auto dc = read_device_change(c)) s.device_change.push_back(std::move(*dc));
        }
      }
    }
    read_allocation(spec, s);
    if (const Value* extra = member(spec, "extraConfig")) {
      for (const Value& o : array(*extra, "extraConfig")) s.extra_config.push_back(option(o));
    }
    read_text(spec, "firmware", s.firmware, s.firmware_span);
    read_flag(spec, "memoryReservationLockedToMax", s.memory_reservation_locked_to_max,
              s.locked_span);
    read_flag(spec, "nestedHVEnabled", s.nested_hv_enabled, s.nested_span);
    if (const Value* groups = member(spec, "deviceGroups")) read_device_groups(*groups, s);
    return out;
  }

 private:
  // The spec of a document: the top level (a ConfigSpec or ConfigInfo with _typeName) or a
  // ReconfigVM_Task body's `spec`; sets `type_name`.
  const Value& top_level(const Value& root, std::string& type_name) {
    if (!root.is(Type::object)) {
      fail(root, "a JSON document whose top level is " + json::describe(root) +
                     ", not an object: expected a VirtualMachineConfigSpec, a "
                     "VirtualMachineConfigInfo or a ReconfigVM_Task body {\"spec\": ...}");
    }
    if (const Value* t = root.find("_typeName")) {
      type_name = text(*t, "_typeName");
      if (type_name != "VirtualMachineConfigSpec" && type_name != "VirtualMachineConfigInfo") {
        fail(*t, "expected _typeName VirtualMachineConfigSpec or VirtualMachineConfigInfo, found " +
                     shown(type_name));
      }
      return root;
    }
    if (root.find("spec") == nullptr) {
      fail(root,
           "a JSON object without _typeName: not a vSphere document (expected _typeName "
           "VirtualMachineConfigSpec or VirtualMachineConfigInfo, or a ReconfigVM_Task "
           "body {\"spec\": ...})");
    }
    // ReconfigVM_Task's body: the request's parameters, whose `spec` has a declared type.
    check_members(root, "ReconfigVMRequestType");
    const Value& spec = *root.find("spec");
    object(spec, "spec");
    type_name = "VirtualMachineConfigSpec";
    expect_type(spec, type_name);
    return spec;
  }

  // A ConfigInfo's `hardware`: CPUs, memory and the devices the VM has.
  void read_hardware(const Value& info, ConfigSpec& s) {
    const Value* hw = member(info, "hardware");
    if (hw == nullptr) return;
    object(*hw, "hardware");
    expect_type(*hw, "VirtualHardware");
    check_members(*hw, "VirtualHardware");
    read_int32(*hw, "numCPU", s.num_cpus, s.cpus_span);
    read_int32(*hw, "numCoresPerSocket", s.num_cores_per_socket, s.cores_span);
    read_memory(*hw, s);
    if (const Value* devices = member(*hw, "device")) {
      for (const Value& d : array(*devices, "device")) {
        DeviceChange dc;
        dc.whole = d.span;
        if (read_device(d, dc)) s.device_change.push_back(std::move(dc));
      }
    }
  }

  void read_allocation(const Value& spec, ConfigSpec& s) {
    const Value* alloc = member(spec, "memoryAllocation");
    if (alloc == nullptr) return;
    object(*alloc, "memoryAllocation");
    expect_type(*alloc, "ResourceAllocationInfo");
    check_members(*alloc, "ResourceAllocationInfo");
    if (const Value* r = member(*alloc, "reservation")) {
      s.memory_reservation_mb = integer(*r, "reservation");
      s.reservation_span = r->span;
    }
    if (const Value* l = member(*alloc, "limit")) {
      s.memory_limit_mb = integer(*l, "limit");
      s.limit_span = l->span;
    }
  }

  void read_flag(const Value& spec, std::string_view name, std::optional<bool>& out,
                 SourceSpan& span) {
    const Value* v = member(spec, name);
    if (v == nullptr) return;
    if (!v->is(Type::boolean)) {
      fail(*v, std::string(name) + " must be true or false, not " + json::describe(*v));
    }
    out = v->boolean;
    span = v->span;
  }

  // A member that is there and not null (VI/JSON writes an unset property as null or not at all).
  static const Value* member(const Value& obj, std::string_view name) {
    const Value* v = obj.find(name);
    return v == nullptr || v->is(Type::null) ? nullptr : v;
  }

  // Members of a vSphere type vmxkit maps must be members of that type: one that is not is a
  // typo (`memoryMb`), and reading past it would drop what the user meant. Members the type has
  // and vmxkit does not model are fine: they are not vmxkit's business.
  void check_members(const Value& obj, std::string_view type) const {
    const std::vector<std::string_view>* known = vim25_members(type);
    if (known == nullptr) return;
    for (const json::Member& m : obj.members) {
      if (m.key == "_typeName" || std::find(known->begin(), known->end(), m.key) != known->end()) {
        continue;
      }
      std::string message = quote_for_message(m.key) + " is not a member of " + std::string(type);
      for (const std::string_view k : *known) {
        if (iequals(k, m.key)) {
          message += " (did you mean \"" + std::string(k) + "\"?)";
          break;
        }
      }
      fail_at(m.key_span.begin, message);
    }
  }

  void read_text(const Value& obj, const char* name, std::optional<std::string>& out,
                 SourceSpan& span) const {
    if (const Value* v = member(obj, name)) {
      out = text(*v, name);
      span = v->span;
    }
  }

  void read_int32(const Value& obj, const char* name, std::optional<std::int32_t>& out,
                  SourceSpan& span) const {
    if (const Value* v = member(obj, name)) {
      out = int32(*v, name);
      span = v->span;
    }
  }

  void read_memory(const Value& obj, ConfigSpec& s) const {
    if (const Value* mem = member(obj, "memoryMB")) {
      s.memory_mb = integer(*mem, "memoryMB");
      s.memory_span = mem->span;
    }
  }

  // The _typeName of an object whose declared type is `expected`, when it has one.
  void expect_type(const Value& obj, std::string_view expected) const {
    const Value* t = obj.find("_typeName");
    if (t != nullptr && text(*t, "_typeName") != expected) {
      fail(*t, "expected _typeName " + std::string(expected) + ", found " + shown(t->text));
    }
  }

  OptionValue option(const Value& v) const {
    if (!v.is(Type::object)) fail(v, "extraConfig entries must be OptionValue objects");
    expect_type(v, "OptionValue");
    check_members(v, "OptionValue");
    OptionValue o;
    o.whole = v.span;
    const Value* key = v.find("key");
    if (key == nullptr) fail(v, "OptionValue without key");
    o.key = text(*key, "key");
    o.key_span = key->span;
    const Value* value = v.find("value");
    if (value == nullptr || value->is(Type::null)) {
      o.value_span = {key->span.end, key->span.end};
      return o;
    }
    o.value_span = value->span;
    if (value->is(Type::string)) {  // unboxed: accepted, as govmomi's decoder does
      o.value = value->text;
      return o;
    }
    if (!value->is(Type::object)) {
      fail(*value,
           "OptionValue value must be a boxed value such as "
           "{\"_typeName\": \"string\", \"_value\": \"TRUE\"}, not " +
               json::describe(*value));
    }
    const Value* t = value->find("_typeName");
    const Value* inner = value->find("_value");
    if (t == nullptr || inner == nullptr) {
      fail(*value, "a boxed value needs _typeName and _value");
    }
    for (const json::Member& m : value->members) {
      if (m.key != "_typeName" && m.key != "_value") {
        fail_at(m.key_span.begin, quote_for_message(m.key) +
                                      " in a boxed value, which holds _typeName and _value only");
      }
    }
    const std::string type = text(*t, "_typeName");
    o.value_type = type;
    o.value_span = inner->span;
    if (kStringBoxes.count(type) != 0) {
      if (!inner->is(Type::string)) {
        fail(*inner,
             "_value of a boxed " + type + " must be a JSON string, not " + json::describe(*inner));
      }
      o.value = inner->text;
    } else if (type == "boolean") {
      if (!inner->is(Type::boolean)) {
        fail(*inner,
             "_value of a boxed boolean must be true or false, not " + json::describe(*inner));
      }
      o.value = inner->boolean ? "true" : "false";
    } else if (kNumberBoxes.count(type) != 0) {
      if (!inner->is(Type::number)) {
        fail(*inner,
             "_value of a boxed " + type + " must be a JSON number, not " + json::describe(*inner));
      }
      o.value = inner->text;
    } else {
      fail(*t, "unknown boxed type " + quote_for_message(type) +
                   ": expected string, boolean, byte, short, int, long, float, double, "
                   "dateTime or binary");
    }
    return o;
  }

  std::optional<DeviceChange> read_device_change(const Value& v) {
    if (!v.is(Type::object))
      fail(v, "deviceChange entries must be VirtualDeviceConfigSpec objects");
    std::string type = "VirtualDeviceConfigSpec";
    if (const Value* t = v.find("_typeName")) {
      type = text(*t, "_typeName");
      if (type != "VirtualDeviceConfigSpec" && type != "VirtualDiskConfigSpec") {
        fail(*t, "expected _typeName VirtualDeviceConfigSpec, found " + shown(type));
      }
    }
    check_members(v, type);
    DeviceChange dc;
    dc.whole = v.span;
    dc.operation.clear();
    if (const Value* op = member(v, "operation")) {
      dc.operation = text(*op, "operation");
      dc.operation_span = op->span;
      if (dc.operation != "add" && dc.operation != "remove" && dc.operation != "edit") {
        fail(*op, "operation must be add, remove or edit, not " + quote_for_message(dc.operation));
      }
    }
    const Value* device = member(v, "device");
    if (device == nullptr) fail(v, "deviceChange without device");
    if (!read_device(*device, dc)) return std::nullopt;
    return dc;
  }

  // False for devices that are not passthrough.
  bool read_device(const Value& device, DeviceChange& dc) {
    if (!device.is(Type::object)) fail(device, "device must be an object");
    const Value* t = device.find("_typeName");
    if (t == nullptr) fail(device, "device needs a _typeName (VirtualPCIPassthrough, ...)");
    const std::string type = text(*t, "_typeName");
    if (type == "VirtualPCIPassthrough") {
      dc.type = DeviceType::pci_passthrough;
    } else if (type == "VirtualSriovEthernetCard") {
      dc.type = DeviceType::sriov_ethernet;
    } else if (is_virtual_device_type(type)) {
      return false;  // a disk, a NIC, ...: not passthrough, not vmxkit's business
    } else {
      fail(*t, "unknown device type " + shown(type) +
                   ": not a vSphere VirtualDevice (VirtualPCIPassthrough, VirtualDisk, ...)");
    }
    check_members(device, type);
    dc.device_span = device.span;
    if (const Value* key = member(device, "key")) dc.key = int32(*key, "key");
    if (const Value* backing = member(device, "backing")) read_backing(*backing, dc);
    if (const Value* group = member(device, "deviceGroupInfo")) {
      object(*group, "deviceGroupInfo");
      expect_type(*group, "VirtualDeviceDeviceGroupInfo");
      check_members(*group, "VirtualDeviceDeviceGroupInfo");
      DeviceGroupInfo info;
      info.whole = group->span;
      info.group_instance_key = int32(required(*group, "groupInstanceKey"), "groupInstanceKey");
      info.sequence_id = int32(required(*group, "sequenceId"), "sequenceId");
      dc.group = info;
    }
    if (const Value* sriov = member(device, "sriovBacking")) {
      object(*sriov, "sriovBacking");
      expect_type(*sriov, "VirtualSriovEthernetCardSriovBackingInfo");
      check_members(*sriov, "VirtualSriovEthernetCardSriovBackingInfo");
      if (const Value* pf = member(*sriov, "physicalFunctionBacking")) {
        dc.physical_function = device_backing(*pf);
      }
    }
    if (const Value* dvx = member(device, "dvxBackingInfo")) dc.dvx = read_dvx(*dvx);
    return true;
  }

  // `deviceGroups` (VirtualMachineVirtualDeviceGroups) and its `deviceGroup` entries.
  void read_device_groups(const Value& v, ConfigSpec& s) {
    object(v, "deviceGroups");
    expect_type(v, "VirtualMachineVirtualDeviceGroups");
    check_members(v, "VirtualMachineVirtualDeviceGroups");
    const Value* list = member(v, "deviceGroup");
    if (list == nullptr) return;
    for (const Value& g : array(*list, "deviceGroup")) {
      object(g, "a deviceGroup entry");
      std::string type = "VirtualMachineVirtualDeviceGroupsDeviceGroup";
      if (const Value* t = g.find("_typeName")) {
        type = text(*t, "_typeName");
        if (type != "VirtualMachineVirtualDeviceGroupsDeviceGroup" &&
            type != "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup") {
          fail(*t, "expected _typeName VirtualMachineVirtualDeviceGroupsVendorDeviceGroup, found " +
                       shown(type));
        }
      }
      check_members(g, type);
      DeviceGroupSpec d;
      d.whole = g.span;
      d.group_instance_key = int32(required(g, "groupInstanceKey"), "groupInstanceKey");
      if (const Value* name = member(g, "deviceGroupName")) {
        d.device_group_name = text(*name, "deviceGroupName");
      } else if (type == "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup") {
        fail(g, "a VendorDeviceGroup without deviceGroupName");
      }
      if (const Value* info = member(g, "deviceInfo")) {
        object(*info, "deviceInfo");
        check_members(*info, "Description");
        if (const Value* l = member(*info, "label")) d.label = text(*l, "label");
        if (const Value* m = member(*info, "summary")) d.summary = text(*m, "summary");
      }
      s.device_groups.push_back(std::move(d));
    }
  }

  void read_backing(const Value& b, DeviceChange& dc) {
    if (!b.is(Type::object)) fail(b, "backing must be an object");
    dc.backing_span = b.span;
    const Value* t = b.find("_typeName");
    if (t == nullptr) fail(b, "backing needs a _typeName");
    const std::string type = text(*t, "_typeName");
    if (type == "VirtualPCIPassthroughDeviceBackingInfo") {
      dc.backing_type = BackingType::device;
      dc.device = device_backing(b);
    } else if (type == "VirtualPCIPassthroughVmiopBackingInfo") {
      check_members(b, type);
      dc.backing_type = BackingType::vmiop;
      if (const Value* vgpu = member(b, "vgpu")) {
        dc.vgpu = text(*vgpu, "vgpu");
        dc.vgpu_span = vgpu->span;
      }
    } else if (type == "VirtualPCIPassthroughDynamicBackingInfo") {
      check_members(b, type);
      dc.backing_type = BackingType::dynamic;
      dc.allowed_span = b.span;
      if (const Value* list = member(b, "allowedDevice")) {
        for (const Value& a : array(*list, "allowedDevice")) {
          object(a, "allowedDevice");
          expect_type(a, "VirtualPCIPassthroughAllowedDevice");
          check_members(a, "VirtualPCIPassthroughAllowedDevice");
          AllowedDevice ad;
          ad.whole = a.span;
          if (dc.allowed_devices.empty()) dc.allowed_span = a.span;
          ad.vendor_id = int32(required(a, "vendorId"), "vendorId");
          ad.device_id = int32(required(a, "deviceId"), "deviceId");
          if (const Value* n = member(a, "subVendorId"))
            ad.sub_vendor_id = int32(*n, "subVendorId");
          if (const Value* n = member(a, "subDeviceId"))
            ad.sub_device_id = int32(*n, "subDeviceId");
          if (const Value* n = member(a, "revisionId")) {
            const std::int64_t r = integer(*n, "revisionId");
            if (r < -32768 || r > 32767) fail(*n, "revisionId is not a short");
            ad.revision_id = static_cast<std::int16_t>(r);
          }
          dc.allowed_devices.push_back(ad);
        }
      }
      if (const Value* label = member(b, "customLabel")) {
        dc.custom_label = text(*label, "customLabel");
      }
    } else if (type == "VirtualEthernetCardNetworkBackingInfo") {
      check_members(b, type);
      dc.backing_type = BackingType::network;
      if (const Value* n = member(b, "deviceName")) dc.network_name = text(*n, "deviceName");
    } else if (type == "VirtualEthernetCardDistributedVirtualPortBackingInfo") {
      check_members(b, type);
      dc.backing_type = BackingType::dvport;
      if (const Value* port = member(b, "port")) {
        object(*port, "port");
        expect_type(*port, "DistributedVirtualSwitchPortConnection");
        check_members(*port, "DistributedVirtualSwitchPortConnection");
        if (const Value* u = member(*port, "switchUuid")) dc.switch_uuid = text(*u, "switchUuid");
        if (const Value* k = member(*port, "portgroupKey")) {
          dc.portgroup_key = text(*k, "portgroupKey");
        }
      }
    } else if (type == "VirtualPCIPassthroughDvxBackingInfo") {
      dc.backing_type = BackingType::dvx;
      dc.dvx = read_dvx(b);
    } else {
      fail(*t, "unsupported backing type " + shown(type) + " for a passthrough device");
    }
  }

  // VirtualPCIPassthroughDvxBackingInfo: `deviceClass` and the `configParams` OptionValues.
  DvxBacking read_dvx(const Value& b) {
    object(b, "dvxBackingInfo");
    expect_type(b, "VirtualPCIPassthroughDvxBackingInfo");
    check_members(b, "VirtualPCIPassthroughDvxBackingInfo");
    DvxBacking d;
    d.whole = b.span;
    if (const Value* c = member(b, "deviceClass")) d.device_class = text(*c, "deviceClass");
    if (const Value* params = member(b, "configParams")) {
      for (const Value& o : array(*params, "configParams")) {
        const OptionValue v = option(o);
        d.config_params.emplace_back(v.key, v.value);
      }
    }
    return d;
  }

  DeviceBacking device_backing(const Value& b) const {
    if (!b.is(Type::object)) fail(b, "backing must be an object");
    expect_type(b, "VirtualPCIPassthroughDeviceBackingInfo");
    check_members(b, "VirtualPCIPassthroughDeviceBackingInfo");
    DeviceBacking out;
    out.whole = b.span;
    auto str = [&](const char* name, std::string& value, SourceSpan& span) {
      span = b.span;
      if (const Value* v = member(b, name)) {
        value = text(*v, name);
        span = v->span;
      }
    };
    SourceSpan ignored;
    str("deviceName", out.device_name, ignored);
    str("id", out.id, out.id_span);
    str("deviceId", out.device_id, out.device_id_span);
    str("systemId", out.system_id, out.system_id_span);
    out.vendor_id_span = b.span;
    if (const Value* v = member(b, "vendorId")) {
      const auto n = v->is(Type::number) ? parse_long(v->text) : std::nullopt;
      if (!n || *n < -32768 || *n > 65535) {
        fail(*v,
             "vendorId must be a PCI vendor id as a short number (0x10de is 4318, 0x8086 is "
             "-32634), not " +
                 json::describe(*v));
      }
      out.vendor_id = static_cast<std::int32_t>(*n);
      out.vendor_id_span = v->span;
    }
    return out;
  }

  const Value& required(const Value& obj, const char* name) const {
    const Value* v = member(obj, name);
    if (v == nullptr) fail(obj, std::string("missing ") + name);
    return *v;
  }

  std::int32_t int32(const Value& v, std::string_view what) const {
    const std::int64_t n = integer(v, what);
    if (n < INT32_MIN || n > INT32_MAX) fail(v, std::string(what) + " is not an int");
    return static_cast<std::int32_t>(n);
  }
};

Value typed(const char* type_name) {
  Value v = Value::object();
  v.add("_typeName", Value::string(type_name));
  return v;
}

Value device_backing(const DeviceBacking& b) {
  Value v = typed("VirtualPCIPassthroughDeviceBackingInfo");
  v.add("deviceName", Value::string(b.device_name));
  v.add("id", Value::string(b.id));
  v.add("deviceId", Value::string(b.device_id));
  v.add("systemId", Value::string(b.system_id));
  v.add("vendorId", Value::number(std::to_string(b.vendor_id)));
  return v;
}

Value dvx_backing(const DvxBacking& dvx) {
  Value b = typed("VirtualPCIPassthroughDvxBackingInfo");
  b.add("deviceClass", Value::string(dvx.device_class));
  if (!dvx.config_params.empty()) {
    Value& list = b.add("configParams", Value::array());
    for (const auto& [key, value] : dvx.config_params) {
      Value item = typed("OptionValue");
      item.add("key", Value::string(key));
      Value box = typed("string");
      box.add("_value", Value::string(value));
      item.add("value", std::move(box));
      list.items.push_back(std::move(item));
    }
  }
  return b;
}

Value device_change(const DeviceChange& dc) {
  Value v = typed("VirtualDeviceConfigSpec");
  if (!dc.operation.empty()) v.add("operation", Value::string(dc.operation));
  Value& device =
      v.add("device", typed(dc.type == DeviceType::sriov_ethernet ? "VirtualSriovEthernetCard"
                                                                  : "VirtualPCIPassthrough"));
  device.add("key", Value::number(std::to_string(dc.key)));
  switch (dc.backing_type) {
    case BackingType::none:
      break;
    case BackingType::device:
      device.add("backing", device_backing(dc.device));
      break;
    case BackingType::vmiop: {
      Value& b = device.add("backing", typed("VirtualPCIPassthroughVmiopBackingInfo"));
      b.add("vgpu", Value::string(dc.vgpu));
      break;
    }
    case BackingType::dynamic: {
      Value& b = device.add("backing", typed("VirtualPCIPassthroughDynamicBackingInfo"));
      b.add("deviceName", Value::string(""));
      Value& list = b.add("allowedDevice", Value::array());
      for (const AllowedDevice& a : dc.allowed_devices) {
        Value item = typed("VirtualPCIPassthroughAllowedDevice");
        item.add("vendorId", Value::number(std::to_string(a.vendor_id)));
        item.add("deviceId", Value::number(std::to_string(a.device_id)));
        if (a.sub_vendor_id)
          item.add("subVendorId", Value::number(std::to_string(*a.sub_vendor_id)));
        if (a.sub_device_id)
          item.add("subDeviceId", Value::number(std::to_string(*a.sub_device_id)));
        if (a.revision_id) item.add("revisionId", Value::number(std::to_string(*a.revision_id)));
        list.items.push_back(std::move(item));
      }
      if (!dc.custom_label.empty()) b.add("customLabel", Value::string(dc.custom_label));
      break;
    }
    case BackingType::network: {
      Value& b = device.add("backing", typed("VirtualEthernetCardNetworkBackingInfo"));
      b.add("deviceName", Value::string(dc.network_name));
      break;
    }
    case BackingType::dvx:
      if (dc.dvx) device.add("backing", dvx_backing(*dc.dvx));
      break;
    case BackingType::dvport: {
      Value& b =
          device.add("backing", typed("VirtualEthernetCardDistributedVirtualPortBackingInfo"));
      Value& port = b.add("port", typed("DistributedVirtualSwitchPortConnection"));
      port.add("switchUuid", Value::string(dc.switch_uuid));
      port.add("portgroupKey", Value::string(dc.portgroup_key));
      break;
    }
  }
  if (dc.group) {
    Value& g = device.add("deviceGroupInfo", typed("VirtualDeviceDeviceGroupInfo"));
    g.add("groupInstanceKey", Value::number(std::to_string(dc.group->group_instance_key)));
    g.add("sequenceId", Value::number(std::to_string(dc.group->sequence_id)));
  }
  if (dc.type == DeviceType::sriov_ethernet && dc.physical_function) {
    Value& sriov = device.add("sriovBacking", typed("VirtualSriovEthernetCardSriovBackingInfo"));
    sriov.add("physicalFunctionBacking", device_backing(*dc.physical_function));
  }
  if (dc.type == DeviceType::sriov_ethernet && dc.dvx) {
    device.add("dvxBackingInfo", dvx_backing(*dc.dvx));
  }
  return v;
}

}  // namespace

JsonConfigSpec read_vi_json(const SourceFile& source) {
  const Value root = json::parse(source);
  return ViJsonReader(source).read(root);
}

JsonConfigSpec read_vi_json(const Value& root, const SourceFile& source) {
  return ViJsonReader(source).read(root);
}

std::string write_vi_json(const ConfigSpec& spec) {
  Value v = typed("VirtualMachineConfigSpec");
  if (spec.name) v.add("name", Value::string(*spec.name));
  if (spec.guest_id) v.add("guestId", Value::string(*spec.guest_id));
  if (spec.num_cpus) v.add("numCPUs", Value::number(std::to_string(*spec.num_cpus)));
  if (spec.num_cores_per_socket) {
    v.add("numCoresPerSocket", Value::number(std::to_string(*spec.num_cores_per_socket)));
  }
  if (spec.memory_mb) v.add("memoryMB", Value::number(std::to_string(*spec.memory_mb)));
  if (!spec.device_change.empty()) {
    Value& list = v.add("deviceChange", Value::array());
    for (const DeviceChange& dc : spec.device_change) list.items.push_back(device_change(dc));
  }
  if (spec.memory_reservation_mb || spec.memory_limit_mb) {
    Value& alloc = v.add("memoryAllocation", typed("ResourceAllocationInfo"));
    if (spec.memory_reservation_mb) {
      alloc.add("reservation", Value::number(std::to_string(*spec.memory_reservation_mb)));
    }
    if (spec.memory_limit_mb) {
      alloc.add("limit", Value::number(std::to_string(*spec.memory_limit_mb)));
    }
  }
  if (!spec.extra_config.empty()) {
    Value& list = v.add("extraConfig", Value::array());
    for (const OptionValue& o : spec.extra_config) {
      Value item = typed("OptionValue");
      item.add("key", Value::string(o.key));
      Value box = typed(o.value_type.c_str());
      if (o.value_type == "boolean") {
        box.add("_value", Value::boolean_value(o.value == "true"));
      } else if (kNumberBoxes.count(o.value_type) != 0) {
        box.add("_value", Value::number(o.value));
      } else {
        box.add("_value", Value::string(o.value));
      }
      item.add("value", std::move(box));
      list.items.push_back(std::move(item));
    }
  }
  if (spec.firmware) v.add("firmware", Value::string(*spec.firmware));
  if (spec.memory_reservation_locked_to_max) {
    v.add("memoryReservationLockedToMax",
          Value::boolean_value(*spec.memory_reservation_locked_to_max));
  }
  if (spec.nested_hv_enabled) {
    v.add("nestedHVEnabled", Value::boolean_value(*spec.nested_hv_enabled));
  }
  if (!spec.device_groups.empty()) {
    Value& groups = v.add("deviceGroups", typed("VirtualMachineVirtualDeviceGroups"));
    Value& list = groups.add("deviceGroup", Value::array());
    for (const DeviceGroupSpec& g : spec.device_groups) {
      Value item = typed(g.device_group_name ? "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup"
                                             : "VirtualMachineVirtualDeviceGroupsDeviceGroup");
      item.add("groupInstanceKey", Value::number(std::to_string(g.group_instance_key)));
      if (g.label || g.summary) {
        Value& info = item.add("deviceInfo", typed("Description"));
        info.add("label", Value::string(g.label.value_or("")));
        info.add("summary", Value::string(g.summary.value_or("")));
      }
      if (g.device_group_name) item.add("deviceGroupName", Value::string(*g.device_group_name));
      list.items.push_back(std::move(item));
    }
  }
  return json::write(v);
}

}  // namespace vmxkit::vsphere
