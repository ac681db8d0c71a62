// SPDX-License-Identifier: Apache-2.0
// Helpers shared by rule checks.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vmxkit/checks/context.h"

namespace vmxkit::checks {

/// A fix that sets `key` to `value` in the `.vmx` (replacing the value, or adding the key beside
/// its family); nullopt for inputs that are not a `.vmx` document.
std::optional<Fix> set_key_fix(const Context& ctx, std::string_view key, std::string_view value,
                               std::string title, FixSafety safety);

/// Where a diagnostic about a missing VM-wide key goes: the first present passthrough device
/// entry, else the start of the file.
SourceSpan anchor_for_missing_key(const Context& ctx);

/// Levenshtein distance of two ASCII strings compared ignoring case. A distance above `limit`
/// comes back as `limit + 1`, found without computing it all.
std::size_t edit_distance_folded(std::string_view a, std::string_view b,
                                 std::size_t limit = std::string_view::npos - 1);

/// The canonical spelling of the VM-wide passthrough keys.
inline constexpr std::string_view kAllowP2P = "pciPassthru.allowP2P";
inline constexpr std::string_view kRelaxAcs = "pciPassthru.RelaxACSforP2P";
inline constexpr std::string_view kUse64bitMmio = "pciPassthru.use64bitMMIO";
inline constexpr std::string_view kMmioSizeGb = "pciPassthru.64bitMMIOSizeGB";

}  // namespace vmxkit::checks
