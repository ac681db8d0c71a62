// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/govc_json.h"

#include <cstdint>
#include <optional>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/json.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::vsphere {
namespace {

using json::Value;
using Type = json::Value::Type;

constexpr std::string_view kCollectHint =
    "collect a VM's config, as `govc object.collect -json vm/NAME config` does";

class GovcReader : json::TypedReader {
 public:
  using TypedReader::TypedReader;

  GovcDocument read(const std::vector<Value>& values) {
    GovcDocument out;
    const Value& first = values.front();
    if (first.is(Type::array)) {
      out.kind = GovcKind::object_collect;
      if (values.size() > 1) fail(values[1], "a second JSON value after govc's property changes");
      out.vms.push_back(from_changes(first, first, {}));
      return out;
    }
    if (!first.is(Type::object)) {
      fail(first, "a JSON document whose top level is " + json::describe(first) +
                      ": not govc's vm.info or object.collect output");
    }
    if (has_field(first, "VirtualMachines")) {
      out.kind = GovcKind::vm_info;
      if (values.size() > 1) fail(values[1], "a second JSON value after govc vm.info's output");
      read_vm_info(first, out.vms);
      return out;
    }
    out.kind = GovcKind::object_collect;
    for (const Value& update : values) out.vms.push_back(from_update(update));
    return out;
  }

  std::optional<DeviceChange> device(const Value& d) {
    DeviceChange dc;
    if (!read_device(d, dc)) return std::nullopt;
    return dc;
  }

 private:
  static const Value* field(const Value& obj, std::string_view go_name) {
    return json::go_field(obj, go_name);
  }

  static bool has_field(const Value& obj, std::string_view go_name) {
    std::string camel(go_name);
    camel[0] = static_cast<char>(camel[0] - 'A' + 'a');
    return obj.find(go_name) != nullptr || obj.find(camel) != nullptr;
  }

  std::int32_t int32(const Value& v, std::string_view what) const {
    const std::int64_t n = integer(v, what);
    if (n < INT32_MIN || n > INT32_MAX) fail(v, std::string(what) + " is not an int32");
    return static_cast<std::int32_t>(n);
  }

  bool boolean(const Value& v, std::string_view what) const {
    if (!v.is(Type::boolean)) {
      fail(v, std::string(what) + " must be true or false, not " + json::describe(v));
    }
    return v.boolean;
  }

  // A string field govc 0.24 writes as "" when it is unset.
  std::optional<std::string> nonempty_text(const Value& obj, std::string_view name,
                                           SourceSpan& span) const {
    const Value* v = field(obj, name);
    if (v == nullptr) return std::nullopt;
    std::string t = text(*v, name);
    if (t.empty()) return std::nullopt;
    span = v->span;
    return t;
  }

  // A number field govc 0.24 writes as 0 when it is unset.
  std::optional<std::int32_t> nonzero_int32(const Value& obj, std::string_view name,
                                            SourceSpan& span) const {
    const Value* v = field(obj, name);
    if (v == nullptr) return std::nullopt;
    const std::int32_t n = int32(*v, name);
    if (n == 0) return std::nullopt;
    span = v->span;
    return n;
  }

  // "vm-42", or "" when the reference is not there.
  std::string moref_of(const Value* ref, std::string* type = nullptr) const {
    if (ref == nullptr) return {};
    object(*ref, "a managed object reference");
    if (type != nullptr) {
      if (const Value* t = field(*ref, "Type")) *type = text(*t, "Type");
    }
    const Value* v = field(*ref, "Value");
    return v == nullptr ? std::string() : text(*v, "Value");
  }

  void read_vm_info(const Value& root, std::vector<GovcVm>& vms) {
    const Value* list = field(root, "VirtualMachines");
    if (list == nullptr || (list->is(Type::array) && list->items.empty())) {
      fail(list == nullptr ? root : *list,
           "govc vm.info JSON without VirtualMachines (" +
               std::string(list == nullptr ? "null" : "an empty list") +
               ": govc found no VM by the names or paths given)");
    }
    for (const Value& vm : array(*list, "VirtualMachines")) {
      object(vm, "a VirtualMachines entry");
      std::string moref = moref_of(field(vm, "Self"));
      std::string name;
      if (const Value* n = field(vm, "Name")) name = text(*n, "Name");
      const Value* config = field(vm, "Config");
      if (config == nullptr) {
        std::string message = "govc vm.info JSON whose VM";
        if (!name.empty()) message += " " + name;
        if (!moref.empty()) message += name.empty() ? " " + moref : " (" + moref + ")";
        message +=
            " has no Config (govc vm.info -json collects every property; a VM without one is "
            "not readable, or the output was edited)";
        fail(vm, message);
      }
      vms.push_back(make_vm(object(*config, "Config"), std::move(name), std::move(moref)));
    }
  }

  GovcVm from_update(const Value& update) {
    if (!update.is(Type::object)) {
      fail(update, "govc object.collect output holds " + json::describe(update) +
                       " where an ObjectUpdate (Obj, ChangeSet) was expected");
    }
    const Value* changes = field(update, "ChangeSet");
    const Value* obj = field(update, "Obj");
    if (changes == nullptr || obj == nullptr) {
      fail(update,
           "a JSON object that is neither govc vm.info output (VirtualMachines) nor an "
           "object.collect ObjectUpdate (Obj, ChangeSet)");
    }
    std::string type;
    std::string moref = moref_of(obj, &type);
    if (type != "VirtualMachine") {
      fail(*obj, "govc object.collect JSON for " + (type.empty() ? "an object" : type) + " " +
                     moref + ", not a VirtualMachine: " + std::string(kCollectHint));
    }
    return from_changes(*changes, update, std::move(moref));
  }

  GovcVm from_changes(const Value& changes, const Value& at, std::string moref) {
    const Value* config = nullptr;
    std::string name;
    std::string seen;
    for (const Value& c : array(changes, "ChangeSet")) {
      object(c, "a property change");
      const Value* n = field(c, "Name");
      if (n == nullptr || !has_field(c, "Val")) {
        fail(c, "a property change without Name and Val: not govc object.collect output");
      }
      const std::string prop = text(*n, "Name");
      seen += (seen.empty() ? "" : ", ") + prop;
      const Value* val = field(c, "Val");
      if (prop == "config") {
        if (val == nullptr) fail(c, "the config property has no value (Val is null)");
        config = val;
      } else if (prop == "name" && val != nullptr) {
        name = text(*val, "the name property");
      }
    }
    if (config == nullptr) {
      fail(at, "govc object.collect JSON without a config property (" +
                   (seen.empty() ? std::string("no properties") : "it has " + seen) +
                   "): " + std::string(kCollectHint));
    }
    return make_vm(object(*config, "the config property"), std::move(name), std::move(moref));
  }

  GovcVm make_vm(const Value& config, std::string name, std::string moref) {
    GovcVm vm;
    vm.spec = read_config_info(config);
    vm.moref = std::move(moref);
    vm.name = !name.empty() ? std::move(name) : vm.spec.name ? *vm.spec.name : vm.moref;
    return vm;
  }

  ConfigSpec read_config_info(const Value& c) {
    ConfigSpec s;
    s.whole = c.span;
    s.name = nonempty_text(c, "Name", s.name_span);
    s.guest_id = nonempty_text(c, "GuestId", s.guest_id_span);
    if (const Value* hw = field(c, "Hardware")) {
      object(*hw, "Hardware");
      s.num_cpus = nonzero_int32(*hw, "NumCPU", s.cpus_span);
      s.num_cores_per_socket = nonzero_int32(*hw, "NumCoresPerSocket", s.cores_span);
      if (const auto mb = nonzero_int32(*hw, "MemoryMB", s.memory_span)) s.memory_mb = *mb;
      if (const Value* devices = field(*hw, "Device")) {
        for (const Value& d : array(*devices, "Device")) {
          DeviceChange dc;
          if (read_device(d, dc)) s.device_change.push_back(std::move(dc));
        }
      }
    }
    if (const Value* alloc = field(c, "MemoryAllocation")) {
      object(*alloc, "MemoryAllocation");
      if (const Value* r = field(*alloc, "Reservation")) {
        s.memory_reservation_mb = integer(*r, "Reservation");
        s.reservation_span = r->span;
      }
      if (const Value* l = field(*alloc, "Limit")) {
        s.memory_limit_mb = integer(*l, "Limit");
        s.limit_span = l->span;
      }
    }
    if (const Value* extra = field(c, "ExtraConfig")) {
      for (const Value& o : array(*extra, "ExtraConfig")) s.extra_config.push_back(option(o));
    }
    s.firmware = nonempty_text(c, "Firmware", s.firmware_span);
    if (const Value* locked = field(c, "MemoryReservationLockedToMax")) {
      s.memory_reservation_locked_to_max = boolean(*locked, "MemoryReservationLockedToMax");
      s.locked_span = locked->span;
    }
    if (const Value* nested = field(c, "NestedHVEnabled")) {
      s.nested_hv_enabled = boolean(*nested, "NestedHVEnabled");
      s.nested_span = nested->span;
    }
    if (const Value* groups = field(c, "DeviceGroups")) {
      object(*groups, "DeviceGroups");
      if (const Value* list = field(*groups, "DeviceGroup")) {
        for (const Value& g : array(*list, "DeviceGroup")) {
          object(g, "a DeviceGroup entry");
          DeviceGroupSpec d;
          d.whole = g.span;
          const Value* key = field(g, "GroupInstanceKey");
          if (key == nullptr) fail(g, "a DeviceGroup entry without GroupInstanceKey");
          d.group_instance_key = int32(*key, "GroupInstanceKey");
          if (const Value* name = field(g, "DeviceGroupName")) {
            d.device_group_name = text(*name, "DeviceGroupName");
          }
          if (const Value* info = field(g, "DeviceInfo")) {
            object(*info, "DeviceInfo");
            if (const Value* l = field(*info, "Label")) d.label = text(*l, "Label");
            if (const Value* m = field(*info, "Summary")) d.summary = text(*m, "Summary");
          }
          s.device_groups.push_back(std::move(d));
        }
      }
    }
    return s;
  }

  // VirtualPCIPassthroughDvxBackingInfo: DeviceClass and the ConfigParams OptionValues.
  DvxBacking read_dvx(const Value& b) const {
    object(b, "DvxBackingInfo");
    DvxBacking d;
    d.whole = b.span;
    if (const Value* c = field(b, "DeviceClass")) d.device_class = text(*c, "DeviceClass");
    if (const Value* params = field(b, "ConfigParams")) {
      for (const Value& o : array(*params, "ConfigParams")) {
        const OptionValue v = option(o);
        d.config_params.emplace_back(v.key, v.value);
      }
    }
    return d;
  }

  // OptionValue's Value is an interface: Go writes the string, number or boolean it holds.
  OptionValue option(const Value& v) const {
    object(v, "an ExtraConfig entry");
    OptionValue o;
    o.whole = v.span;
    const Value* key = field(v, "Key");
    if (key == nullptr) fail(v, "an ExtraConfig entry without Key");
    o.key = text(*key, "Key");
    o.key_span = key->span;
    const Value* value = field(v, "Value");
    if (value == nullptr) {
      o.value_span = {key->span.end, key->span.end};
      return o;
    }
    o.value_span = value->span;
    switch (value->type) {
      case Type::string:
        o.value = value->text;
        break;
      case Type::boolean:
        o.value = value->boolean ? "true" : "false";
        o.value_type = "boolean";
        break;
      case Type::number:
        o.value = value->text;
        o.value_type = parse_long(value->text) ? "long" : "double";
        break;
      default:
        fail(*value, "the Value of ExtraConfig " + quote_for_message(o.key) +
                         " must be a string, number or boolean, not " + json::describe(*value));
    }
    return o;
  }

  // False for a device that is not passthrough, or whose kind its members do not tell.
  bool read_device(const Value& d, DeviceChange& dc) {
    object(d, "a Device entry");
    const Value* backing = field(d, "Backing");
    if (backing != nullptr) object(*backing, "Backing");
    if (has_field(d, "SriovBacking") || field(d, "DvxBackingInfo") != nullptr) {
      dc.type = DeviceType::sriov_ethernet;
      if (const Value* sriov = field(d, "SriovBacking")) {
        object(*sriov, "SriovBacking");
        if (const Value* pf = field(*sriov, "PhysicalFunctionBacking")) {
          dc.physical_function = device_backing(*pf);
        }
      }
      if (const Value* dvx = field(d, "DvxBackingInfo")) dc.dvx = read_dvx(*dvx);
      if (backing != nullptr) {
        dc.backing_span = backing->span;
        if (const Value* port = field(*backing, "Port")) {
          object(*port, "Port");
          dc.backing_type = BackingType::dvport;
          if (const Value* u = field(*port, "SwitchUuid")) dc.switch_uuid = text(*u, "SwitchUuid");
          if (const Value* k = field(*port, "PortgroupKey")) {
            dc.portgroup_key = text(*k, "PortgroupKey");
          }
        } else if (const Value* n = field(*backing, "DeviceName")) {
          dc.backing_type = BackingType::network;
          dc.network_name = text(*n, "DeviceName");
        }
      }
    } else if (backing == nullptr || !is_passthrough_backing(*backing)) {
      return false;  // a disk, a NIC, a CD-ROM...: not passthrough, not vmxkit's business
    } else if (const Value* vgpu = field(*backing, "Vgpu")) {
      dc.type = DeviceType::pci_passthrough;
      dc.backing_type = BackingType::vmiop;
      dc.vgpu = text(*vgpu, "Vgpu");
      dc.vgpu_span = vgpu->span;
    } else if (has_field(*backing, "AllowedDevice")) {
      dc.type = DeviceType::pci_passthrough;
      dc.backing_type = BackingType::dynamic;
      read_allowed(*backing, dc);
    } else if (field(*backing, "DeviceClass") != nullptr) {
      dc.type = DeviceType::pci_passthrough;
      dc.backing_type = BackingType::dvx;
      dc.dvx = read_dvx(*backing);
    } else {
      dc.type = DeviceType::pci_passthrough;
      dc.backing_type = BackingType::device;
      dc.device = device_backing(*backing);
    }
    dc.whole = d.span;
    dc.device_span = d.span;
    if (backing != nullptr) dc.backing_span = backing->span;
    if (const Value* key = field(d, "Key")) dc.key = int32(*key, "Key");
    if (const Value* group = field(d, "DeviceGroupInfo")) {
      object(*group, "DeviceGroupInfo");
      DeviceGroupInfo info;
      info.whole = group->span;
      const Value* k = field(*group, "GroupInstanceKey");
      const Value* q = field(*group, "SequenceId");
      if (k == nullptr || q == nullptr) {
        fail(*group, "a DeviceGroupInfo without GroupInstanceKey and SequenceId");
      }
      info.group_instance_key = int32(*k, "GroupInstanceKey");
      info.sequence_id = int32(*q, "SequenceId");
      dc.group = info;
    }
    return true;
  }

  // The members only the passthrough backings have: VmiopBackingInfo's Vgpu,
  // DynamicBackingInfo's AllowedDevice, DeviceBackingInfo's Id, DeviceId, SystemId and VendorId.
  static bool is_passthrough_backing(const Value& b) {
    return field(b, "Vgpu") != nullptr || has_field(b, "AllowedDevice") ||
           field(b, "DeviceClass") != nullptr ||
           (has_field(b, "Id") && has_field(b, "DeviceId") && has_field(b, "SystemId") &&
            has_field(b, "VendorId"));
  }

  void read_allowed(const Value& b, DeviceChange& dc) {
    dc.allowed_span = b.span;
    if (const Value* list = field(b, "AllowedDevice")) {
      for (const Value& a : array(*list, "AllowedDevice")) {
        object(a, "an AllowedDevice entry");
        AllowedDevice ad;
        ad.whole = a.span;
        if (dc.allowed_devices.empty()) dc.allowed_span = a.span;
        const Value* vendor = field(a, "VendorId");
        const Value* device = field(a, "DeviceId");
        if (vendor == nullptr || device == nullptr) {
          fail(a, "an AllowedDevice entry without VendorId and DeviceId");
        }
        ad.vendor_id = int32(*vendor, "VendorId");
        ad.device_id = int32(*device, "DeviceId");
        SourceSpan ignored;
        ad.sub_vendor_id = nonzero_int32(a, "SubVendorId", ignored);
        ad.sub_device_id = nonzero_int32(a, "SubDeviceId", ignored);
        if (const auto r = nonzero_int32(a, "RevisionId", ignored)) {
          if (*r < INT16_MIN || *r > INT16_MAX) fail(a, "RevisionId is not an int16");
          ad.revision_id = static_cast<std::int16_t>(*r);
        }
        dc.allowed_devices.push_back(ad);
      }
    }
    if (const Value* label = field(b, "CustomLabel")) dc.custom_label = text(*label, "CustomLabel");
  }

  DeviceBacking device_backing(const Value& b) const {
    object(b, "a device backing");
    DeviceBacking out;
    out.whole = b.span;
    auto str = [&](std::string_view name, std::string& value, SourceSpan& span) {
      span = b.span;
      if (const Value* v = field(b, name)) {
        value = text(*v, name);
        span = v->span;
      }
    };
    SourceSpan ignored;
    str("DeviceName", out.device_name, ignored);
    str("Id", out.id, out.id_span);
    str("DeviceId", out.device_id, out.device_id_span);
    str("SystemId", out.system_id, out.system_id_span);
    out.vendor_id_span = b.span;
    if (const Value* v = field(b, "VendorId")) {
      const std::int64_t n = integer(*v, "VendorId");
      if (n < -32768 || n > 65535) {
        fail(*v,
             "VendorId must be a PCI vendor id as an int16 (0x10de is 4318, 0x8086 is "
             "-32634), not " +
                 json::describe(*v));
      }
      out.vendor_id = static_cast<std::int32_t>(n);
      out.vendor_id_span = v->span;
    }
    return out;
  }
};

}  // namespace

std::optional<DeviceChange> read_govc_device(const SourceFile& source, const json::Value& device) {
  return GovcReader(source).device(device);
}

GovcDocument read_govc_json(const SourceFile& source) {
  const std::vector<Value> values = json::parse_sequence(source);
  return GovcReader(source).read(values);
}

}  // namespace vmxkit::vsphere
