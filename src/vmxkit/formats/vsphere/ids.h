// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

/// The two spellings of PCI identifiers: the vSphere API's and the `.vmx` file's.
///
/// | field    | API (ConfigSpec, JSON, OVF)         | .vmx                       |
/// |----------|-------------------------------------|----------------------------|
/// | id       | hex `0000:3b:00.0`                  | decimal `00000:059:00.0`   |
/// | deviceId | hex without `0x`: `20b5`            | `0x20b5`                   |
/// | vendorId | `xsd:short`: `4318`, `-32634`       | `0x10de`, `0x8086`         |
namespace vmxkit::vsphere {

/// The `.vmx` id for an API id, or nullopt when `api_id` is not a BDF.
std::optional<std::string> vmx_id_from_api(std::string_view api_id);
/// The API id for a `.vmx` id. Accepts the decimal forms, and also a hex API-form id
/// (4-digit segment) that some hand-written files carry.
std::optional<std::string> api_id_from_vmx(std::string_view vmx_id);

/// A 16-bit PCI id from `.vmx` text: `0x10de` (hex) or plain decimal.
std::optional<std::uint16_t> parse_vmx_pci_id(std::string_view text);
/// A 16-bit PCI id from the API's hex string without `0x` (`deviceId`); a `0x` prefix is
/// tolerated.
std::optional<std::uint16_t> parse_api_hex_id(std::string_view text);
/// `0x10de`: lowercase, four digits.
std::string format_vmx_pci_id(std::uint16_t id);
/// `20b5`: lowercase, no prefix, no leading zeros beyond what `%x` prints (as govc and
/// vhpc-toolkit write it).
std::string format_api_hex_id(std::uint16_t id);

/// The API's signed-short reading of a 16-bit id: 0x8086 -> -32634.
constexpr std::int16_t to_signed_short(std::uint16_t id) {
  return static_cast<std::int16_t>(id >= 0x8000 ? static_cast<int>(id) - 0x10000 : id);
}
/// The 16-bit id of a signed short: -32634 -> 0x8086.
constexpr std::uint16_t from_signed_short(std::int16_t v) { return static_cast<std::uint16_t>(v); }

/// Parses a decimal integer in the range of `xsd:short` (the API's vendorId). Values 32768..65535
/// are not shorts and are refused: the API would reject them.
std::optional<std::int16_t> parse_short(std::string_view text);
/// Parses a decimal `xsd:int` / `xsd:long`.
std::optional<std::int64_t> parse_long(std::string_view text);

}  // namespace vmxkit::vsphere
