// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/known_keys.h"

#include <array>
#include <utility>
#include <vector>

#include "vmxkit/checks/util.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/vm_config.h"

namespace vmxkit::checks {
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

// The known keys by length of the name (VM-wide keys whole, per-device keys by their field):
// every rule asks for every setting, and most keys have a length no known key has, so a lookup
// is an array index and an iequals() with the few of that length, no hashing.
class KnownIndex {
 public:
  KnownIndex() {
    constexpr std::string_view kDevice = "pciPassthruN.";
    for (const KnownKey& k : kKeys) {
      const bool device = k.name.starts_with(kDevice);
      const std::string_view name = device ? k.name.substr(kDevice.size()) : k.name;
      ByLength& by_length = device ? device_ : global_;
      if (by_length.size() <= name.size()) by_length.resize(name.size() + 1);
      by_length[name.size()].push_back({name, &k});
    }
  }

  const KnownKey* find(std::string_view name, bool device) const {
    const auto& by_length = device ? device_ : global_;
    if (name.size() >= by_length.size()) return nullptr;
    for (const auto& [known, key] : by_length[name.size()]) {
      if (iequals(known, name)) return key;
    }
    return nullptr;
  }

 private:
  using ByLength = std::vector<std::vector<std::pair<std::string_view, const KnownKey*>>>;
  ByLength global_;
  ByLength device_;
};

const KnownKey* find_known(std::string_view key) {
  static const KnownIndex index;
  if (const auto dev = split_passthrough_key(key)) return index.find(dev->field, true);
  return index.find(key, false);
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

}  // namespace vmxkit::checks
