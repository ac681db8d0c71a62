// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/model/vm_config.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "vmxkit/core/text.h"

namespace vmxkit {
namespace {

constexpr std::string_view kPassthruPrefix = "pcipassthru";

bool starts_with_folded(std::string_view s, std::string_view lower_prefix) {
  return s.size() >= lower_prefix.size() && iequals(s.substr(0, lower_prefix.size()), lower_prefix);
}

}  // namespace

std::string_view to_string(PassthroughKind kind) {
  switch (kind) {
    case PassthroughKind::directpath:
      return "directpath";
    case PassthroughKind::dynamic:
      return "dynamic-directpath";
    case PassthroughKind::vgpu:
      return "vgpu";
    case PassthroughKind::sriov_vf:
      return "sriov-vf";
    case PassthroughKind::dvx:
      return "dvx";
    case PassthroughKind::unknown:
      break;
  }
  return "unknown";
}

PassthroughKind PassthroughDevice::kind() const {
  if (vgpu || (virtual_dev && iequals(*virtual_dev, "vmiop"))) return PassthroughKind::vgpu;
  if (pf_id || (system_id && iequals(*system_id, "BYPASS"))) return PassthroughKind::sriov_vf;
  if (allowed_devices) return PassthroughKind::dynamic;
  if (id) return PassthroughKind::directpath;
  if (dvx_device_class || (virtual_dev && iequals(*virtual_dev, "dvx")))
    return PassthroughKind::dvx;
  return PassthroughKind::unknown;
}

std::optional<PassthroughKey> split_passthrough_key(std::string_view key) {
  if (!starts_with_folded(key, kPassthruPrefix)) return std::nullopt;
  std::string_view rest = key.substr(kPassthruPrefix.size());
  PassthroughKey out;
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), out.index);
  if (ec != std::errc() || ptr == rest.data()) return std::nullopt;
  out.digits = rest.substr(0, static_cast<std::size_t>(ptr - rest.data()));
  rest.remove_prefix(out.digits.size());
  if (rest.size() < 2 || rest.front() != '.') return std::nullopt;
  out.field = rest.substr(1);
  return out;
}

std::optional<bool> parse_bool(std::string_view value) {
  for (const std::string_view t : {"true", "yes", "1"}) {
    if (iequals(value, t)) return true;
  }
  for (const std::string_view f : {"false", "no", "0"}) {
    if (iequals(value, f)) return false;
  }
  return std::nullopt;
}

std::optional<std::int64_t> parse_int(std::string_view value) {
  int base = 10;
  if (value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
    value.remove_prefix(2);
    base = 16;
  }
  std::int64_t out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out, base);
  if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) return std::nullopt;
  return out;
}

void VmConfig::add(std::string key, std::string value, SourceSpan whole, SourceSpan value_span) {
  Setting s;
  s.key = std::move(key);
  s.value = std::move(value);
  s.whole = whole;
  s.key_span = whole;
  s.value_span = value_span;
  settings.push_back(std::move(s));
}

const Setting* VmConfig::find(std::string_view key) const {
  for (const Setting& s : settings) {
    if (iequals(s.key, key)) return &s;
  }
  return nullptr;
}

std::vector<const Setting*> VmConfig::find_all(std::string_view key) const {
  std::vector<const Setting*> out;
  for (const Setting& s : settings) {
    if (iequals(s.key, key)) out.push_back(&s);
  }
  return out;
}

std::optional<std::string_view> VmConfig::get(std::string_view key) const {
  const Setting* s = find(key);
  if (s == nullptr) return std::nullopt;
  return std::string_view(s->value);
}

std::optional<bool> VmConfig::get_bool(std::string_view key) const {
  const auto v = get(key);
  return v ? parse_bool(*v) : std::nullopt;
}

std::optional<std::int64_t> VmConfig::get_int(std::string_view key) const {
  const auto v = get(key);
  return v ? parse_int(*v) : std::nullopt;
}

std::optional<std::int64_t> VmConfig::memory_reservation_mb() const {
  if (auto v = get_int("sched.mem.min")) return v;
  return get_int("sched.mem.minSize");
}

bool VmConfig::memory_fully_reserved() const {
  if (memory_pinned()) return true;
  const auto mem = memory_mb();
  const auto min = memory_reservation_mb();
  return mem && min && *min >= *mem;
}

const DeviceGroup* VmConfig::group_of(unsigned device) const {
  for (const DeviceGroup& g : device_groups) {
    for (const DeviceGroupMember& m : g.members) {
      if (m.device == device) return &g;
    }
  }
  return nullptr;
}

std::vector<PassthroughDevice> VmConfig::passthrough_devices() const {
  std::map<unsigned, PassthroughDevice> by_index;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const auto split = split_passthrough_key(settings[i].key);
    if (!split) continue;
    const unsigned n = split->index;
    const std::string_view field = split->field;
    PassthroughDevice& d = by_index[n];
    d.index = n;
    d.settings.push_back(i);
    const std::string& v = settings[i].value;
    auto assign = [&](std::optional<std::string>& slot) {
      if (!slot) slot = v;  // the first of duplicates wins, as the lint reports the rest
    };
    if (iequals(field, "present")) {
      d.present = parse_bool(v).value_or(false);
    } else if (iequals(field, "id")) {
      assign(d.id);
    } else if (iequals(field, "deviceId")) {
      assign(d.device_id);
    } else if (iequals(field, "vendorId")) {
      assign(d.vendor_id);
    } else if (iequals(field, "systemId")) {
      assign(d.system_id);
    } else if (iequals(field, "pfId")) {
      assign(d.pf_id);
    } else if (iequals(field, "vgpu")) {
      assign(d.vgpu);
    } else if (iequals(field, "virtualDev")) {
      assign(d.virtual_dev);
    } else if (iequals(field, "allowedDevices")) {
      assign(d.allowed_devices);
    } else if (iequals(field, "networkName")) {
      assign(d.network_name);
    } else if (iequals(field, "dvx.deviceClass")) {
      assign(d.dvx_device_class);
    }
  }
  std::vector<PassthroughDevice> out;
  out.reserve(by_index.size());
  for (auto& [n, d] : by_index) out.push_back(std::move(d));
  return out;
}

}  // namespace vmxkit
