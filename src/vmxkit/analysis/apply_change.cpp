// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/apply_change.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string_view>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"

namespace vmxkit::apply {
namespace {

constexpr std::string_view kPlaceholder = "<fill in:";

std::string lower(std::string_view s) { return ascii_lowercase(s); }

// A device id as hex without `0x` and leading zeros: "0x20B5", "20b5" and "020b5" are one id.
std::string hex_id(std::string_view id) {
  std::string s = lower(id);
  if (s.starts_with("0x")) s.erase(0, 2);
  const std::size_t first = s.find_first_not_of('0');
  return first == std::string::npos ? "0" : s.substr(first);
}

std::string backing_identity(const vsphere::DeviceBacking& b) {
  return fmt::format("{}|{}|{:04x}|{}", lower(b.id), hex_id(b.device_id),
                     static_cast<std::uint16_t>(b.vendor_id), lower(b.system_id));
}

bool has_placeholder(std::string_view value) { return value.find(kPlaceholder) != value.npos; }

void add_placeholder(std::vector<std::string>& out, std::string_view where,
                     std::string_view value) {
  if (has_placeholder(value)) out.push_back(fmt::format("{}: {}", where, value));
}

// The devices of `from` with their identities, in order.
std::vector<std::pair<std::string, const vsphere::DeviceChange*>> devices_of(
    const vsphere::ConfigSpec& from, bool skip_removed) {
  std::vector<std::pair<std::string, const vsphere::DeviceChange*>> out;
  for (const vsphere::DeviceChange& d : from.device_change) {
    if (skip_removed && d.operation == "remove") continue;
    out.emplace_back(identity(d), &d);
  }
  return out;
}

// Removals for the VM's devices the plan does not hold, additions for the plan's devices the VM
// does not hold, each identity counted (a plan with two vGPUs of one profile gets two).
void device_delta(const vsphere::ConfigSpec& current, const vsphere::ConfigSpec& plan,
                  Change& change) {
  std::map<std::string, int> wanted;
  const auto planned = devices_of(plan, true);
  for (const auto& [id, d] : planned) ++wanted[id];
  std::map<std::string, int> kept;
  for (const auto& [id, d] : devices_of(current, true)) {
    if (kept[id] < wanted[id]) {
      ++kept[id];
      continue;
    }
    vsphere::DeviceChange remove = *d;
    remove.operation = "remove";
    remove.group.reset();
    change.spec.device_change.push_back(std::move(remove));
    change.diff.push_back({'-', describe(*d)});
  }
  std::int32_t next_key = -1;
  for (const auto& [id, d] : planned) {
    if (kept[id] > 0) {
      --kept[id];
      continue;
    }
    vsphere::DeviceChange add = *d;
    add.operation = "add";
    add.key = next_key--;
    change.spec.device_change.push_back(std::move(add));
    change.diff.push_back({'+', describe(*d)});
  }
  change.devices_change = !change.spec.device_change.empty();
}

const vsphere::OptionValue* find_option(const vsphere::ConfigSpec& spec, std::string_view key) {
  // The last one wins, as vSphere applies them in order.
  const vsphere::OptionValue* found = nullptr;
  for (const vsphere::OptionValue& o : spec.extra_config) {
    if (iequals(o.key, key)) found = &o;
  }
  return found;
}

void extra_config_delta(const vsphere::ConfigSpec& current, const vsphere::ConfigSpec& plan,
                        Change& change) {
  std::vector<std::string> done;
  // Last to first: the last value of a key is the one vSphere keeps.
  // NOLINTNEXTLINE(modernize-loop-convert)
  for (auto it = plan.extra_config.rbegin(); it != plan.extra_config.rend(); ++it) {
    const vsphere::OptionValue& o = *it;
    const std::string key = lower(o.key);
    if (std::find(done.begin(), done.end(), key) != done.end()) continue;
    done.push_back(key);
    const vsphere::OptionValue* now = find_option(current, o.key);
    if (o.value.empty()) {
      if (now == nullptr || now->value.empty()) continue;
      change.diff.push_back({'-', fmt::format("{} = \"{}\"", now->key, now->value)});
    } else if (now == nullptr) {
      change.diff.push_back({'+', fmt::format(R"({} = "{}")", o.key, o.value)});
    } else if (now->value != o.value) {
      change.diff.push_back({'~', fmt::format(R"({} = "{}" -> "{}")", o.key, now->value, o.value)});
    } else {
      continue;
    }
    vsphere::OptionValue sent = o;
    sent.whole = sent.key_span = sent.value_span = {};
    change.spec.extra_config.insert(change.spec.extra_config.begin(), std::move(sent));
  }
}

std::string mb(std::optional<std::int64_t> v) {
  return v ? std::to_string(*v) : std::string("(unset)");
}

void memory_delta(const vsphere::ConfigSpec& current, const vsphere::ConfigSpec& plan,
                  const ChangeOptions& options, Change& change) {
  std::optional<std::int64_t> memory = current.memory_mb;
  if (plan.memory_mb && options.keep_memory && plan.memory_mb != current.memory_mb) {
    change.diff.push_back({'=', fmt::format("memoryMB stays {}: the plan's {} is the default, "
                                            "not asked for",
                                            mb(current.memory_mb), *plan.memory_mb)});
  } else if (plan.memory_mb && plan.memory_mb != current.memory_mb) {
    change.spec.memory_mb = plan.memory_mb;
    change.memory_changes = true;
    memory = plan.memory_mb;
    change.diff.push_back(
        {'~', fmt::format("memoryMB {} -> {}", mb(current.memory_mb), *plan.memory_mb)});
  }
  const bool lock = plan.memory_reservation_locked_to_max.value_or(false);
  if (plan.memory_reservation_locked_to_max &&
      plan.memory_reservation_locked_to_max !=
          current.memory_reservation_locked_to_max.value_or(false)) {
    change.spec.memory_reservation_locked_to_max = plan.memory_reservation_locked_to_max;
    change.diff.push_back(
        {'~', fmt::format("memoryReservationLockedToMax {} -> {}",
                          current.memory_reservation_locked_to_max.value_or(false), lock)});
  }
  // The reservation: the plan's, or with the lock all of the memory the VM will have.
  std::optional<std::int64_t> reservation = plan.memory_reservation_mb;
  if (lock || (reservation && plan.memory_mb && *reservation >= *plan.memory_mb)) {
    reservation = memory;
  }
  if (reservation && reservation != current.memory_reservation_mb) {
    change.spec.memory_reservation_mb = reservation;
    change.memory_changes = true;
    change.diff.push_back({'~', fmt::format("memoryAllocation.reservation {} -> {}",
                                            mb(current.memory_reservation_mb), *reservation)});
  }
}

void firmware_delta(const vsphere::ConfigSpec& current, const vsphere::ConfigSpec& plan,
                    const ChangeOptions& options, Change& change) {
  if (!plan.firmware || lower(*plan.firmware) == lower(current.firmware.value_or("bios"))) return;
  const std::string now = current.firmware.value_or("bios");
  if (!options.firmware_change) {
    change.diff.push_back({'=', fmt::format("firmware stays {}: the plan asks {}, which needs "
                                            "--firmware-change (an installed guest may not boot)",
                                            now, *plan.firmware)});
    return;
  }
  change.spec.firmware = plan.firmware;
  change.firmware_changes = true;
  change.diff.push_back({'~', fmt::format("firmware {} -> {}", now, *plan.firmware)});
}

}  // namespace

bool Change::empty() const {
  const vsphere::ConfigSpec& s = spec;
  return s.device_change.empty() && s.extra_config.empty() && !s.memory_mb &&
         !s.memory_reservation_mb && !s.memory_reservation_locked_to_max && !s.firmware;
}

std::string identity(const vsphere::DeviceChange& d) {
  const std::string type = d.type == vsphere::DeviceType::sriov_ethernet ? "sriov" : "pci";
  switch (d.backing_type) {
    case vsphere::BackingType::device:
      return type + "|device|" + backing_identity(d.device);
    case vsphere::BackingType::vmiop:
      return type + "|vgpu|" + d.vgpu;
    case vsphere::BackingType::dynamic: {
      std::string s = type + "|dynamic|" + d.custom_label;
      for (const vsphere::AllowedDevice& a : d.allowed_devices) {
        s += fmt::format("|{:04x}:{:04x}", static_cast<std::uint16_t>(a.vendor_id),
                         static_cast<std::uint16_t>(a.device_id));
      }
      return s;
    }
    case vsphere::BackingType::network:
    case vsphere::BackingType::dvport: {
      std::string s = type + "|net|" + d.network_name + "|" + d.portgroup_key;
      if (d.physical_function) s += "|" + backing_identity(*d.physical_function);
      return s;
    }
    case vsphere::BackingType::dvx:
      return type + "|dvx|" + (d.dvx ? d.dvx->device_class : std::string());
    case vsphere::BackingType::none:
      break;
  }
  return type + "|none";
}

std::string describe(const vsphere::DeviceChange& d) {
  switch (d.backing_type) {
    case vsphere::BackingType::device:
      return fmt::format("passthrough {} {:04x}:{} systemId {}", d.device.id,
                         static_cast<std::uint16_t>(d.device.vendor_id), hex_id(d.device.device_id),
                         d.device.system_id);
    case vsphere::BackingType::vmiop:
      return "vGPU " + d.vgpu;
    case vsphere::BackingType::dynamic:
      return "Dynamic DirectPath " + d.custom_label;
    case vsphere::BackingType::network:
    case vsphere::BackingType::dvport:
      return fmt::format("SR-IOV adapter on '{}'{}", d.network_name,
                         d.physical_function ? " PF " + d.physical_function->id : "");
    case vsphere::BackingType::dvx:
      return "DVX " + (d.dvx ? d.dvx->device_class : std::string());
    case vsphere::BackingType::none:
      break;
  }
  return "passthrough device (no backing)";
}

std::vector<std::string> find_placeholders(const vsphere::ConfigSpec& spec) {
  std::vector<std::string> out;
  for (const vsphere::DeviceChange& d : spec.device_change) {
    const std::string where = describe(d);
    for (const vsphere::DeviceBacking* b :
         {&d.device, d.physical_function ? &*d.physical_function : nullptr}) {
      if (b == nullptr) continue;
      add_placeholder(out, where + " id", b->id);
      add_placeholder(out, where + " deviceId", b->device_id);
      add_placeholder(out, where + " systemId", b->system_id);
    }
    add_placeholder(out, where + " vgpu", d.vgpu);
    add_placeholder(out, where + " network", d.network_name);
  }
  for (const vsphere::OptionValue& o : spec.extra_config) add_placeholder(out, o.key, o.value);
  if (spec.firmware) add_placeholder(out, "firmware", *spec.firmware);
  return out;
}

Change compute_change(const vsphere::ConfigSpec& current, const vsphere::ConfigSpec& plan,
                      const ChangeOptions& options) {
  Change change;
  change.placeholders = find_placeholders(plan);
  device_delta(current, plan, change);
  memory_delta(current, plan, options, change);
  extra_config_delta(current, plan, change);
  firmware_delta(current, plan, options, change);
  return change;
}

vsphere::ConfigSpec read_plan(std::string name, std::string bytes) {
  const std::string shown = name;
  const vsphere::Loaded loaded = vsphere::load(std::move(name), std::move(bytes));
  if (loaded.vms.size() != 1) {
    throw Error(fmt::format("{}: a plan holds one VM; this holds {}", shown, loaded.vms.size()));
  }
  return vsphere::output_spec(loaded.vms.front().config);
}

vsphere::ConfigSpec read_vm(const std::string& name, std::string bytes) {
  const std::size_t start = vsphere::content_start(bytes);
  const bool xml = start < bytes.size() && bytes[start] == '<';
  constexpr std::string_view kWanted =
      "give the VM as a vSphere client reads it: its ConfigInfo (a pyVmomi vm.config), or a "
      "RetrievePropertiesEx answer of its config, which hold the server's device keys";
  if (!xml) throw Error(name, fmt::format("not a vSphere XML document: {}", kWanted));
  const SourceFile source(name, std::move(bytes));
  vsphere::XmlDocument doc = vsphere::read_vim25_xml(source);
  if (doc.kind == vsphere::XmlDocumentKind::configspec ||
      doc.kind == vsphere::XmlDocumentKind::reconfigure) {
    throw Error(name, fmt::format("a ConfigSpec, not a VM's configuration: {}", kWanted));
  }
  if (doc.vms.size() != 1) {
    throw Error(name, fmt::format("holds {} VMs; give one", doc.vms.size()));
  }
  return std::move(doc.vms.front().spec);
}

}  // namespace vmxkit::apply
