// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vmxkit {

/// A PCI address: domain (segment), bus, device, function. Ordered the way lspci lists devices.
/// The one address type of vmxkit: host captures, `.vmx` ids and vSphere API ids all parse to it.
struct Bdf {
  std::uint16_t domain = 0;
  std::uint8_t bus = 0;
  std::uint8_t device = 0;    ///< 0..31
  std::uint8_t function = 0;  ///< 0..7

  /// `0000:3b:00.0`, the form of lspci -D, sysfs and the vSphere API.
  std::string to_string() const;
  /// `00000:059:00.0`, the decimal form a `.vmx` `pciPassthruN.id` holds (`%05d:%03d:%02d.%d`).
  std::string to_vmx() const;
  /// Same slot, other function (the functions of one physical device).
  bool same_device(const Bdf& other) const {
    return domain == other.domain && bus == other.bus && device == other.device;
  }

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>
  friend auto operator<=>(const Bdf&, const Bdf&) = default;
  friend bool operator==(const Bdf&, const Bdf&) = default;
};

/// Parses the hex form lspci, sysfs and the vSphere API print: `0000:3b:00.0` or `3b:00.0`
/// (domain 0). Upper or lower case.
/// Returns nullopt for anything else, including trailing text.
std::optional<Bdf> parse_bdf(std::string_view text);

/// Parses the decimal form of a `.vmx` (`00000:059:00.0`), and the older domain-less form
/// (`130:00.0`, `59:0.0`). Returns nullopt for anything else.
std::optional<Bdf> parse_vmx_bdf(std::string_view text);

}  // namespace vmxkit
