// SPDX-License-Identifier: Apache-2.0
// Reads VM Operator VirtualMachineClass documents (vmware-tanzu/vm-operator
// api/v1alpha*/virtualmachineclass_types.go) into the VM a class gives, as VM Operator builds
// its ConfigSpec (pkg/providers/vsphere/virtualmachine/class_configspec_from_name.go,
// pkg/util/configspec.go CreateConfigSpec).
#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/vmclass.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/vi_json.h"
#include "vmxkit/formats/yaml_json.h"

namespace vmxkit::vmclass {
namespace {

// 128 bits for exact arithmetic on 64-bit values (a GCC and Clang extension).
__extension__ using Uint128 = unsigned __int128;

using vsphere::json::Member;
using vsphere::json::Value;
using Type = Value::Type;

constexpr std::string_view kGroup = "vmoperator.vmware.com/";
constexpr std::string_view kKind = "VirtualMachineClass";

// Kubernetes resource.Quantity (`128Gi`, `131072Mi`, `137438953472`, `1.5G`, `1e9`) in MB,
// rounded up as VM Operator rounds a class's memory (bytes / 1024 / 1024, ceil); nullopt when
// it is not a quantity or is out of range.
std::optional<std::int64_t> quantity_mb(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  Uint128 mantissa = 0;
  int scale10 = 0;  // value = mantissa * 10^scale10 * 2^scale2
  int scale2 = 0;
  std::size_t i = 0;
  bool digits = false;
  bool fraction = false;
  for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && !fraction)); ++i) {
    if (s[i] == '.') {
      fraction = true;
      continue;
    }
    if (mantissa > (static_cast<Uint128>(1) << 100)) return std::nullopt;
    mantissa = mantissa * 10 + static_cast<unsigned>(s[i] - '0');
    scale10 -= fraction ? 1 : 0;
    digits = true;
  }
  if (!digits) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  static constexpr std::string_view kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  static constexpr std::string_view kDecimal[] = {"k", "M", "G", "T", "P", "E"};
  bool known = suffix.empty();
  for (int k = 0; k < 6; ++k) {
    if (suffix == kBinary[k]) scale2 += 10 * (k + 1), known = true;
    if (suffix == kDecimal[k]) scale10 += 3 * (k + 1), known = true;
  }
  if (suffix == "m") scale10 -= 3, known = true;
  if (!known && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    int e = 0;
    const std::string_view exp = suffix.substr(suffix[1] == '+' || suffix[1] == '-' ? 2 : 1);
    if (exp.empty() || exp.size() > 3) return std::nullopt;
    for (const char c : exp) {
      if (c < '0' || c > '9') return std::nullopt;
      e = e * 10 + (c - '0');
    }
    scale10 += suffix[1] == '-' ? -e : e;
    known = true;
  }
  if (!known || scale10 > 24 || scale10 < -40) return std::nullopt;
  Uint128 num = mantissa << scale2;
  Uint128 den = static_cast<Uint128>(1) << 20;
  for (; scale10 > 0; --scale10) num *= 10;
  for (; scale10 < 0; ++scale10) den *= 10;
  const Uint128 mb = (num + den - 1) / den;
  if (mb > static_cast<Uint128>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(mb);
}

class ClassReader : vsphere::json::TypedReader {
 public:
  using TypedReader::TypedReader;

  std::vector<VmClass> read(const std::vector<Value>& docs) {
    std::vector<VmClass> out;
    std::set<std::string> other_kinds;
    for (const Value& doc : docs) {
      if (doc.is(Type::null)) continue;
      object(doc, "a YAML document");
      const std::string kind = text(required(doc, "kind", "a Kubernetes object"), "kind");
      if (kind == "List") {
        for (const Value& item : array(required(doc, "items", "a List"), "items")) {
          object(item, "a List item");
          const std::string item_kind = text(required(item, "kind", "a List item"), "kind");
          if (item_kind == kKind) {
            out.push_back(read_class(item));
          } else {
            other_kinds.insert(item_kind);
          }
        }
      } else if (kind == kKind) {
        out.push_back(read_class(doc));
      } else {
        other_kinds.insert(kind);
      }
    }
    if (out.empty()) {
      std::string found;
      for (const std::string& k : other_kinds) found += (found.empty() ? "" : ", ") + k;
      throw Error(source_.path(), "no VirtualMachineClass in the file" +
                                      (found.empty() ? std::string() : " (found " + found + ")"));
    }
    return out;
  }

 private:
  const Value& required(const Value& obj, std::string_view key, std::string_view what) const {
    const Value* v = obj.find(key);
    if (v == nullptr) fail(obj, fmt::format("{} without {}", what, key));
    return *v;
  }

  static const Value* present(const Value& obj, std::string_view key) {
    const Value* v = obj.find(key);
    return v == nullptr || v->is(Type::null) ? nullptr : v;
  }

  // Refuses a field the type does not have, as the API server's strict field validation does.
  void check_fields(const Value& obj, std::string_view what,
                    std::initializer_list<std::string_view> fields) const {
    for (const Member& m : obj.members) {
      bool known = false;
      for (const std::string_view f : fields) known = known || m.key == f;
      if (!known) {
        fail_at(m.key_span.begin,
                fmt::format("{} has no field {}", what, vsphere::quote_for_message(m.key)));
      }
    }
  }

  std::int64_t memory_of(const Value& v, std::string_view what) const {
    const bool scalar = v.is(Type::string) || v.is(Type::number);
    const auto mb = scalar ? quantity_mb(v.text) : std::nullopt;
    if (!mb) {
      fail(v, fmt::format("{} must be a quantity such as 128Gi, not {}", what,
                          v.is(Type::string) ? vsphere::quote_for_message(v.text)
                                             : vsphere::json::describe(v)));
    }
    return *mb;
  }

  VmClass read_class(const Value& obj);
  void read_hardware(const Value& hw, vsphere::ConfigSpec& spec, bool devices_ignored,
                     VmClass& out) const;
  void read_devices(const Value& devices, vsphere::ConfigSpec& spec) const;
  void read_policies(const Value& policies, vsphere::ConfigSpec& spec) const;
  static void add_placement_notes(VmClass& out);
};

VmClass ClassReader::read_class(const Value& obj) {
  VmClass out;
  out.whole = obj.span;
  check_fields(obj, kKind, {"apiVersion", "kind", "metadata", "spec", "status"});
  const Value& api = required(obj, "apiVersion", "a VirtualMachineClass");
  out.api_version = text(api, "apiVersion");
  const bool in_group = out.api_version.rfind(kGroup, 0) == 0;
  const std::string_view version =
      in_group ? std::string_view(out.api_version).substr(kGroup.size()) : std::string_view();
  if (!in_group || version.size() != 8 || version.substr(0, 7) != "v1alpha" || version[7] < '1' ||
      version[7] > '6') {
    fail(api, fmt::format("apiVersion {}: vmxkit reads VirtualMachineClass of "
                          "vmoperator.vmware.com/v1alpha1 to v1alpha6",
                          vsphere::quote_for_message(out.api_version)));
  }
  if (const Value* meta = present(obj, "metadata")) {
    object(*meta, "metadata");
    if (const Value* n = present(*meta, "name")) out.name = text(*n, "metadata.name");
    if (const Value* ns = present(*meta, "namespace")) {
      out.namespace_name = text(*ns, "metadata.namespace");
    }
  }
  vsphere::ConfigSpec spec;
  const Value* spec_obj = present(obj, "spec");
  if (spec_obj != nullptr) {
    object(*spec_obj, "spec");
    check_fields(*spec_obj, "VirtualMachineClassSpec",
                 {"controllerName", "hardware", "policies", "description", "configSpec",
                  "reservedProfileID", "reservedSlots"});
  }
  const Value* config_spec = spec_obj == nullptr ? nullptr : present(*spec_obj, "configSpec");
  if (config_spec != nullptr && config_spec->is(Type::object) && config_spec->members.empty()) {
    config_spec = nullptr;
  }
  if (config_spec != nullptr) {
    vsphere::JsonConfigSpec j = vsphere::read_vi_json(*config_spec, source_);
    if (j.type_name != "VirtualMachineConfigSpec") {
      fail(*config_spec, "configSpec must be a VirtualMachineConfigSpec, not a " + j.type_name);
    }
    spec = std::move(j.spec);
  }
  if (spec_obj != nullptr) {
    if (const Value* hw = present(*spec_obj, "hardware")) {
      read_hardware(*hw, spec, config_spec != nullptr, out);
    }
    if (const Value* policies = present(*spec_obj, "policies")) read_policies(*policies, spec);
  }
  out.config = vsphere::to_vm_config(spec, &source_);
  const SourceSpan at = config_spec != nullptr ? config_spec->span : out.whole;
  out.notes.push_back({spec.firmware ? spec.firmware_span : at,
                       spec.firmware
                           ? "VM Operator gives a VM of this class the firmware of the VM's "
                             "spec.bootOptions, else of its image, not the class's"
                           : "the class sets no firmware: VM Operator takes it from the VM's "
                             "spec.bootOptions, else from its image"});
  add_placement_notes(out);
  add_vm_operator_defaults(out.config, out.notes);
  return out;
}

void ClassReader::read_hardware(const Value& hw, vsphere::ConfigSpec& spec, bool devices_ignored,
                                VmClass& out) const {
  object(hw, "hardware");
  check_fields(hw, "VirtualMachineClassHardware", {"cpus", "memory", "devices", "instanceStorage"});
  // hardware.cpus and hardware.memory override the configSpec's (CreateConfigSpec).
  if (const Value* cpus = present(hw, "cpus")) {
    const std::int64_t n = integer(*cpus, "hardware.cpus");
    if (n < 1 || n > INT32_MAX) fail(*cpus, "hardware.cpus must be 1 or more");
    spec.num_cpus = static_cast<std::int32_t>(n);
    spec.cpus_span = cpus->span;
  }
  if (const Value* memory = present(hw, "memory")) {
    spec.memory_mb = memory_of(*memory, "hardware.memory");
    spec.memory_span = memory->span;
  }
  const Value* devices = present(hw, "devices");
  if (devices == nullptr) return;
  object(*devices, "hardware.devices");
  check_fields(*devices, "VirtualDevices", {"vgpuDevices", "dynamicDirectPathIODevices"});
  if (!devices_ignored) {
    read_devices(*devices, spec);
    return;
  }
  vsphere::ConfigSpec unused;
  read_devices(*devices, unused);  // checked all the same
  if (!unused.device_change.empty()) {
    out.notes.push_back({devices->span,
                         "hardware.devices is ignored: with a configSpec VM Operator takes the "
                         "devices from configSpec.deviceChange only"});
  }
}

// vgpuDevices and dynamicDirectPathIODevices as VM Operator turns them into device changes
// (pkg/util/devices.go): a vmiop backing per profile, a Dynamic DirectPath backing with one
// allowed device per entry, keys from -200 down.
void ClassReader::read_devices(const Value& devices, vsphere::ConfigSpec& spec) const {
  std::int32_t key = -200;
  std::set<std::string> profiles;
  if (const Value* vgpus = present(devices, "vgpuDevices")) {
    for (const Value& v : array(*vgpus, "vgpuDevices")) {
      object(v, "a vgpuDevices entry");
      check_fields(v, "VGPUDevice", {"profileName"});
      const Value& name = required(v, "profileName", "a vgpuDevices entry");
      vsphere::DeviceChange dc;
      dc.key = key--;
      dc.backing_type = vsphere::BackingType::vmiop;
      dc.vgpu = text(name, "profileName");
      if (!profiles.insert(dc.vgpu).second) {
        fail(name, fmt::format("vgpuDevices lists profile {} twice: the API server refuses it "
                               "(a list keyed by profileName); list each vGPU in "
                               "configSpec.deviceChange instead",
                               vsphere::quote_for_message(dc.vgpu)));
      }
      dc.whole = dc.device_span = v.span;
      dc.vgpu_span = dc.backing_span = name.span;
      spec.device_change.push_back(std::move(dc));
    }
  }
  const Value* ddpio = present(devices, "dynamicDirectPathIODevices");
  if (ddpio == nullptr) return;
  for (const Value& d : array(*ddpio, "dynamicDirectPathIODevices")) {
    object(d, "a dynamicDirectPathIODevices entry");
    check_fields(d, "DynamicDirectPathIODevice", {"vendorID", "deviceID", "customLabel"});
    vsphere::AllowedDevice a;
    for (const auto& [field, target] :
         {std::pair{"vendorID", &a.vendor_id}, std::pair{"deviceID", &a.device_id}}) {
      const Value& v = required(d, field, "a dynamicDirectPathIODevices entry");
      const std::int64_t id = integer(v, field);
      if (id < 0 || id > 0xffff) fail(v, fmt::format("{} must be a PCI id, 0 to 65535", field));
      *target = static_cast<std::int32_t>(id);
    }
    a.whole = d.span;
    vsphere::DeviceChange dc;
    dc.key = key--;
    dc.backing_type = vsphere::BackingType::dynamic;
    dc.allowed_devices.push_back(a);
    if (const Value* label = present(d, "customLabel"))
      dc.custom_label = text(*label, "customLabel");
    dc.whole = dc.device_span = dc.backing_span = dc.allowed_span = d.span;
    spec.device_change.push_back(std::move(dc));
  }
}

// policies.resources: the memory request is the reservation, the limit the limit (both over
// the configSpec's memoryAllocation). CPU requests are in MHz of the cluster's CPUs: not read.
void ClassReader::read_policies(const Value& policies, vsphere::ConfigSpec& spec) const {
  object(policies, "policies");
  check_fields(policies, "VirtualMachineClassPolicies", {"resources"});
  const Value* resources = present(policies, "resources");
  if (resources == nullptr) return;
  object(*resources, "policies.resources");
  check_fields(*resources, "VirtualMachineClassResources", {"requests", "limits"});
  for (const std::string_view which : {"requests", "limits"}) {
    const Value* r = present(*resources, which);
    if (r == nullptr) continue;
    object(*r, which);
    check_fields(*r, "VirtualMachineResourceSpec", {"cpu", "memory"});
    if (const Value* cpu = present(*r, "cpu")) memory_of(*cpu, "cpu");  // a quantity too
    const Value* memory = present(*r, "memory");
    if (memory == nullptr) continue;
    const std::int64_t mb = memory_of(*memory, fmt::format("policies.resources.{}.memory", which));
    if (which == "requests") {
      spec.memory_reservation_mb = mb;
      spec.reservation_span = memory->span;
    } else {
      spec.memory_limit_mb = mb;
      spec.limit_span = memory->span;
    }
  }
}

void ClassReader::add_placement_notes(VmClass& out) {
  for (const PassthroughDevice& d : out.config.passthrough_devices()) {
    if (!d.present || d.kind() != PassthroughKind::dynamic) continue;
    const Setting& first = out.config.settings[d.settings.front()];
    out.notes.push_back(
        {first.whole,
         fmt::format("pciPassthru{} ({}) is named by vendor and device id: vSphere picks the "
                     "host device when the VM powers on, and with it the device's PCIe path to "
                     "the VM's other devices (placement by vSphere)",
                     d.index, d.allowed_devices.value_or(""))});
  }
}

}  // namespace

void add_vm_operator_defaults(VmConfig& config, std::vector<FormNote>& notes) {
  const PassthroughDevice* first = nullptr;
  const std::vector<PassthroughDevice> devices = config.passthrough_devices();
  for (const PassthroughDevice& d : devices) {
    const PassthroughKind k = d.kind();
    if (d.present && (k == PassthroughKind::vgpu || k == PassthroughKind::dynamic ||
                      k == PassthroughKind::directpath)) {
      first = &d;
      break;
    }
  }
  if (first == nullptr) return;
  const SourceSpan at = config.settings[first->settings.front()].whole;
  static constexpr std::pair<std::string_view, std::string_view> kDefaults[] = {
      {"pciPassthru.use64bitMMIO", "TRUE"}, {"pciPassthru.64bitMMIOSizeGB", "512"}};
  for (const auto& [key, value] : kDefaults) {
    if (config.find(key) != nullptr) continue;
    config.add(std::string(key), std::string(value), at, at);
    notes.push_back({at, fmt::format("{} = \"{}\" is added by VM Operator to a VM of a class with "
                                     "PCI devices (the VM's annotation "
                                     "vmoperator.vmware.com/pci-passthru-64bit-mmio-size changes "
                                     "the size; 0 turns 64-bit MMIO off)",
                                     key, value)});
  }
}

std::vector<VmClass> read_vmclass_yaml(const SourceFile& source) {
  vsphere::refuse_wide_encoding(source);
  return ClassReader(source).read(yaml::parse_documents(source));
}

namespace {

// Whether `text` has the member `key` (YAML `key:` or JSON `"key":`, quoted or not) whose
// value starts with `value` and, when `whole`, ends there.
bool has_member(std::string_view text, std::string_view key, std::string_view value, bool whole) {
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    const char before = at == 0 ? '\n' : text[at - 1];
    if (std::string_view(" \t\r\n{,-\"'").find(before) == std::string_view::npos) continue;
    std::size_t i = at + key.size();
    if (i < text.size() && (text[i] == '"' || text[i] == '\'')) ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size() || text[i] != ':') continue;
    ++i;
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '"' || text[i] == '\'')) {
      ++i;
    }
    if (text.substr(i, value.size()) != value) continue;
    i += value.size();
    if (!whole || i == text.size() ||
        std::string_view(" \t\r\n\"',#}").find(text[i]) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool looks_like_vmclass_yaml(std::string_view bytes) {
  constexpr std::size_t kSniffBytes = std::size_t{64} << 10;
  const std::string_view head = bytes.substr(0, kSniffBytes);
  return has_member(head, "kind", kKind, true) && has_member(head, "apiVersion", kGroup, false);
}

}  // namespace vmxkit::vmclass

namespace vmxkit::vmclass {

void read_vmclass_input(vsphere::Loaded& into) {
  for (VmClass& c : read_vmclass_yaml(into.source)) {
    vsphere::LoadedVm loaded;
    loaded.name = c.namespace_name.empty() ? c.name : c.namespace_name + "/" + c.name;
    loaded.config = std::move(c.config);
    loaded.notes = std::move(c.notes);
    // Without a firmware in its configSpec, a class leaves it to the VM: not BIOS, unknown.
    if (loaded.config.find("firmware") == nullptr) {
      loaded.unknown.push_back(
          {"firmware (the VM's spec.bootOptions, else its image)", {"firmware"}, c.whole});
    }
    into.vms.push_back(std::move(loaded));
  }
}

}  // namespace vmxkit::vmclass
