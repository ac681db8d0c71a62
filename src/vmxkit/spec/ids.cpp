// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/spec/ids.h"

#include <charconv>
#include <cstdio>

namespace vmxkit::spec {
namespace {

// Parses all of `text` as an unsigned number in `base` with 1..max_digits digits.
std::optional<std::uint32_t> parse_field(std::string_view text, int base, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// Splits `[S:]B:D.F` into its parts.
struct Parts {
  std::string_view segment, bus, device, function;
  bool has_segment = false;
};

std::optional<Parts> split_bdf(std::string_view text) {
  Parts p;
  const std::size_t dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  p.function = text.substr(dot + 1);
  std::string_view head = text.substr(0, dot);
  const std::size_t c2 = head.rfind(':');
  if (c2 == std::string_view::npos) return std::nullopt;
  p.device = head.substr(c2 + 1);
  head = head.substr(0, c2);
  const std::size_t c1 = head.rfind(':');
  if (c1 == std::string_view::npos) {
    p.bus = head;
  } else {
    p.has_segment = true;
    p.segment = head.substr(0, c1);
    p.bus = head.substr(c1 + 1);
    if (p.segment.find(':') != std::string_view::npos) return std::nullopt;
  }
  return p;
}

std::optional<Bdf> parse_bdf(std::string_view text, int base, std::size_t seg_digits,
                             std::size_t bus_digits, std::size_t dev_digits) {
  const auto p = split_bdf(text);
  if (!p) return std::nullopt;
  Bdf b;
  if (p->has_segment) {
    const auto s = parse_field(p->segment, base, seg_digits);
    if (!s || *s > 0xffff) return std::nullopt;
    b.segment = *s;
  }
  const auto bus = parse_field(p->bus, base, bus_digits);
  const auto dev = parse_field(p->device, base, dev_digits);
  const auto fn = parse_field(p->function, 10, 1);
  if (!bus || !dev || !fn || *bus > 0xff || *dev > 0x1f || *fn > 7) return std::nullopt;
  b.bus = *bus;
  b.device = *dev;
  b.function = *fn;
  return b;
}

}  // namespace

std::optional<Bdf> parse_api_bdf(std::string_view text) { return parse_bdf(text, 16, 4, 2, 2); }

std::optional<Bdf> parse_vmx_bdf(std::string_view text) { return parse_bdf(text, 10, 5, 3, 2); }

std::string format_api_bdf(const Bdf& b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%u", b.segment, b.bus, b.device, b.function);
  return buf;
}

std::string format_vmx_bdf(const Bdf& b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%05u:%03u:%02u.%u", b.segment, b.bus, b.device, b.function);
  return buf;
}

std::optional<std::string> vmx_id_from_api(std::string_view api_id) {
  const auto b = parse_api_bdf(api_id);
  if (!b) return std::nullopt;
  return format_vmx_bdf(*b);
}

std::optional<std::string> api_id_from_vmx(std::string_view vmx_id) {
  // A 4-digit segment is the API's hex form (seen in hand-written files); 5 digits, or no
  // segment, is the decimal form ESXi writes.
  const auto p = split_bdf(vmx_id);
  if (p && p->has_segment && p->segment.size() == 4) {
    if (const auto b = parse_api_bdf(vmx_id)) return format_api_bdf(*b);
    return std::nullopt;
  }
  const auto b = parse_vmx_bdf(vmx_id);
  if (!b) return std::nullopt;
  return format_api_bdf(*b);
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
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
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

}  // namespace vmxkit::spec
