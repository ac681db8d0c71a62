// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/configspec.h"

#include <charconv>
#include <cstdint>
#include <map>
#include <set>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vmx/escape.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::vsphere {
namespace {

constexpr std::string_view kPassthru = "pciPassthru";

std::string vmx_id_or_raw(const std::string& api_id) {
  // An id that is not a hex BDF is kept as written so the rules can point at it.
  return vmx_id_from_api(api_id).value_or(api_id);
}

std::string vmx_device_id(const std::string& api_device_id) {
  if (const auto v = parse_api_hex_id(api_device_id)) return format_vmx_pci_id(*v);
  return api_device_id;
}

// Where the settings came from, for messages: a path, and the file when the spans point into it.
struct Origin {
  const std::string& path;
  const SourceFile* source = nullptr;
};

// An error at `offset` of the file when the spans point into it, else naming the path only.
[[noreturn]] void fail_at(const Origin& origin, std::size_t offset, const std::string& message) {
  if (origin.source != nullptr && offset <= origin.source->bytes().size()) {
    const Location l = origin.source->location(offset);
    throw Error(origin.source->path(), l.line, l.column, message);
  }
  throw Error(origin.path, message);
}

[[noreturn]] void bad_setting(const Origin& origin, const Setting& s, const std::string& what) {
  fail_at(origin, s.value_span.begin, s.key + " = " + quote_for_message(s.value) + ": " + what);
}

std::int32_t count_setting(const Origin& origin, const Setting& s, const std::string& what) {
  const auto v = parse_int(s.value);
  if (!v || *v < 1 || *v > INT32_MAX) bad_setting(origin, s, what);
  return static_cast<std::int32_t>(*v);
}

const Setting* field(const VmConfig& cfg, const PassthroughDevice& d, std::string_view name) {
  for (const std::size_t i : d.settings) {
    const auto f = split_passthrough_key(cfg.settings[i].key);
    if (f && iequals(f->field, name)) return &cfg.settings[i];
  }
  return nullptr;
}

std::string value_of(const Setting* s) { return s == nullptr ? std::string() : s->value; }

std::int16_t api_vendor_id(const Origin& path, const Setting* s) {
  if (s == nullptr) return 0;
  const auto v = parse_vmx_pci_id(s->value);
  if (!v) bad_setting(path, *s, "expected a PCI vendor id such as 0x10de");
  return to_signed_short(*v);
}

std::string api_device_id(const Origin& path, const Setting* s) {
  if (s == nullptr) return {};
  const auto v = parse_vmx_pci_id(s->value);
  if (!v) bad_setting(path, *s, "expected a PCI device id such as 0x20b5");
  return format_api_hex_id(*v);
}

std::string api_id(const Origin& path, const Setting* s) {
  if (s == nullptr) return {};
  const auto v = api_id_from_vmx(s->value);
  if (!v) bad_setting(path, *s, "expected a PCI address such as 00000:059:00.0");
  return *v;
}

// Parses `0x10de:0x20f1` entries separated by commas or spaces.
std::vector<AllowedDevice> parse_allowed(const Origin& path, const Setting& s) {
  std::vector<AllowedDevice> out;
  std::string_view rest = s.value;
  while (!rest.empty()) {
    const std::size_t sep = rest.find_first_of(", ");
    const std::string_view item = rest.substr(0, sep);
    rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 1);
    if (item.empty()) continue;
    const std::size_t colon = item.find(':');
    const auto vendor = parse_vmx_pci_id(item.substr(0, colon));
    const auto device =
        colon == std::string_view::npos ? std::nullopt : parse_vmx_pci_id(item.substr(colon + 1));
    if (!vendor || !device)
      bad_setting(path, s, "expected vendor:device pairs such as 0x10de:0x20f1");
    AllowedDevice a;
    a.vendor_id = *vendor;
    a.device_id = *device;
    out.push_back(a);
  }
  if (out.empty()) bad_setting(path, s, "expected vendor:device pairs such as 0x10de:0x20f1");
  return out;
}

std::string format_allowed(const std::vector<AllowedDevice>& devices) {
  std::string out;
  for (const AllowedDevice& a : devices) {
    if (!out.empty()) out += ',';
    out += format_vmx_pci_id(static_cast<std::uint16_t>(a.vendor_id));
    out += ':';
    out += format_vmx_pci_id(static_cast<std::uint16_t>(a.device_id));
  }
  return out;
}

void add_device_groups(const ConfigSpec& spec, const Origin& origin, VmConfig& cfg) {
  for (const DeviceGroupSpec& g : spec.device_groups) {
    for (const DeviceGroup& seen : cfg.device_groups) {
      if (seen.key == g.group_instance_key) {
        fail_at(origin, g.whole.begin,
                "deviceGroups declares groupInstanceKey " + std::to_string(g.group_instance_key) +
                    " twice");
      }
    }
    DeviceGroup group;
    group.key = g.group_instance_key;
    group.name = g.device_group_name;
    group.label = g.label.value_or("");
    group.summary = g.summary.value_or("");
    group.whole = g.whole;
    cfg.device_groups.push_back(std::move(group));
  }
}

// vSphere adds a group with all its devices in one request and allows no change of
// membership: a device can only name a group of the same spec.
void join_group(const DeviceChange& dc, unsigned n, const Origin& origin, VmConfig& cfg) {
  DeviceGroup* group = nullptr;
  for (DeviceGroup& g : cfg.device_groups) {
    if (g.key == dc.group->group_instance_key) group = &g;
  }
  if (group == nullptr) {
    fail_at(origin, dc.group->whole.begin,
            "deviceGroupInfo names groupInstanceKey " +
                std::to_string(dc.group->group_instance_key) +
                ", which deviceGroups does not declare");
  }
  group->members.push_back({n, dc.group->sequence_id, dc.group->whole});
}

// The `pciPassthruN.` keys of one device's backing.
void add_backing(const DeviceChange& dc, const std::string& p, VmConfig& cfg) {
  switch (dc.backing_type) {
    case BackingType::device: {
      const DeviceBacking& b = dc.device;
      cfg.add(p + "id", vmx_id_or_raw(b.id), b.id_span, b.id_span);
      cfg.add(p + "deviceId", vmx_device_id(b.device_id), b.device_id_span, b.device_id_span);
      cfg.add(p + "vendorId", format_vmx_pci_id(static_cast<std::uint16_t>(b.vendor_id & 0xffff)),
              b.vendor_id_span, b.vendor_id_span);
      cfg.add(p + "systemId", b.system_id, b.system_id_span, b.system_id_span);
      break;
    }
    case BackingType::vmiop:
      cfg.add(p + "vgpu", dc.vgpu, dc.vgpu_span, dc.vgpu_span);
      break;
    case BackingType::dynamic:
      cfg.add(p + "allowedDevices", format_allowed(dc.allowed_devices), dc.allowed_span,
              dc.allowed_span);
      if (!dc.custom_label.empty()) {
        cfg.add(p + "customLabel", dc.custom_label, dc.backing_span, dc.backing_span);
      }
      break;
    case BackingType::network:
      cfg.add(p + "networkName", dc.network_name, dc.backing_span, dc.backing_span);
      break;
    case BackingType::dvport:
      cfg.add(p + "dvs.switchId", dc.switch_uuid, dc.backing_span, dc.backing_span);
      cfg.add(p + "dvs.portgroupId", dc.portgroup_key, dc.backing_span, dc.backing_span);
      break;
    case BackingType::dvx:
    case BackingType::none:
      break;
  }
}

// One added device as `pciPassthruN.*` keys.
void add_device(const DeviceChange& dc, unsigned n, VmConfig& cfg) {
  const std::string p = std::string(kPassthru) + std::to_string(n) + ".";
  cfg.add(p + "present", "TRUE", dc.device_span, dc.device_span);
  if (dc.type == DeviceType::sriov_ethernet && (dc.physical_function || !dc.dvx)) {
    const std::string pf = dc.physical_function ? vmx_id_or_raw(dc.physical_function->id) : "";
    const SourceSpan pf_span =
        dc.physical_function ? dc.physical_function->id_span : dc.device_span;
    cfg.add(p + "id", pf, pf_span, pf_span);
    cfg.add(p + "pfId", pf, pf_span, pf_span);
    cfg.add(p + "deviceId", "0", dc.device_span, dc.device_span);
    cfg.add(p + "vendorId", "0", dc.device_span, dc.device_span);
    cfg.add(p + "systemId", "BYPASS", dc.device_span, dc.device_span);
  }
  add_backing(dc, p, cfg);
  if (dc.dvx) {
    const SourceSpan at = dc.dvx->whole;
    cfg.add(p + "virtualDev", "dvx", at, at);
    // An empty class is none (the API requires one when adding: PT001 says so).
    if (!dc.dvx->device_class.empty()) cfg.add(p + "dvx.deviceClass", dc.dvx->device_class, at, at);
    for (const auto& [key, value] : dc.dvx->config_params) {
      std::string name = p;
      name += "dvx.config.";
      name += key;
      cfg.add(std::move(name), value, at, at);
    }
  }
}

// The settings after the devices: reservation, extraConfig, firmware, pinning, limit, nesting.
void add_late_settings(const ConfigSpec& spec, VmConfig& cfg) {
  if (spec.memory_reservation_mb) {
    cfg.add("sched.mem.min", std::to_string(*spec.memory_reservation_mb), spec.reservation_span,
            spec.reservation_span);
  }
  for (const OptionValue& o : spec.extra_config) {
    // An empty value asks vSphere to remove the key; it stays, empty, so that it is seen.
    cfg.settings.push_back({o.key, o.value, o.whole, o.key_span, o.value_span});
  }
  if (spec.firmware) cfg.add("firmware", *spec.firmware, spec.firmware_span, spec.firmware_span);
  if (spec.memory_reservation_locked_to_max) {
    cfg.add("sched.mem.pin", *spec.memory_reservation_locked_to_max ? "TRUE" : "FALSE",
            spec.locked_span, spec.locked_span);
  }
  if (spec.memory_limit_mb) {
    cfg.add("sched.mem.max", std::to_string(*spec.memory_limit_mb), spec.limit_span,
            spec.limit_span);
  }
  if (spec.nested_hv_enabled) {
    cfg.add("vhv.enable", *spec.nested_hv_enabled ? "TRUE" : "FALSE", spec.nested_span,
            spec.nested_span);
  }
}

}  // namespace

VmConfig to_vm_config(const ConfigSpec& spec, const SourceFile* source) {
  static const std::string kNoPath;
  const Origin origin{source != nullptr ? source->path() : kNoPath, source};
  VmConfig cfg;
  add_device_groups(spec, origin, cfg);
  if (spec.name) cfg.add("displayName", *spec.name, spec.name_span, spec.name_span);
  if (spec.guest_id) cfg.add("guestOS", *spec.guest_id, spec.guest_id_span, spec.guest_id_span);
  if (spec.num_cpus) {
    cfg.add("numvcpus", std::to_string(*spec.num_cpus), spec.cpus_span, spec.cpus_span);
  }
  if (spec.num_cores_per_socket) {
    cfg.add("cpuid.coresPerSocket", std::to_string(*spec.num_cores_per_socket), spec.cores_span,
            spec.cores_span);
  }
  if (spec.memory_mb) {
    cfg.add("memsize", std::to_string(*spec.memory_mb), spec.memory_span, spec.memory_span);
  }
  unsigned n = 0;
  for (const DeviceChange& dc : spec.device_change) {
    if (dc.operation == "remove") continue;
    if (dc.group) join_group(dc, n, origin, cfg);
    add_device(dc, n++, cfg);
  }
  add_late_settings(spec, cfg);
  return cfg;
}

bool owned_by_vsphere(std::string_view key) {
  static constexpr std::string_view kExact[] = {"displayName",
                                                "guestOS",
                                                "numvcpus",
                                                "cpuid.coresPerSocket",
                                                "virtualHW.version",
                                                "config.version",
                                                "nvram",
                                                "extendedConfigFile",
                                                "sched.mem.min",
                                                "sched.mem.minSize",
                                                "sched.mem.shares",
                                                "vc.uuid",
                                                "uuid.bios",
                                                "uuid.location",
                                                "uuid.action",
                                                "memoryHotAdd",
                                                "mem.hotadd",
                                                "vcpu.hotadd",
                                                "vmci0.id",
                                                "vm.genid",
                                                "vm.genidX",
                                                "migrate.hostLog",
                                                "checkpoint.vmState",
                                                "tools.syncTime",
                                                "instanceUuid"};
  for (const std::string_view k : kExact) {
    if (iequals(key, k)) return true;
  }
  // Virtual devices: a family name, then a unit number, then ':' or '.'.
  static constexpr std::string_view kDevices[] = {
      "scsi", "sata",  "ide",    "nvme",     "ethernet", "pciBridge", "usb",  "usb_xhci",
      "ehci", "sound", "serial", "parallel", "floppy",   "svga",      "vmci", "hpet"};
  for (const std::string_view family : kDevices) {
    if (key.size() <= family.size() || !iequals(key.substr(0, family.size()), family)) {
      continue;
    }
    const char next = key[family.size()];
    if (next == '.' || (next >= '0' && next <= '9')) return true;
  }
  return false;
}

namespace {

// A DVX device's class and its `dvx.config.KEY` parameters, in order; marks those settings
// consumed (the caller consumes `dvx.deviceClass` and `virtualDev` with its other fields).
DvxBacking dvx_backing(const VmConfig& config, const PassthroughDevice& d,
                       std::set<std::size_t>& consumed) {
  DvxBacking dvx;
  dvx.device_class = value_of(field(config, d, "dvx.deviceClass"));
  constexpr std::string_view kConfig = "dvx.config.";
  for (const std::size_t i : d.settings) {
    const auto f = split_passthrough_key(config.settings[i].key);
    if (f && f->field.size() > kConfig.size() &&
        iequals(f->field.substr(0, kConfig.size()), kConfig)) {
      dvx.config_params.emplace_back(std::string(f->field.substr(kConfig.size())),
                                     config.settings[i].value);
      consumed.insert(i);
    }
  }
  return dvx;
}

// The deviceChange of passthrough device `d` of kind `kind`; `fields` gets the keys it used.
DeviceChange device_change(const VmConfig& config, const PassthroughDevice& d, PassthroughKind kind,
                           const Origin& path, std::set<std::size_t>& consumed,
                           std::vector<std::string_view>& fields) {
  DeviceChange dc;
  dc.key = -100 - static_cast<std::int32_t>(d.index);
  switch (kind) {
    case PassthroughKind::directpath:
      dc.backing_type = BackingType::device;
      dc.device.id = api_id(path, field(config, d, "id"));
      dc.device.device_id = api_device_id(path, field(config, d, "deviceId"));
      dc.device.vendor_id = api_vendor_id(path, field(config, d, "vendorId"));
      dc.device.system_id = value_of(field(config, d, "systemId"));
      fields.insert(fields.end(), {"id", "deviceId", "vendorId", "systemId"});
      break;
    case PassthroughKind::vgpu:
      dc.backing_type = BackingType::vmiop;
      dc.vgpu = value_of(field(config, d, "vgpu"));
      fields.insert(fields.end(), {"vgpu", "virtualDev"});
      break;
    case PassthroughKind::dynamic:
      dc.backing_type = BackingType::dynamic;
      dc.allowed_devices = parse_allowed(path, *field(config, d, "allowedDevices"));
      dc.custom_label = value_of(field(config, d, "customLabel"));
      fields.insert(fields.end(), {"allowedDevices", "customLabel"});
      break;
    case PassthroughKind::sriov_vf: {
      dc.type = DeviceType::sriov_ethernet;
      const Setting* pf = field(config, d, "pfId");
      if (pf == nullptr) pf = field(config, d, "id");
      DeviceBacking b;
      b.id = api_id(path, pf);
      b.device_id = "0";
      b.system_id = "BYPASS";
      dc.physical_function = b;
      if (const Setting* net = field(config, d, "networkName")) {
        dc.backing_type = BackingType::network;
        dc.network_name = net->value;
      } else if (const Setting* pg = field(config, d, "dvs.portgroupId")) {
        dc.backing_type = BackingType::dvport;
        dc.portgroup_key = pg->value;
        dc.switch_uuid = value_of(field(config, d, "dvs.switchId"));
      }
      // A card with a PF and a DVX backing (both are members of VirtualSriovEthernetCard).
      if (d.dvx_device_class) {
        dc.dvx = dvx_backing(config, d, consumed);
        fields.insert(fields.end(), {"virtualDev", "dvx.deviceClass"});
      }
      fields.insert(fields.end(), {"id", "pfId", "deviceId", "vendorId", "systemId", "networkName",
                                   "dvs.switchId", "dvs.portgroupId"});
      break;
    }
    case PassthroughKind::dvx: {
      dc.dvx = dvx_backing(config, d, consumed);
      if (const Setting* net = field(config, d, "networkName")) {
        // A DVX-backed SR-IOV network adapter (govmomi ovf/fixtures/external/vdg-vm.ovf).
        dc.type = DeviceType::sriov_ethernet;
        dc.backing_type = BackingType::network;
        dc.network_name = net->value;
      } else if (const Setting* pg = field(config, d, "dvs.portgroupId")) {
        dc.type = DeviceType::sriov_ethernet;
        dc.backing_type = BackingType::dvport;
        dc.portgroup_key = pg->value;
        dc.switch_uuid = value_of(field(config, d, "dvs.switchId"));
      } else {
        dc.backing_type = BackingType::dvx;
      }
      fields.insert(fields.end(), {"virtualDev", "dvx.deviceClass", "networkName", "dvs.switchId",
                                   "dvs.portgroupId"});
      break;
    }
    case PassthroughKind::unknown:
      break;
  }
  return dc;
}

// Device groups, with temporary keys as for a group being added: -1, -2, ...
void add_groups(const VmConfig& config, const std::map<unsigned, std::size_t>& built,
                const Origin& path, ConfigSpec& spec) {
  for (std::size_t g = 0; g < config.device_groups.size(); ++g) {
    const DeviceGroup& group = config.device_groups[g];
    DeviceGroupSpec out;
    out.group_instance_key = -1 - static_cast<std::int32_t>(g);
    out.device_group_name = group.name;
    if (!group.label.empty()) out.label = group.label;
    if (!group.summary.empty()) out.summary = group.summary;
    for (const DeviceGroupMember& m : group.members) {
      const auto it = built.find(m.device);
      if (it == built.end()) {
        throw Error(path.path, "device group " +
                                   quote_for_message(group.name.value_or(group.label)) +
                                   ": its member pciPassthru" + std::to_string(m.device) +
                                   " is not a device vmxkit can write");
      }
      spec.device_change[it->second].group =
          DeviceGroupInfo{out.group_instance_key, m.sequence_id, {}};
    }
    spec.device_groups.push_back(std::move(out));
  }
}

// A setting that is not a device's: a ConfigSpec property, or extraConfig.
void add_setting(const Setting& s, const Origin& path, ConfigSpec& spec) {
  if (iequals(s.key, "memsize")) {
    const auto v = parse_int(s.value);
    if (!v) bad_setting(path, s, "expected a memory size in MB");
    spec.memory_mb = *v;
  } else if (iequals(s.key, "displayName")) {
    spec.name = s.value;
  } else if (iequals(s.key, "guestOS")) {
    spec.guest_id = s.value;
  } else if (iequals(s.key, "numvcpus")) {
    spec.num_cpus = count_setting(path, s, "expected a number of virtual CPUs (1 or more)");
  } else if (iequals(s.key, "cpuid.coresPerSocket")) {
    spec.num_cores_per_socket =
        count_setting(path, s, "expected a number of cores per socket (1 or more)");
  } else if (iequals(s.key, "sched.mem.min") || iequals(s.key, "sched.mem.minSize")) {
    const auto v = parse_int(s.value);
    if (!v || *v < 0) bad_setting(path, s, "expected a memory reservation in MB");
    spec.memory_reservation_mb = *v;
  } else if (iequals(s.key, "firmware")) {
    spec.firmware = s.value;
  } else if (iequals(s.key, "sched.mem.pin")) {
    const auto v = parse_bool(s.value);
    if (!v) bad_setting(path, s, "expected TRUE or FALSE");
    spec.memory_reservation_locked_to_max = *v;
  } else if (iequals(s.key, "sched.mem.max")) {
    const auto v = parse_int(s.value);
    if (!v || *v < -1) bad_setting(path, s, "expected a memory limit in MB (-1: no limit)");
    spec.memory_limit_mb = *v;
  } else if (iequals(s.key, "vhv.enable")) {
    const auto v = parse_bool(s.value);
    if (!v) bad_setting(path, s, "expected TRUE or FALSE");
    spec.nested_hv_enabled = *v;
  } else if (owned_by_vsphere(s.key)) {
    spec.not_sent.push_back(s.key);
  } else if (!iequals(s.key, ".encoding")) {
    OptionValue o;
    o.key = s.key;
    o.value = s.value;
    spec.extra_config.push_back(std::move(o));
  }
}

ConfigSpec build_spec(const VmConfig& config, const Origin& path) {
  ConfigSpec spec;
  std::set<std::size_t> consumed;
  std::map<unsigned, std::size_t> built;  // pciPassthruN -> its deviceChange
  for (const PassthroughDevice& d : config.passthrough_devices()) {
    if (!d.present) {
      // A device that is not present is not a device: drop its settings.
      consumed.insert(d.settings.begin(), d.settings.end());
      continue;
    }
    const PassthroughKind kind = d.kind();
    if (kind == PassthroughKind::unknown) continue;  // its keys stay extraConfig
    std::vector<std::string_view> fields{"present"};
    DeviceChange dc = device_change(config, d, kind, path, consumed, fields);
    for (const std::size_t i : d.settings) {
      const auto f = split_passthrough_key(config.settings[i].key);
      for (const std::string_view name : fields) {
        if (f && iequals(f->field, name)) consumed.insert(i);
      }
    }
    built[d.index] = spec.device_change.size();
    spec.device_change.push_back(std::move(dc));
  }
  add_groups(config, built, path, spec);
  for (std::size_t i = 0; i < config.settings.size(); ++i) {
    if (consumed.count(i) == 0) add_setting(config.settings[i], path, spec);
  }
  return spec;
}

}  // namespace

ConfigSpec from_vm_config(const VmConfig& config, const std::string& path) {
  return build_spec(config, Origin{path, nullptr});
}

ConfigSpec from_vm_config(const VmConfig& config, const SourceFile& source) {
  return build_spec(config, Origin{source.path(), &source});
}

std::string render_vmx(const VmConfig& config) {
  std::string out;
  for (const Setting& s : config.settings) {
    out += s.key;
    out += " = \"";
    vmx::escape::encode_append(s.value, out);
    out += "\"\n";
  }
  return out;
}

}  // namespace vmxkit::vsphere
