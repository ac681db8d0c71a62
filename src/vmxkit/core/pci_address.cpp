// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/pci_address.h"

#include <fmt/format.h>

#include <charconv>

namespace vmxkit {
namespace {

// Parses all of `text` as an unsigned number in `base`, no sign, no prefix.
std::optional<unsigned> parse_number(std::string_view text, int base) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  unsigned value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Splits `[domain:]bus:device.function` into its parts; no checks on the parts.
struct Parts {
  std::string_view domain, bus, device, function;
};

std::optional<Parts> split(std::string_view text) {
  const auto dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  Parts parts;
  parts.function = text.substr(dot + 1);
  const std::string_view head = text.substr(0, dot);
  const auto last_colon = head.rfind(':');
  if (last_colon == std::string_view::npos) return std::nullopt;
  parts.device = head.substr(last_colon + 1);
  const std::string_view rest = head.substr(0, last_colon);
  const auto first_colon = rest.rfind(':');
  if (first_colon == std::string_view::npos) {
    parts.bus = rest;
  } else {
    parts.domain = rest.substr(0, first_colon);
    parts.bus = rest.substr(first_colon + 1);
    if (parts.domain.find(':') != std::string_view::npos) return std::nullopt;
  }
  return parts;
}

std::optional<Bdf> build(const Parts& p, int base, std::size_t max_bus_digits) {
  if (p.bus.size() > max_bus_digits || p.device.size() > 2 || p.function.size() != 1) {
    return std::nullopt;
  }
  const auto domain = p.domain.empty() ? std::optional<unsigned>(0) : parse_number(p.domain, base);
  const auto bus = parse_number(p.bus, base);
  const auto device = parse_number(p.device, base);
  const auto function = parse_number(p.function, base);
  if (!domain || !bus || !device || !function) return std::nullopt;
  if (*domain > 0xffff || *bus > 0xff || *device > 31 || *function > 7) return std::nullopt;
  return Bdf{static_cast<std::uint16_t>(*domain), static_cast<std::uint8_t>(*bus),
             static_cast<std::uint8_t>(*device), static_cast<std::uint8_t>(*function)};
}

}  // namespace

std::string Bdf::to_string() const {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

std::string Bdf::to_vmx() const {
  return fmt::format("{:05d}:{:03d}:{:02d}.{:d}", domain, bus, device, function);
}

std::optional<Bdf> parse_bdf(std::string_view text) {
  const auto parts = split(text);
  if (!parts) return std::nullopt;
  if (!parts->domain.empty() && parts->domain.size() > 4) return std::nullopt;
  if (parts->bus.size() != 2 || parts->device.size() != 2) return std::nullopt;
  return build(*parts, 16, 2);
}

std::optional<Bdf> parse_vmx_bdf(std::string_view text) {
  const auto parts = split(text);
  if (!parts) return std::nullopt;
  if (parts->domain.size() > 5) return std::nullopt;
  return build(*parts, 10, 3);
}

}  // namespace vmxkit
