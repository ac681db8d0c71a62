// SPDX-License-Identifier: Apache-2.0
// The keys the passthrough rules know, with their canonical spelling and value type.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vmxkit::checks {

enum class ValueType : unsigned char { boolean, integer, text };

/// The canonical spelling of `key` when it is a known key written in another letter case or
/// exactly; `pciPassthru7.DEVICEID` gives `pciPassthru7.deviceId`. nullopt for unknown keys.
std::optional<std::string> canonical_key(std::string_view key);
/// The value type of a known key, or nullopt.
std::optional<ValueType> known_type(std::string_view key);

/// What a misspelled passthrough key most likely meant (known typos, per-device indexes on a
/// VM-wide key, small edit distances), or nullopt when it is not a likely misspelling.
std::optional<std::string> likely_meant(std::string_view key);

}  // namespace vmxkit::checks
