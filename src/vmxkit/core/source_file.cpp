// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/source_file.h"

#include <algorithm>

namespace vmxkit {

LineIndex::LineIndex(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      starts_.push_back(i + 1);
    } else if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      starts_.push_back(i + 1);
    }
  }
}

Location LineIndex::location(std::size_t offset) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const auto line = static_cast<std::size_t>(it - starts_.begin());  // >= 1: starts_[0] == 0
  return {static_cast<std::uint32_t>(line),
          static_cast<std::uint32_t>(offset - starts_[line - 1] + 1)};
}

std::string_view LineIndex::line_text(std::string_view text, std::size_t offset) const {
  const Location loc = location(offset);
  const std::size_t begin = starts_[loc.line - 1];
  std::size_t end = begin;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
  return text.substr(begin, end - begin);
}

const LineIndex& SourceFile::lines() const {
  if (!indexed_) {
    index_ = LineIndex(bytes_);
    indexed_ = true;
  }
  return index_;
}

}  // namespace vmxkit
