// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/ids.h"

#include <charconv>
#include <cstdio>

#include "vmxkit/core/pci_address.h"

namespace vmxkit::vsphere {
namespace {

// Parses all of `text` as an unsigned number in `base` with 1..max_digits digits.
std::optional<std::uint32_t> parse_field(std::string_view text, int base, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::string> vmx_id_from_api(std::string_view api_id) {
  const auto b = parse_bdf(api_id);
  if (!b) return std::nullopt;
  return b->to_vmx();
}

std::optional<std::string> api_id_from_vmx(std::string_view vmx_id) {
  // A 4-digit segment is the API's hex form (seen in hand-written files); 5 digits, or no
  // segment, is the decimal form ESXi writes.
  const std::size_t first_colon = vmx_id.find(':');
  const bool hex_form =
      first_colon == 4 && vmx_id.find(':', first_colon + 1) != std::string_view::npos;
  const auto b = hex_form ? parse_bdf(vmx_id) : parse_vmx_bdf(vmx_id);
  if (!b) return std::nullopt;
  return b->to_string();
}

std::optional<std::uint16_t> parse_vmx_pci_id(std::string_view text) {
  std::optional<std::uint32_t> v;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    v = parse_field(text.substr(2), 16, 4);
  } else {
    v = parse_field(text, 10, 5);
  }
  if (!v || *v > 0xffff) return std::nullopt;
  return static_cast<std::uint16_t>(*v);
}

std::optional<std::uint16_t> parse_api_hex_id(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  const auto v = parse_field(text, 16, 4);
  if (!v) return std::nullopt;
  return static_cast<std::uint16_t>(*v);
}

std::string format_vmx_pci_id(std::uint16_t id) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(id));
  return buf;
}

std::string format_api_hex_id(std::uint16_t id) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%x", static_cast<unsigned>(id));
  return buf;
}

std::optional<std::int16_t> parse_short(std::string_view text) {
  const auto v = parse_long(text);
  if (!v || *v < -32768 || *v > 32767) return std::nullopt;
  return static_cast<std::int16_t>(*v);
}

std::optional<std::int64_t> parse_long(std::string_view text) {
  if (!text.empty() && text.front() == '+') return std::nullopt;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace vmxkit::vsphere
