// SPDX-License-Identifier: Apache-2.0
// Text helpers every module shares: ASCII case folding (`.vmx` keys, device names, XML values
// compare ignoring ASCII case, as VMware's reader does), trimming, and UTF-8 checks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vmxkit {

constexpr char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

/// Equal ignoring ASCII case; bytes >= 0x80 compare as they are.
constexpr bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

/// `s` starts with `prefix`, ignoring ASCII case.
constexpr bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

/// `text` holds `word`, ignoring ASCII case.
constexpr bool icontains(std::string_view text, std::string_view word) {
  for (std::size_t i = 0; i + word.size() <= text.size(); ++i) {
    if (iequals(text.substr(i, word.size()), word)) return true;
  }
  return false;
}

/// Length of the common prefix of `a` and `b`, ignoring ASCII case.
constexpr std::size_t icommon_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && ascii_lower(a[n]) == ascii_lower(b[n])) ++n;
  return n;
}

/// Hash and equality for unordered containers keyed ignoring ASCII case (FNV-1a over folded bytes).
struct FoldedHash {
  std::size_t operator()(std::string_view s) const {
    std::size_t h = 1469598103934665603ULL;
    for (const char c : s) h = (h ^ static_cast<unsigned char>(ascii_lower(c))) * 1099511628211ULL;
    return h;
  }
};
struct FoldedEqual {
  bool operator()(std::string_view a, std::string_view b) const { return iequals(a, b); }
};

/// `s` without leading and trailing spaces, tabs, CR and LF.
constexpr std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

/// The length of the well-formed UTF-8 sequence at `s[i]` (1 to 4), or 0 when the bytes there
/// are not one: a stray continuation byte, a truncated sequence, an overlong form, a surrogate
/// or a code point above U+10FFFF (RFC 3629, as JSON and XML readers require).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

/// Offset of the first byte that is not part of well-formed UTF-8, or npos when all of it is.
std::size_t find_invalid_utf8(std::string_view s);

inline bool is_valid_utf8(std::string_view s) {
  return find_invalid_utf8(s) == std::string_view::npos;
}

/// `s` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD, so that any
/// input bytes can go into JSON, SARIF or XML output.
std::string to_valid_utf8(std::string_view s);

/// Number of code points in `s` (a byte that is not well-formed UTF-8 counts as one): the column
/// a terminal shows for a byte offset.
std::size_t utf8_width(std::string_view s);

}  // namespace vmxkit
