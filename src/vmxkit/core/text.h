// SPDX-License-Identifier: Apache-2.0
// Text helpers every module shares: ASCII case folding (`.vmx` keys, device names, XML values
// compare ignoring ASCII case, as VMware's reader does), trimming, numbers, splitting, lines,
// and UTF-8 checks.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// `text` holds `part` (std::string_view::contains is C++23).
constexpr bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
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

/// `s` with ASCII letters lowercased; bytes >= 0x80 kept as they are.
inline std::string ascii_lowercase(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = ascii_lower(ch);
  return out;
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

/// A CPU list as Linux and nvidia-smi print it ("0-23,48-71") from CPU numbers in any order;
/// repeats are shown once.
std::string cpu_ranges(std::vector<int> cpus);

}  // namespace vmxkit
