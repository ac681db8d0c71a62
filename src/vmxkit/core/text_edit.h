// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vmxkit {

/// Replace bytes [begin, end) of the original text with `replacement`. begin == end inserts.
struct TextEdit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string replacement;

  friend bool operator==(const TextEdit&, const TextEdit&) = default;
};

/// Where one edit of a pass of edits was: [old_begin, old_end) in the text before the pass, and
/// its replacement at [new_begin, new_end) after it. A fix's passes, kept in this form, map a
/// place in the fixed text back to the text that was fixed.
struct EditPlace {
  std::size_t old_begin = 0;
  std::size_t old_end = 0;
  std::size_t new_begin = 0;
  std::size_t new_end = 0;
};

/// True when no two edits overlap. Insertions at the same offset do not overlap each other; an
/// insertion at the start or end of a replaced range does not overlap it either.
bool edits_are_disjoint(std::span<const TextEdit> edits);

/// Applies edits to `text`. Edits are ordered by offset; edits at the same offset keep the order
/// they were given in. Throws vmxkit::Error when edits overlap or fall outside the text: that is a
/// bug in the caller, and nothing is half-applied.
std::string apply_edits(std::string_view text, std::span<const TextEdit> edits);

}  // namespace vmxkit
