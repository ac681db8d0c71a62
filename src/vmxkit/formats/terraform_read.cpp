// SPDX-License-Identifier: Apache-2.0
// Reads `terraform show -json` (internal/command/jsonplan/plan.go and jsonstate/state.go of
// hashicorp/terraform) into the VMs of vmware/terraform-provider-vsphere's resources. What each
// attribute becomes follows the provider's own expansion (docs/terraform-and-vmclass.md).
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <unordered_set>

#include "vmxkit/core/error.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/terraform.h"
#include "vmxkit/formats/vmclass.h"
#include "vmxkit/formats/vsphere/json.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/model/host.h"

namespace vmxkit::terraform {
namespace {

using vsphere::json::Member;
using vsphere::json::Value;
using Type = Value::Type;

constexpr std::string_view kVmType = "vsphere_virtual_machine";
constexpr std::string_view kClassType = "vsphere_virtual_machine_class";
constexpr std::string_view kPciDataType = "vsphere_host_pci_device";
constexpr std::string_view kDevices = "pciPassthru*";

// A part of an `after_unknown` or `*_sensitive` mirror: `true` marks all of it.
bool marked(const Value* v) { return v != nullptr && v->is(Type::boolean) && v->boolean; }
const Value* part(const Value* v, std::string_view key) {
  return v != nullptr && v->is(Type::object) ? v->find(key) : nullptr;
}
const Value* item(const Value* v, std::size_t i) {
  return v != nullptr && v->is(Type::array) && i < v->items.size() ? &v->items[i] : nullptr;
}
const Member* member_of(const Value& obj, std::string_view key) {
  for (const Member& m : obj.members) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

// What a `data.vsphere_host_pci_device` read says of a host device: the provider's
// `vendor_id` output is strconv.FormatInt(int64(int16 vendorId), 16), so 0x8086 is "-7f7a".
struct PciFact {
  std::string host_id;
  std::string id;
  std::uint16_t vendor = 0;
  std::string address;  // the data source's resource address
};

std::optional<std::uint16_t> parse_provider_vendor(std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty() || text.size() > 4) return std::nullopt;
  int v = 0;
  for (const char c : text) {
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + d;
  }
  if (negative) v = -v;
  if (v < -0x8000 || v > 0x7fff) return std::nullopt;
  return static_cast<std::uint16_t>(v & 0xffff);
}

// One resource to read, from a resource change (plan) or a module's resource (state).
struct ResourceInput {
  const Value* whole = nullptr;
  std::string address;
  std::string provider;
  ResourceType type = ResourceType::virtual_machine;
  std::vector<std::string> actions;
  const Value* values = nullptr;     // `after` or `values`
  const Value* unknown = nullptr;    // `after_unknown`
  const Value* sensitive = nullptr;  // `after_sensitive` or `sensitive_values`
};

// The VM being built: its attributes, their marks, and the next pciPassthruN.
struct VmBuild {
  TerraformVm& vm;
  const Value& values;
  const Value* unknown;
  const Value* sensitive;
  unsigned next_device = 0;
};

class Reader : vsphere::json::TypedReader {
 public:
  explicit Reader(const SourceFile& source) : TypedReader(source) {}

  TerraformJson read(const Value& root) {
    object(root, "a `terraform show -json` document");
    TerraformJson out;
    read_version(root, out);
    const bool plan = root.find("planned_values") != nullptr ||
                      root.find("resource_changes") != nullptr ||
                      root.find("prior_state") != nullptr || root.find("configuration") != nullptr;
    out.kind = plan ? DocumentKind::plan : DocumentKind::state;
    std::vector<ResourceInput> inputs;
    if (plan) {
      if (const Value* prior = present(root, "prior_state")) {
        object(*prior, "prior_state");
        if (const Value* v = present(*prior, "values")) module_root(*v, "prior_state.values");
      }
      if (const Value* changes = present(root, "resource_changes")) {
        for (const Value& rc : array(*changes, "resource_changes")) resource_change(rc, inputs);
      } else if (const Value* planned = present(root, "planned_values")) {
        module_root(*planned, "planned_values", &inputs);
      }
    } else if (const Value* values = present(root, "values")) {
      module_root(*values, "values", &inputs);
    }
    for (const ResourceInput& in : inputs) out.vms.push_back(build(in));
    return out;
  }

 private:
  static const Value* present(const Value& obj, std::string_view key) {
    const Value* v = obj.find(key);
    return v == nullptr || v->is(Type::null) ? nullptr : v;
  }

  void read_version(const Value& root, TerraformJson& out) const {
    const Value* v = root.find("format_version");
    if (v == nullptr) {
      fail(root,
           "a JSON object without format_version: not `terraform show -json` output (a plan "
           "or a state)");
    }
    out.format_version = text(*v, "format_version");
    const std::size_t dot = out.format_version.find('.');
    const std::string_view major = std::string_view(out.format_version).substr(0, dot);
    if (dot == std::string::npos || (major != "0" && major != "1")) {
      fail(*v, fmt::format("format_version {}: vmxkit reads the format versions 0.x and 1.x of "
                           "`terraform show -json` (Terraform 0.12 to 1.x); another major "
                           "version may change the document's shape",
                           vsphere::quote_for_message(out.format_version)));
    }
    if (const Value* tv = present(root, "terraform_version")) {
      out.terraform_version = text(*tv, "terraform_version");
    }
  }

  static std::optional<ResourceType> vm_type(std::string_view type) {
    if (type == kVmType) return ResourceType::virtual_machine;
    if (type == kClassType) return ResourceType::virtual_machine_class;
    return std::nullopt;
  }

  std::string text_or(const Value& obj, std::string_view key, std::string_view what) const {
    const Value* v = present(obj, key);
    return v == nullptr ? std::string() : text(*v, what);
  }

  void resource_change(const Value& rc, std::vector<ResourceInput>& inputs) const {
    object(rc, "a resource_changes entry");
    const std::string mode = text_or(rc, "mode", "mode");
    const auto type = vm_type(text_or(rc, "type", "type"));
    if (mode != "managed" || !type) return;
    // A deposed object is one that create_before_destroy leaves to be destroyed.
    if (!text_or(rc, "deposed", "deposed").empty()) return;
    const Value* address = rc.find("address");
    if (address == nullptr) fail(rc, "a resource_changes entry without address");
    const Value* change = rc.find("change");
    if (change == nullptr) fail(rc, "a resource_changes entry without change");
    object(*change, "change");
    const Value* after = present(*change, "after");
    if (after == nullptr) return;  // deleted: no VM after the apply
    ResourceInput in;
    in.whole = &rc;
    in.address = text(*address, "address");
    in.provider = text_or(rc, "provider_name", "provider_name");
    in.type = *type;
    if (const Value* actions = present(*change, "actions")) {
      for (const Value& a : array(*actions, "actions")) in.actions.push_back(text(a, "an action"));
    }
    in.values = &object(*after, "after");
    in.unknown = change->find("after_unknown");
    in.sensitive = change->find("after_sensitive");
    inputs.push_back(in);
  }

  // A state's or plan's `values`-like object: its `root_module`, and the modules under it.
  void module_root(const Value& v, std::string_view what, std::vector<ResourceInput>* inputs = {}) {
    object(v, what);
    if (const Value* root = present(v, "root_module")) module(*root, inputs, 0);
  }

  void module(const Value& m, std::vector<ResourceInput>* inputs, int depth) {
    object(m, "a module");
    if (const Value* resources = present(m, "resources")) {
      for (const Value& r : array(*resources, "resources")) resource(r, inputs);
    }
    if (const Value* children = present(m, "child_modules")) {
      for (const Value& c : array(*children, "child_modules")) module(c, inputs, depth + 1);
    }
  }

  void resource(const Value& r, std::vector<ResourceInput>* inputs) {
    object(r, "a resource");
    const std::string mode = text_or(r, "mode", "mode");
    const std::string type = text_or(r, "type", "type");
    const Value* values = present(r, "values");
    if (mode == "data" && type == kPciDataType && values != nullptr) {
      pci_fact(r, object(*values, "values"));
      return;
    }
    const auto vm = vm_type(type);
    if (inputs == nullptr || mode != "managed" || !vm) return;
    if (!text_or(r, "deposed_key", "deposed_key").empty()) return;
    const Value* address = r.find("address");
    if (address == nullptr) fail(r, "a resource without address");
    if (values == nullptr) fail(r, "a resource without values");
    ResourceInput in;
    in.whole = &r;
    in.address = text(*address, "address");
    in.provider = text_or(r, "provider_name", "provider_name");
    in.type = *vm;
    in.values = &object(*values, "values");
    in.sensitive = r.find("sensitive_values");
    inputs->push_back(in);
  }

  void pci_fact(const Value& r, const Value& values) {
    PciFact f;
    f.host_id = text_or(values, "host_id", "host_id");
    f.id = text_or(values, "id", "id");
    f.address = text_or(r, "address", "address");
    const auto vendor = parse_provider_vendor(text_or(values, "vendor_id", "vendor_id"));
    if (f.host_id.empty() || f.id.empty() || !vendor) return;
    f.vendor = *vendor;
    facts_.push_back(std::move(f));
  }

  TerraformVm build(const ResourceInput& in) const;
  void read_vm(VmBuild& b) const;
  void read_class(VmBuild& b) const;
  void read_memory(VmBuild& b) const;
  void read_pci_devices(VmBuild& b) const;
  void read_sriov(VmBuild& b) const;
  void read_sriov_nic(VmBuild& b, const Value& nic, std::size_t i, const Value* marks) const;
  void read_extra_config(VmBuild& b) const;
  bool is_unknown(VmBuild& b, std::string_view name, std::vector<std::string> keys) const;
  const Value* attribute(VmBuild& b, std::string_view name, std::vector<std::string> keys) const;
  void add(VmBuild& b, std::string_view name, std::string key, std::string value) const;
  std::optional<std::int64_t> int_attribute(VmBuild& b, std::string_view name,
                                            std::string_view key) const;

  std::vector<PciFact> facts_;
};

TerraformVm Reader::build(const ResourceInput& in) const {
  TerraformVm vm;
  vm.address = in.address;
  vm.type = in.type;
  vm.provider = in.provider;
  vm.actions = in.actions;
  vm.whole = in.whole->span;
  VmBuild b{vm, *in.values, in.unknown, in.sensitive};
  if (in.type == ResourceType::virtual_machine) {
    read_vm(b);
  } else {
    read_class(b);
  }
  return vm;
}

// Records `name` as unknown when after_unknown marks it; its keys are those it would set.
bool Reader::is_unknown(VmBuild& b, std::string_view name, std::vector<std::string> keys) const {
  const Value* mark = part(b.unknown, name);
  if (!marked(mark)) return false;
  b.vm.unknown.push_back({std::string(name), std::move(keys), mark->span});
  return true;
}

// The attribute's value, or nullptr when it is absent, null or unknown (recorded as such).
const Value* Reader::attribute(VmBuild& b, std::string_view name,
                               std::vector<std::string> keys) const {
  if (marked(part(b.sensitive, name))) {
    b.vm.sensitive.insert(b.vm.sensitive.end(), keys.begin(), keys.end());
  }
  if (is_unknown(b, name, std::move(keys))) return nullptr;
  return present(b.values, name);
}

// A setting from attribute `name`, spanning its member.
void Reader::add(VmBuild& b, std::string_view name, std::string key, std::string value) const {
  const Member* m = member_of(b.values, name);
  Setting s;
  s.key = std::move(key);
  s.value = std::move(value);
  if (m != nullptr) {
    s.whole = {m->key_span.begin, m->value.span.end};
    s.key_span = m->key_span;
    s.value_span = m->value.span;
  } else {
    s.whole = s.key_span = s.value_span = {b.values.span.begin, b.values.span.begin};
  }
  b.vm.config.settings.push_back(std::move(s));
}

std::optional<std::int64_t> Reader::int_attribute(VmBuild& b, std::string_view name,
                                                  std::string_view key) const {
  const Value* v = attribute(b, name, {std::string(key)});
  if (v == nullptr) return std::nullopt;
  const std::int64_t n = integer(*v, name);
  add(b, name, std::string(key), std::to_string(n));
  return n;
}

void Reader::read_vm(VmBuild& b) const {
  if (const Value* v = attribute(b, "name", {"displayName"})) {
    add(b, "name", "displayName", text(*v, "name"));
  }
  if (const Value* v = attribute(b, "guest_id", {"guestOS"})) {
    add(b, "guest_id", "guestOS", text(*v, "guest_id"));
  }
  int_attribute(b, "num_cpus", "numvcpus");
  int_attribute(b, "num_cores_per_socket", "cpuid.coresPerSocket");
  read_pci_devices(b);
  read_sriov(b);
  read_memory(b);
  read_extra_config(b);
  const Value* firmware = attribute(b, "firmware", {"firmware"});
  if (firmware != nullptr) {
    add(b, "firmware", "firmware", text(*firmware, "firmware"));
  } else if (!marked(part(b.unknown, "firmware"))) {
    // The schema's default (virtual_machine_config_structure.go: Default "bios").
    add(b, "firmware", "firmware", "bios");
  }
  if (const Value* v = attribute(b, "nested_hv_enabled", {"vhv.enable"})) {
    if (!v->is(Type::boolean)) fail(*v, "nested_hv_enabled must be true or false");
    add(b, "nested_hv_enabled", "vhv.enable", v->boolean ? "TRUE" : "FALSE");
  }
}

// memory, memory_reservation, memory_reservation_locked_to_max, memory_limit, as the provider
// sends them: the reservation is 0 when unset, and the lock is sent as true only when the
// reservation equals the memory, as false when it does not (getMemoryReservationLockedToMax).
void Reader::read_memory(VmBuild& b) const {
  const auto memory = int_attribute(b, "memory", "memsize");
  const bool reservation_unknown = is_unknown(b, "memory_reservation", {"sched.mem.min"});
  std::optional<std::int64_t> reservation;
  if (!reservation_unknown) {
    const Value* v = present(b.values, "memory_reservation");
    reservation = v == nullptr ? 0 : integer(*v, "memory_reservation");
    add(b, "memory_reservation", "sched.mem.min", std::to_string(*reservation));
  }
  const Value* locked = attribute(b, "memory_reservation_locked_to_max", {"sched.mem.pin"});
  if (locked != nullptr && !locked->is(Type::boolean)) {
    fail(*locked, "memory_reservation_locked_to_max must be true or false");
  }
  if (!memory || !reservation) {
    if (locked != nullptr) {
      b.vm.unknown.push_back({"memory_reservation_locked_to_max", {"sched.mem.pin"}, locked->span});
    }
  } else if (*memory != *reservation && locked != nullptr) {
    add(b, "memory_reservation_locked_to_max", "sched.mem.pin", "FALSE");
    if (locked->boolean) {
      b.vm.notes.push_back(
          {locked->span,
           "memory_reservation_locked_to_max = true is sent as false: the provider locks the "
           "reservation only when memory_reservation equals memory"});
    }
  } else if (locked != nullptr && locked->boolean) {
    add(b, "memory_reservation_locked_to_max", "sched.mem.pin", "TRUE");
  }
  if (const Value* limit = attribute(b, "memory_limit", {"sched.mem.max"})) {
    add(b, "memory_limit", "sched.mem.max", std::to_string(integer(*limit, "memory_limit")));
  }
}

// pci_device_id: host addresses (HostPciDevice.id, `0000:3b:00.0`). The provider looks each up
// on host_system_id's hardware.pciDevice by exact string and sends a
// VirtualPCIPassthroughDeviceBackingInfo with that id, the host's vendorId, the first
// pciPassthrough systemId of QueryConfigTarget, and no deviceId.
void Reader::read_pci_devices(VmBuild& b) const {
  const Value* host = present(b.values, "host_system_id");
  const std::string host_id =
      host != nullptr && host->is(Type::string) && !marked(part(b.unknown, "host_system_id"))
          ? host->text
          : std::string();
  const Value* list = attribute(b, "pci_device_id", {std::string(kDevices)});
  if (list == nullptr) return;
  const Value* marks = part(b.unknown, "pci_device_id");
  const std::vector<Value>& ids = array(*list, "pci_device_id");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string name = fmt::format("pci_device_id[{}]", i);
    if (marked(item(marks, i)) || ids[i].is(Type::null)) {
      b.vm.unknown.push_back({name, {std::string(kDevices)}, ids[i].span});
      continue;
    }
    const std::string id = text(ids[i], name);
    const std::string p = fmt::format("pciPassthru{}.", b.next_device++);
    const auto bdf = parse_bdf(id);
    b.vm.config.add(p + "present", "TRUE", ids[i].span, ids[i].span);
    b.vm.config.add(p + "id", bdf ? bdf->to_vmx() : id, ids[i].span, ids[i].span);
    if (bdf && bdf->to_string() != id) {
      b.vm.notes.push_back(
          {ids[i].span,
           fmt::format("{} {}: the provider compares it with the host's HostPciDevice.id ({}) "
                       "letter for letter, and fails with \"unable to locate PCI device\"",
                       name, vsphere::quote_for_message(id), bdf->to_string())});
    }
    for (const PciFact& f : facts_) {
      if (f.host_id == host_id && f.id == id) {
        b.vm.config.add(p + "vendorId", fmt::format("0x{:04x}", f.vendor), ids[i].span,
                        ids[i].span);
        break;
      }
    }
  }
}

// network_interface blocks with adapter_type "sriov" (provider 2.6.0): a
// VirtualSriovEthernetCard whose physical function backing is the PF's id with deviceId "0",
// vendorId 0 and systemId "BYPASS" (addPhysicalFunction), as ESXi writes a VF in a .vmx.
void Reader::read_sriov(VmBuild& b) const {
  const Value* list = attribute(b, "network_interface", {std::string(kDevices)});
  if (list == nullptr) return;
  const Value* marks = part(b.unknown, "network_interface");
  const std::vector<Value>& nics = array(*list, "network_interface");
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const Value* nic_marks = item(marks, i);
    if (marked(nic_marks)) {
      b.vm.unknown.push_back(
          {fmt::format("network_interface[{}]", i), {std::string(kDevices)}, nic_marks->span});
      continue;
    }
    read_sriov_nic(b, object(nics[i], "a network_interface"), i, nic_marks);
  }
}

void Reader::read_sriov_nic(VmBuild& b, const Value& nic, std::size_t i, const Value* marks) const {
  const auto unknown = [&](std::string_view field) {
    const Value* m = part(marks, field);
    if (!marked(m)) return false;
    b.vm.unknown.push_back(
        {fmt::format("network_interface[{}].{}", i, field), {std::string(kDevices)}, m->span});
    return true;
  };
  if (unknown("adapter_type")) return;
  const Value* type = present(nic, "adapter_type");
  if (type == nullptr || text(*type, "adapter_type") != "sriov") return;
  if (unknown("physical_function")) return;
  const Value* pf = present(nic, "physical_function");
  const std::string pf_text = pf == nullptr ? std::string() : text(*pf, "physical_function");
  const SourceSpan at = pf != nullptr ? pf->span : type->span;
  const auto bdf = parse_bdf(pf_text);
  const std::string vmx_pf = bdf ? bdf->to_vmx() : pf_text;
  const std::string p = fmt::format("pciPassthru{}.", b.next_device++);
  b.vm.config.add(p + "present", "TRUE", type->span, type->span);
  if (!pf_text.empty()) {
    b.vm.config.add(p + "pfId", vmx_pf, at, at);
    b.vm.config.add(p + "id", vmx_pf, at, at);
  }
  b.vm.config.add(p + "deviceId", "0", at, at);
  b.vm.config.add(p + "vendorId", "0", at, at);
  b.vm.config.add(p + "systemId", "BYPASS", at, at);
  if (unknown("network_id")) return;
  const Value* network = present(nic, "network_id");
  if (network == nullptr) return;
  const std::string id = text(*network, "network_id");
  // A distributed port group's key is its managed object id (`dvportgroup-78`); a standard
  // port group is named by the network's moref in Terraform, never by its name.
  if (id.rfind("dvportgroup-", 0) == 0) {
    b.vm.config.add(p + "dvs.portgroupId", id, network->span, network->span);
  } else if (!id.empty()) {
    b.vm.config.add(p + "networkName", id, network->span, network->span);
    b.vm.notes.push_back(
        {network->span,
         fmt::format("network_interface[{}].network_id {} is a managed object id: the port "
                     "group's name is not in the document",
                     i, vsphere::quote_for_message(id))});
  }
}

// extra_config: a map of strings. Unknown keys are omitted from `after` and marked in
// after_unknown one by one, or the whole map is.
void Reader::read_extra_config(VmBuild& b) const {
  const Value* map = attribute(b, "extra_config", {"*"});
  const Value* marks = part(b.unknown, "extra_config");
  if (marks != nullptr && marks->is(Type::object)) {
    for (const Member& m : marks->members) {
      if (!marked(&m.value)) continue;
      b.vm.unknown.push_back({fmt::format("extra_config[{}]", vsphere::quote_for_message(m.key)),
                              {m.key},
                              m.value.span});
    }
  }
  if (map == nullptr) return;
  object(*map, "extra_config");
  // The keys after_sensitive marks, looked up once each (a map may have many keys).
  std::unordered_set<std::string_view> sensitive;
  if (const Value* secret = part(b.sensitive, "extra_config")) {
    for (const Member& m : secret->members) {
      if (marked(&m.value)) sensitive.insert(m.key);
    }
  }
  for (const Member& m : map->members) {
    if (m.value.is(Type::null)) continue;  // an unknown value, marked above
    const std::string value =
        text(m.value, fmt::format("extra_config[{}]", vsphere::quote_for_message(m.key)));
    b.vm.config.settings.push_back(
        {m.key, value, {m.key_span.begin, m.value.span.end}, m.key_span, m.value.span});
    if (sensitive.count(m.key) != 0) b.vm.sensitive.push_back(m.key);
  }
}

// vsphere_virtual_machine_class (provider 2.8.0): a VM Service class through the vCenter
// namespace-management API. memory_reservation is a percentage of memory.
void Reader::read_class(VmBuild& b) const {
  if (const Value* v = attribute(b, "name", {"displayName"})) {
    add(b, "name", "displayName", text(*v, "name"));
  }
  int_attribute(b, "cpus", "numvcpus");
  const Value* list = attribute(b, "vgpu_devices", {std::string(kDevices)});
  const Value* marks = part(b.unknown, "vgpu_devices");
  if (list != nullptr) {
    const std::vector<Value>& profiles = array(*list, "vgpu_devices");
    for (std::size_t i = 0; i < profiles.size(); ++i) {
      const std::string name = fmt::format("vgpu_devices[{}]", i);
      if (marked(item(marks, i)) || profiles[i].is(Type::null)) {
        b.vm.unknown.push_back({name, {std::string(kDevices)}, profiles[i].span});
        continue;
      }
      const std::string p = fmt::format("pciPassthru{}.", b.next_device++);
      b.vm.config.add(p + "present", "TRUE", profiles[i].span, profiles[i].span);
      b.vm.config.add(p + "vgpu", text(profiles[i], name), profiles[i].span, profiles[i].span);
    }
  }
  const auto memory = int_attribute(b, "memory", "memsize");
  const Value* percent = attribute(b, "memory_reservation", {"sched.mem.min"});
  if (percent != nullptr && memory) {
    const std::int64_t p = integer(*percent, "memory_reservation");
    if (p < 0 || p > 100) fail(*percent, "memory_reservation must be a percentage, 0 to 100");
    add(b, "memory_reservation", "sched.mem.min", std::to_string(*memory * p / 100));
  }
  b.vm.notes.push_back({b.vm.whole,
                        "a VM class sets no firmware: VM Operator takes it from the VM's "
                        "spec.bootOptions, else from its image"});
  vmclass::add_vm_operator_defaults(b.vm.config, b.vm.notes);
}

}  // namespace

std::string_view to_string(ResourceType type) {
  return type == ResourceType::virtual_machine ? kVmType : kClassType;
}

void add_host_ids(VmConfig& config, std::vector<FormNote>& notes, const pci::Host& host) {
  for (const PassthroughDevice& d : config.passthrough_devices()) {
    if (!d.present || d.kind() != PassthroughKind::directpath || !d.id) continue;
    const auto bdf = parse_vmx_bdf(*d.id);
    const pci::Device* device = bdf ? host.find(*bdf) : nullptr;
    if (device == nullptr || !device->vendor_id || !device->device_id) continue;
    const SourceSpan at = config.settings[d.settings.front()].whole;
    const std::string p = fmt::format("pciPassthru{}.", d.index);
    if (!d.vendor_id) {
      config.add(p + "vendorId", fmt::format("0x{:04x}", *device->vendor_id), at, at);
    }
    if (!d.device_id) {
      config.add(p + "deviceId", fmt::format("0x{:04x}", *device->device_id), at, at);
    }
    notes.push_back(
        {at, fmt::format("pciPassthru{} is host device {} ({:04x}:{:04x}{}), as "
                         "the host capture gives it",
                         d.index, bdf->to_string(), *device->vendor_id, *device->device_id,
                         device->name.empty() ? "" : " " + device->name)});
  }
}

void add_host_ids(TerraformVm& vm, const pci::Host& host) {
  add_host_ids(vm.config, vm.notes, host);
}

bool looks_like_terraform_json(std::string_view bytes) {
  std::size_t i = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < bytes.size() &&
         (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n')) {
    ++i;
  }
  if (i == bytes.size() || bytes[i] != '{') return false;
  // The top-level member names, skipping values: strings and nested brackets are stepped over.
  bool version = false;
  bool other = false;
  int depth = 0;
  bool expect_key = true;
  for (; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (c == '"') {
      const std::size_t start = ++i;
      while (i < bytes.size() && bytes[i] != '"') i += bytes[i] == '\\' ? 2 : 1;
      if (i >= bytes.size()) return false;
      if (depth == 1 && expect_key) {
        const std::string_view key = bytes.substr(start, i - start);
        version = version || key == "format_version";
        other = other || key == "terraform_version" || key == "planned_values" ||
                key == "resource_changes" || key == "values";
        if (version && other) return true;
      }
      expect_key = false;
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = depth == 1;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) break;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return false;
}

TerraformJson read_terraform_json(const SourceFile& source) {
  vsphere::refuse_wide_encoding(source);
  const Value root = vsphere::json::parse(source);
  return Reader(source).read(root);
}

}  // namespace vmxkit::terraform

namespace vmxkit::terraform {

void read_terraform_input(vsphere::Loaded& into) {
  for (TerraformVm& vm : read_terraform_json(into.source).vms) {
    vsphere::LoadedVm loaded;
    loaded.name = std::move(vm.address);
    loaded.config = std::move(vm.config);
    loaded.notes = std::move(vm.notes);
    loaded.unknown = std::move(vm.unknown);
    into.vms.push_back(std::move(loaded));
  }
}

}  // namespace vmxkit::terraform
