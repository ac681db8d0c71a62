// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/text.h"

#include <algorithm>
#include <cstdint>

namespace vmxkit {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1FU;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0FU;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07U;
  } else {
    return 0;  // continuation byte, C0/C1 (always overlong), F5..FF
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char cc = byte(i + k);
    if ((cc & 0xC0U) != 0x80U) return 0;
    cp = (cp << 6U) | (cc & 0x3FU);
  }
  constexpr std::uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

std::size_t find_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string to_valid_utf8(std::string_view s) {
  std::size_t bad = find_invalid_utf8(s);
  if (bad == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  std::size_t i = 0;
  while (bad != std::string_view::npos) {
    out.append(s.substr(i, bad - i));
    out.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
    i = bad + 1;
    const std::size_t next = find_invalid_utf8(s.substr(i));
    bad = next == std::string_view::npos ? next : i + next;
  }
  out.append(s.substr(i));
  return out;
}

std::size_t utf8_width(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size(); ++width) {
    const std::size_t n = utf8_sequence_length(s, i);
    i += n == 0 ? 1 : n;
  }
  return width;
}

std::string cpu_ranges(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace vmxkit
