// SPDX-License-Identifier: Apache-2.0
// Small string_view helpers shared by the pci loaders (internal to the module).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "vmxkit/core/text.h"

namespace vmxkit::pci {

/// A message a tool wrote into a capture saved with `2>&1`, at the margin between device blocks:
/// `lspci: Unable to load libkmod resources: error -2`, `pcilib: sysfs_read_vpd: read failed`.
/// Its first word is a lowercase program name followed by `: `; no device line starts so.
inline bool is_tool_message(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() &&
         ((line[i] >= 'a' && line[i] <= 'z') ||
          (i > 0 && ((line[i] >= '0' && line[i] <= '9') || line[i] == '-' || line[i] == '_')))) {
    ++i;
  }
  return i > 0 && i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ';
}

/// All of `s` as a hex number (no 0x), else nullopt.
inline std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// All of `s` as a decimal number, else nullopt.
inline std::optional<std::uint64_t> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// `0x1f` as hex, else decimal.
inline std::optional<std::uint64_t> parse_c_number(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_hex(s.substr(2));
  return parse_decimal(s);
}

inline std::optional<long long> parse_signed(std::string_view s) {
  bool neg = false;
  if (!s.empty() && s.front() == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  const auto v = parse_decimal(s);
  if (!v || *v > 0x7fffffffULL) return std::nullopt;
  return neg ? -static_cast<long long>(*v) : static_cast<long long>(*v);
}

/// Splits on any of `seps`, dropping empty pieces and trimming each.
inline std::vector<std::string_view> split_any(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = s.find_first_of(seps, i);
    const std::string_view piece = trim(s.substr(i, j == std::string_view::npos ? j : j - i));
    if (!piece.empty()) out.push_back(piece);
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return out;
}

/// Iterates the lines of a text without their line endings ("\n" or "\r\n"). A final line
/// without "\n" is still a line; a text that ends with "\n" has no empty last line.
class LineRange {
 public:
  explicit LineRange(std::string_view text) : text_(text) {}
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string_view*;
    using reference = std::string_view;
    iterator() = default;
    iterator(std::string_view text, std::size_t pos) : text_(text), pos_(pos) { load(); }
    std::string_view operator*() const { return line_; }
    iterator& operator++() {
      pos_ = next_;
      load();
      return *this;
    }
    bool operator==(const iterator& o) const { return pos_ == o.pos_; }
    bool operator!=(const iterator& o) const { return pos_ != o.pos_; }
    std::size_t offset() const { return pos_; }

   private:
    void load() {
      if (pos_ >= text_.size()) {
        pos_ = text_.size();
        return;
      }
      const std::size_t nl = text_.find('\n', pos_);
      const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
      next_ = nl == std::string_view::npos ? text_.size() : nl + 1;
      line_ = text_.substr(pos_, end - pos_);
      if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
    }
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t next_ = 0;
    std::string_view line_;
  };
  iterator begin() const { return iterator(text_, 0); }
  iterator end() const { return iterator(text_, text_.size()); }

 private:
  std::string_view text_;
};

}  // namespace vmxkit::pci
