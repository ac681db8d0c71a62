// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/vgpu.h"

#include <charconv>
#include <vector>

namespace vmxkit::checks {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// A run of 1 to 7 digits as a number (7 digits cannot overflow `unsigned`).
std::optional<unsigned> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 7) return std::nullopt;
  unsigned n = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return n;
}

}  // namespace

// By hand, not with std::regex: libstdc++'s matcher recurses per character and overflows the
// stack on a value of a few megabytes.
std::optional<VgpuProfile> parse_vgpu_profile(std::string_view name) {
  for (const std::string_view prefix : {"grid_", "nvidia_"}) {
    if (name.starts_with(prefix)) {
      name.remove_prefix(prefix.size());
      break;
    }
    if (prefix == "nvidia_") return std::nullopt;  // neither prefix
  }
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dash = name.find('-', start);
    parts.push_back(name.substr(start, dash == std::string_view::npos ? dash : dash - start));
    if (dash == std::string_view::npos || parts.size() > 3) break;
    start = dash + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  VgpuProfile p;
  if (parts[0].empty()) return std::nullopt;
  for (const char c : parts[0]) {
    if (!is_digit(c) && !is_lower(c)) return std::nullopt;
  }
  p.board = std::string(parts[0]);
  if (parts.size() == 3) {
    const auto slices = small_number(parts[1]);
    if (!slices) return std::nullopt;
    p.slices = *slices;
  }
  // The last part: the framebuffer in GB, then the series (one or two letters).
  const std::string_view last = parts.back();
  std::size_t digits = 0;
  while (digits < last.size() && is_digit(last[digits])) ++digits;
  const std::string_view series = last.substr(digits);
  const auto fb = small_number(last.substr(0, digits));
  if (!fb || series.empty() || series.size() > 2 || !is_lower(series[0]) ||
      (series.size() == 2 && !is_lower(series[1]))) {
    return std::nullopt;
  }
  p.framebuffer_gb = *fb;
  p.series = std::string(series);
  return p;
}

}  // namespace vmxkit::checks
