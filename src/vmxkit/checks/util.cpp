// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/util.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <vector>

#include "vmxkit/core/text.h"
#include "vmxkit/formats/vmx/edit.h"

namespace vmxkit::checks {

std::optional<Fix> set_key_fix(const Context& ctx, std::string_view key, std::string_view value,
                               std::string title, FixSafety safety) {
  if (ctx.document() == nullptr) return std::nullopt;
  return Fix{std::move(title), safety, vmx::set(*ctx.document(), key, value)};
}

SourceSpan anchor_for_missing_key(const Context& ctx) {
  if (!ctx.devices().empty()) return ctx.device_span(*ctx.devices().front().entry);
  return {0, 0};
}

std::size_t edit_distance_folded(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (gap > limit) return limit + 1;  // the distance is at least the difference in length
  if (limit < std::max(a.size(), b.size()) && a.size() < 256) {
    // Each edit changes at most one of the characters two strings share (as multisets), so the
    // distance is at least the longer length less the number shared.
    std::array<std::uint8_t, 256> count{};
    for (const char c : a) ++count[static_cast<unsigned char>(ascii_lower(c))];
    std::size_t shared = 0;
    for (const char c : b) {
      std::uint8_t& n = count[static_cast<unsigned char>(ascii_lower(c))];
      if (n > 0) {
        --n;
        ++shared;
      }
    }
    if (std::max(a.size(), b.size()) - shared > limit) return limit + 1;
  }
  // Two rows of the Levenshtein table; on the stack for the short keys this is used on.
  constexpr std::size_t kStack = 64;
  std::size_t stack_rows[2][kStack + 1];
  std::vector<std::size_t> heap_rows;
  std::size_t* prev = stack_rows[0];
  std::size_t* cur = stack_rows[1];
  if (b.size() > kStack) {
    heap_rows.resize(2 * (b.size() + 1));
    prev = heap_rows.data();
    cur = prev + b.size() + 1;
  }
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      row_min = std::min(row_min, cur[j]);
    }
    // No row has a smaller minimum than the row before it.
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], limit + 1);
}

}  // namespace vmxkit::checks
