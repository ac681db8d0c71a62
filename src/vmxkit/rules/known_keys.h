// SPDX-License-Identifier: Apache-2.0
// The keys the passthrough rules know, with their canonical spelling and value type.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace vmxkit::rules {

enum class ValueType : unsigned char { boolean, integer, text };

struct KnownKey {
  std::string_view name;  ///< canonical spelling; per-device keys are written `pciPassthruN.`
  ValueType type;
};

/// VM-wide keys (`pciPassthru.allowP2P`...) and per-device fields (`pciPassthruN.present`...).
std::span<const KnownKey> known_keys();

/// The canonical spelling of `key` when it is a known key written in another letter case or
/// exactly; `pciPassthru7.DEVICEID` gives `pciPassthru7.deviceId`. nullopt for unknown keys.
std::optional<std::string> canonical_key(std::string_view key);
/// The value type of a known key, or nullopt.
std::optional<ValueType> known_type(std::string_view key);

/// What a misspelled passthrough key most likely meant (known typos, per-device indexes on a
/// VM-wide key, small edit distances), or nullopt when it is not a likely misspelling.
std::optional<std::string> likely_meant(std::string_view key);

}  // namespace vmxkit::rules
