// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/rules/known_keys.h"

#include <array>
#include <unordered_map>

#include "vmxkit/core/text.h"
#include "vmxkit/model/vm_config.h"
#include "vmxkit/rules/util.h"
#include "vmxkit/vmx/document.h"

namespace vmxkit::rules {
namespace {

struct KnownKey {
  std::string_view name;  // canonical spelling; per-device keys are written `pciPassthruN.`
  ValueType type;
};

// Sources: vmware-vmx-and-configspec.md §2-3 (NVIDIA GPU Operator and OpenShift docs, VMware
// blogs and KBs, ESXi-written files).
constexpr std::array<KnownKey, 27> kKeys = {{
    {"pciPassthru.allowP2P", ValueType::boolean},
    {"pciPassthru.RelaxACSforP2P", ValueType::boolean},
    {"pciPassthru.use64bitMMIO", ValueType::boolean},
    {"pciPassthru.64bitMMIOSizeGB", ValueType::integer},
    {"pciPassthruN.present", ValueType::boolean},
    {"pciPassthruN.id", ValueType::text},
    {"pciPassthruN.deviceId", ValueType::text},
    {"pciPassthruN.vendorId", ValueType::text},
    {"pciPassthruN.systemId", ValueType::text},
    {"pciPassthruN.pfId", ValueType::text},
    {"pciPassthruN.vgpu", ValueType::text},
    {"pciPassthruN.virtualDev", ValueType::text},
    {"pciPassthruN.pciSlotNumber", ValueType::integer},
    {"pciPassthruN.allowedDevices", ValueType::text},
    {"pciPassthruN.customLabel", ValueType::text},
    {"pciPassthruN.networkName", ValueType::text},
    {"pciPassthruN.MACAddressType", ValueType::text},
    {"pciPassthruN.MACAddress", ValueType::text},
    {"pciPassthruN.msiEnabled", ValueType::boolean},
    {"sched.mem.pin", ValueType::boolean},
    {"sched.mem.min", ValueType::integer},
    {"sched.mem.minSize", ValueType::integer},
    {"memsize", ValueType::integer},
    {"hypervisor.cpuid.v0", ValueType::boolean},
    {"uefi.secureBoot.enabled", ValueType::boolean},
    {"firmware", ValueType::text},
    {"virtualHW.version", ValueType::integer},
}};

// Misspellings seen in published material, with what they meant.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kTypos = {{
    {"pciPassthru.set.usebitMMIO", "pciPassthru.use64bitMMIO"},   // vSphere ML deep-dive table
    {"pciPassthru.RelaxACSCheck", "pciPassthru.RelaxACSforP2P"},  // hand-written k3s notes
    {"pciPassthru.RelaxACS", "pciPassthru.RelaxACSforP2P"},
    {"pciPassthru.64bitMMIOSize", "pciPassthru.64bitMMIOSizeGB"},
}};

constexpr std::string_view kPrefix = "pciPassthru";

// The known keys by folded name: VM-wide keys whole, per-device keys by their field. Every rule
// asks for every setting, so this is one hash lookup instead of a walk over the table.
using KnownMap = std::unordered_map<std::string_view, const KnownKey*, FoldedHash, FoldedEqual>;

struct KnownMaps {
  KnownMap global;
  KnownMap device;
  KnownMaps() {
    constexpr std::string_view kDevice = "pciPassthruN.";
    for (const KnownKey& k : kKeys) {
      if (k.name.starts_with(kDevice)) {
        device.emplace(k.name.substr(kDevice.size()), &k);
      } else {
        global.emplace(k.name, &k);
      }
    }
  }
};

const KnownKey* find_known(std::string_view key) {
  static const KnownMaps maps;
  const auto dev = split_passthrough_key(key);
  const KnownMap& map = dev ? maps.device : maps.global;
  const auto it = map.find(dev ? dev->field : key);
  return it == map.end() ? nullptr : it->second;
}

}  // namespace

std::optional<std::string> canonical_key(std::string_view key) {
  const KnownKey* k = find_known(key);
  if (k == nullptr) return std::nullopt;
  if (const auto dev = split_passthrough_key(key)) {
    return std::string(kPrefix) + std::string(dev->digits) + "." + std::string(k->name.substr(13));
  }
  return std::string(k->name);
}

std::optional<ValueType> known_type(std::string_view key) {
  const KnownKey* k = find_known(key);
  return k ? std::optional(k->type) : std::nullopt;
}

std::optional<std::string> likely_meant(std::string_view key) {
  if (find_known(key) != nullptr) return std::nullopt;
  for (const auto& [typo, meant] : kTypos) {
    if (iequals(key, typo)) return std::string(meant);
  }
  // A VM-wide key written with a device index: `pciPassthru0.use64bitMMIO`.
  if (const auto dev = split_passthrough_key(key)) {
    for (const std::string_view global : {kAllowP2P, kRelaxAcs, kUse64bitMmio, kMmioSizeGb}) {
      if (iequals(dev->field, global.substr(kPrefix.size() + 1))) {
        return std::string(global);
      }
    }
    return std::nullopt;
  }
  // Near misses of the VM-wide keys, including the prefix (`pciPassthrough.allowP2P`).
  const auto dot = key.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  if (edit_distance_folded(key.substr(0, dot), kPrefix, 3) > 3) return std::nullopt;
  const std::string_view field = key.substr(dot + 1);
  std::optional<std::string> best;
  std::size_t best_distance = 3;  // at most 2 edits in the field
  for (const std::string_view global : {kAllowP2P, kRelaxAcs, kUse64bitMmio, kMmioSizeGb}) {
    const std::size_t d = edit_distance_folded(field, global.substr(kPrefix.size() + 1), 3);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(global);
    }
  }
  return best;
}

}  // namespace vmxkit::rules
