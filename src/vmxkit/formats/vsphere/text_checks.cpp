// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/text_checks.h"

#include <algorithm>
#include <cstdio>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"

namespace vmxkit::vsphere {
namespace {

// Longest part of a value a message quotes.
constexpr std::size_t kMaxQuoted = 160;

unsigned char at(std::string_view b, std::size_t i) { return static_cast<unsigned char>(b[i]); }

}  // namespace

void refuse_wide_encoding(const SourceFile& source) {
  vmxkit::refuse_wide_encoding(source.bytes(), source.path());
}

std::string quote_for_message(std::string_view value) {
  std::string out = "\"";
  const std::size_t shown = std::min(value.size(), kMaxQuoted);
  for (std::size_t i = 0; i < shown;) {
    const unsigned char c = at(value, i);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(value, i);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7F || n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(c));
      out += hex;
      ++i;
    } else {
      out.append(value.substr(i, n));
      i += n;
    }
  }
  out += '"';
  if (shown < value.size()) out += " (" + std::to_string(value.size() - shown) + " more bytes)";
  return out;
}

std::string hex_byte(char byte) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(byte)));
  return hex;
}

}  // namespace vmxkit::vsphere
