// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vmx/escape.h"

namespace vmxkit::vmx::escape {
namespace {

constexpr int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr char kHexDigits[] = "0123456789ABCDEF";

}  // namespace

void decode_append(std::string_view raw, std::string& out) {
  // The state machine of Escape_Undo: 0 = plain, 1 = after '|', 2 = after '|' and one hex digit.
  int state = 0;
  unsigned char high = 0;
  for (const char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    switch (state) {
      case 0:
        if (c == '|') {
          state = 1;
        } else {
          out.push_back(ch);
        }
        break;
      case 1:
        if (hex_value(c) >= 0) {
          high = c;
          state = 2;
        } else {
          out.push_back('|');
          out.push_back(ch);
          state = 0;
        }
        break;
      default:
        if (hex_value(c) >= 0) {
          out.push_back(static_cast<char>(hex_value(high) << 4 | hex_value(c)));
        } else {
          out.push_back('|');
          out.push_back(static_cast<char>(high));
          out.push_back(ch);
        }
        state = 0;
        break;
    }
  }
  if (state >= 1) out.push_back('|');
  if (state == 2) out.push_back(static_cast<char>(high));
}

std::string decode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  decode_append(raw, out);
  return out;
}

void encode_append(std::string_view value, std::string& out) {
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (needs_escape(c)) {
      out.push_back('|');
      out.push_back(kHexDigits[c >> 4]);
      out.push_back(kHexDigits[c & 0xF]);
    } else {
      out.push_back(ch);
    }
  }
}

std::string encode(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  encode_append(value, out);
  return out;
}

std::size_t find_invalid_escape(std::string_view raw, std::size_t from) {
  for (std::size_t i = from; i < raw.size(); ++i) {
    if (raw[i] != '|') continue;
    if (i + 2 < raw.size() && hex_value(static_cast<unsigned char>(raw[i + 1])) >= 0 &&
        hex_value(static_cast<unsigned char>(raw[i + 2])) >= 0) {
      i += 2;
      continue;
    }
    return i;
  }
  return std::string_view::npos;
}

bool can_be_unquoted(std::string_view value) {
  if (value.empty()) return false;
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '#' || needs_escape(c)) return false;
  }
  return true;
}

}  // namespace vmxkit::vmx::escape
