// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vmxkit {

/// Byte offsets in the source file a value came from (for diagnostics and edits).
struct SourceSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// A 1-based line and byte column.
struct Location {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

/// The line breaks of a text by kind, counted in one pass (SIMD where there is SSE2): "\n",
/// "\r\n" and a lone "\r".
struct LineBreaks {
  std::size_t lf = 0;
  std::size_t crlf = 0;
  std::size_t cr = 0;
  std::size_t total() const { return lf + crlf + cr; }
};
LineBreaks count_line_breaks(std::string_view text);

/// The first '\n' or '\r' in [p, end), or end.
const char* find_line_break(const char* p, const char* end);

/// The start offset of every line of a text, for turning byte offsets into line:column.
/// Lines end at "\n", "\r\n" or a lone "\r" (as VMware's file reader and most tools do).
/// Four bytes a line, allocated once; texts are below 4 GiB (vmxkit reads at most 1 GiB).
class LineIndex {
 public:
  LineIndex() = default;
  /// Throws vmxkit::Error when `text` is 4 GiB or larger.
  explicit LineIndex(std::string_view text);
  /// From line starts found elsewhere (a parser that split the text already): the first is 0,
  /// then one after each line break, ascending.
  static LineIndex from_starts(std::vector<std::uint32_t> starts);

  Location location(std::size_t offset) const;
  std::size_t line_count() const { return starts_.size(); }
  std::size_t line_start(std::size_t line_number) const { return starts_.at(line_number - 1); }
  /// The text of the line holding `offset`, without its line ending (no scan of the line).
  std::string_view line_text(std::string_view text, std::size_t offset) const;

 private:
  std::vector<std::uint32_t> starts_{0};
};

/// A file's path and bytes as read, plus a line index built on first use.
class SourceFile {
 public:
  SourceFile(std::string path, std::string bytes)
      : path_(std::move(path)), bytes_(std::move(bytes)) {}

  const std::string& path() const { return path_; }
  std::string_view bytes() const { return bytes_; }
  const LineIndex& lines() const;
  Location location(std::size_t offset) const { return lines().location(offset); }

 private:
  std::string path_;
  std::string bytes_;
  mutable LineIndex index_;
  mutable bool indexed_ = false;
};

}  // namespace vmxkit
