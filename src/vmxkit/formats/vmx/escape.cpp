// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/escape.h"

#include <array>

namespace vmxkit::vmx::escape {
namespace {

constexpr int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr char kHexDigits[] = "0123456789ABCDEF";

// Bytes that make a raw value need more than a copy: a '|' may start an escape, and the bytes
// of needs_escape() are written as escapes.
constexpr std::array<bool, 256> make_special() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c == '|' || needs_escape(static_cast<unsigned char>(c));
  return t;
}
constexpr auto kSpecial = make_special();

// Length of the leading run of `s` that needs no work.
std::size_t plain_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && !kSpecial[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

// The state machine of Escape_Undo: 0 = plain, 1 = after '|', 2 = after '|' and one hex
// digit. Calls emit(byte) for each decoded byte.
template <class Emit>
void decode_with(std::string_view raw, Emit&& emit) {
  int state = 0;
  unsigned char high = 0;
  for (const char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    switch (state) {
      case 0:
        if (c == '|') {
          state = 1;
        } else {
          emit(ch);
        }
        break;
      case 1:
        if (hex_value(c) >= 0) {
          high = c;
          state = 2;
        } else {
          emit('|');
          emit(ch);
          state = 0;
        }
        break;
      default:
        if (hex_value(c) >= 0) {
          emit(static_cast<char>(hex_value(high) << 4 | hex_value(c)));
        } else {
          emit('|');
          emit(static_cast<char>(high));
          emit(ch);
        }
        state = 0;
        break;
    }
  }
  if (state >= 1) emit('|');
  if (state == 2) emit(static_cast<char>(high));
}

void encode_byte(char ch, std::string& out) {
  const auto c = static_cast<unsigned char>(ch);
  if (needs_escape(c)) {
    const char escaped[3] = {'|', kHexDigits[c >> 4], kHexDigits[c & 0xF]};
    out.append(escaped, 3);
  } else {
    out.push_back(ch);
  }
}

}  // namespace

void decode_append(std::string_view raw, std::string& out) {
  const std::size_t plain = plain_prefix(raw);
  out.append(raw.substr(0, plain));
  if (plain == raw.size()) return;
  decode_with(raw.substr(plain), [&out](char c) { out.push_back(c); });
}

std::string decode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  decode_append(raw, out);
  return out;
}

void encode_append(std::string_view value, std::string& out) {
  while (!value.empty()) {
    const std::size_t plain = plain_prefix(value);
    out.append(value.substr(0, plain));
    if (plain == value.size()) return;
    encode_byte(value[plain], out);  // '|' or a byte of needs_escape()
    value.remove_prefix(plain + 1);
  }
}

std::string encode(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  encode_append(value, out);
  return out;
}

void recode_append(std::string_view raw, std::string& out) {
  const std::size_t plain = plain_prefix(raw);
  out.append(raw.substr(0, plain));
  if (plain == raw.size()) return;
  decode_with(raw.substr(plain), [&out](char c) { encode_byte(c, out); });
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
