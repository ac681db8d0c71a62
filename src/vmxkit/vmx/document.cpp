// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/text.h"
#include "vmxkit/vmx/document.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "vmxkit/core/error.h"
#include "vmxkit/vmx/escape.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vmxkit::vmx {
namespace {

// Byte classes for the line scanner, one table lookup per byte.
enum : std::uint8_t {
  kSpace = 1,     // ' ' and '\t'
  kKeyStop = 2,   // ends a key: whitespace, '=', '#'
  kValueStop = 4  // ends an unquoted value: whitespace, '#', '"'
};

constexpr std::array<std::uint8_t, 256> make_classes() {
  std::array<std::uint8_t, 256> t{};
  for (const unsigned char c : {' ', '\t'}) t[c] = kSpace | kKeyStop | kValueStop;
  t['='] = kKeyStop;
  t['#'] = kKeyStop | kValueStop;
  t['"'] = kValueStop;
  return t;
}
constexpr auto kClass = make_classes();

inline bool is(unsigned char c, std::uint8_t cls) { return (kClass[c] & cls) != 0; }

// Offset of the first '\n' or '\r' in [p, end), or end.
inline const char* find_line_break(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask =
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, nl), _mm_cmpeq_epi8(chunk, cr)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '\n' && *p != '\r') ++p;
  return p;
}

// Classifies the content [line.begin, line.end) of one line.
inline void scan_line(const unsigned char* b, Line& line) {
  std::uint32_t i = line.begin;
  const std::uint32_t e = line.end;
  auto skip_space = [&] {
    while (i < e && is(b[i], kSpace)) ++i;
  };
  auto malformed = [&](Problem problem, std::uint32_t at) {
    line.kind = LineKind::malformed;
    line.problem = problem;
    line.problem_at = at;
  };

  skip_space();
  if (i == e) {
    line.kind = LineKind::blank;
    return;
  }
  if (b[i] == '#') {
    line.kind = LineKind::comment;
    line.comment_begin = i;
    return;
  }
  line.key_begin = i;
  while (i < e && !is(b[i], kKeyStop)) ++i;
  line.key_end = i;
  if (line.key_end == line.key_begin) return malformed(Problem::missing_key, i);
  skip_space();
  if (i == e || b[i] != '=') {
    const bool more_text = i < e && b[i] != '#';
    return malformed(more_text ? Problem::space_in_key : Problem::missing_equals,
                     more_text ? line.key_end : i);
  }
  ++i;
  skip_space();
  if (i < e && b[i] == '"') {
    const void* close = std::memchr(b + i + 1, '"', e - i - 1);
    if (close == nullptr) return malformed(Problem::unterminated_quote, i);
    line.quoted = true;
    line.value_begin = i + 1;
    line.value_end = static_cast<std::uint32_t>(static_cast<const unsigned char*>(close) - b);
    i = line.value_end + 1;
  } else {
    line.value_begin = i;
    while (i < e && !is(b[i], kValueStop)) ++i;
    line.value_end = i;
    if (i < e && b[i] == '"') return malformed(Problem::quote_in_value, i);
  }
  skip_space();
  if (i < e && b[i] != '#') return malformed(Problem::text_after_value, i);
  line.comment_begin = i < e ? i : e;
  line.kind = LineKind::entry;
}

}  // namespace

Document Document::parse(std::string bytes, std::string path) {
  if (bytes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error(path, "file is larger than 4 GiB; not a .vmx file");
  }
  Document doc;
  doc.path_ = std::move(path);
  doc.bytes_ = std::move(bytes);
  const char* base = doc.bytes_.data();
  const char* const end = base + doc.bytes_.size();
  const char* p = base;
  if (doc.bytes_.size() >= 3 && std::memcmp(base, "\xEF\xBB\xBF", 3) == 0) {
    doc.bom_ = true;
    p += 3;
  }
  doc.lines_.reserve(doc.bytes_.size() / 40 + 4);
  const auto* ubase = reinterpret_cast<const unsigned char*>(base);
  while (p < end) {
    Line line;
    line.begin = static_cast<std::uint32_t>(p - base);
    const char* brk = find_line_break(p, end);
    line.end = static_cast<std::uint32_t>(brk - base);
    if (brk == end) {
      line.ending = LineEnding::none;
      p = end;
    } else if (*brk == '\n') {
      line.ending = LineEnding::lf;
      p = brk + 1;
    } else if (brk + 1 < end && brk[1] == '\n') {
      line.ending = LineEnding::crlf;
      p = brk + 2;
    } else {
      line.ending = LineEnding::cr;
      p = brk + 1;
    }
    scan_line(ubase, line);
    doc.lines_.push_back(line);
  }
  return doc;
}

std::string Document::value(const Line& line) const { return escape::decode(raw_value(line)); }

const Line* Document::find(std::string_view key) const {
  for (const Line& line : lines_) {
    if (line.is_entry() && iequals(this->key(line), key)) return &line;
  }
  return nullptr;
}

std::vector<const Line*> Document::find_all(std::string_view key) const {
  std::vector<const Line*> found;
  for (const Line& line : lines_) {
    if (line.is_entry() && iequals(this->key(line), key)) found.push_back(&line);
  }
  return found;
}

std::optional<std::string> Document::get(std::string_view key) const {
  const Line* line = find(key);
  if (line == nullptr) return std::nullopt;
  return value(*line);
}

std::vector<std::vector<const Line*>> Document::duplicate_keys() const {
  std::unordered_map<std::string_view, std::size_t, FoldedHash, FoldedEqual> first;
  std::vector<std::vector<const Line*>> groups;
  std::vector<std::size_t> group_of;  // per first-seen key: index into groups, or npos
  first.reserve(lines_.size());
  for (const Line& line : lines_) {
    if (!line.is_entry()) continue;
    const auto [it, inserted] = first.try_emplace(key(line), group_of.size());
    if (inserted) {
      group_of.push_back(std::string_view::npos);
      continue;
    }
    std::size_t& g = group_of[it->second];
    if (g == std::string_view::npos) {
      g = groups.size();
      groups.push_back({find(key(line))});
    }
    groups[g].push_back(&line);
  }
  return groups;
}

std::string_view Document::encoding() const {
  const Line* line = find(".encoding");
  return line == nullptr ? std::string_view() : raw_value(*line);
}

LineEnding Document::dominant_line_ending() const {
  std::size_t counts[4] = {};
  for (const Line& line : lines_) ++counts[static_cast<int>(line.ending)];
  LineEnding best = LineEnding::lf;
  std::size_t best_count = 0;
  for (const LineEnding e : {LineEnding::lf, LineEnding::crlf, LineEnding::cr}) {
    if (counts[static_cast<int>(e)] > best_count) {
      best = e;
      best_count = counts[static_cast<int>(e)];
    }
  }
  return best;
}

std::string describe(Problem problem, std::string_view key) {
  const std::string k(key);
  switch (problem) {
    case Problem::missing_key: return "expected a key before '='";
    case Problem::missing_equals: return "expected '=' after key '" + k + "'";
    case Problem::space_in_key:
      return "expected '=' after key '" + k + "'; a key cannot contain whitespace";
    case Problem::unterminated_quote:
      return "unterminated quoted value: expected a closing '\"' before the end of the line";
    case Problem::quote_in_value:
      return "unexpected '\"' inside an unquoted value: quote the whole value";
    case Problem::text_after_value:
      return "unexpected text after the value: expected a '#' comment or the end of the line";
    case Problem::none: break;
  }
  return "malformed line";
}

std::vector<LineProblem> Document::problems() const {
  std::vector<LineProblem> out;
  for (const Line& line : lines_) {
    if (line.kind != LineKind::malformed) continue;
    LineProblem p;
    p.kind = line.problem;
    p.begin = line.problem_at;
    // At least one byte wide, but never past the end of a last line without a newline.
    p.end = std::min<std::size_t>(std::max(line.problem_at + 1, line.end), bytes().size());
    p.message = describe(line.problem, key(line));
    out.push_back(std::move(p));
  }
  return out;
}

Location Document::location(std::size_t offset) const {
  const auto it = std::upper_bound(lines_.begin(), lines_.end(), offset,
                                   [](std::size_t off, const Line& l) { return off < l.begin; });
  if (it == lines_.begin()) {
    return {1, static_cast<std::uint32_t>(offset + 1)};
  }
  const Line& line = *(it - 1);
  const auto number = static_cast<std::uint32_t>(it - lines_.begin());
  if (offset > line.end && line.ending != LineEnding::none && offset >= line.next()) {
    return {number + 1, 1};  // just past the last line ending
  }
  return {number, static_cast<std::uint32_t>(offset - line.begin + 1)};
}

void Document::write(std::string& out) const {
  out.reserve(out.size() + bytes_.size());
  if (bom_) out.append("\xEF\xBB\xBF");
  const char* base = bytes_.data();
  for (const Line& line : lines_) out.append(base + line.begin, line.next() - line.begin);
}

std::string Document::to_string() const {
  std::string out;
  write(out);
  return out;
}

VmConfig to_vm_config(const Document& doc) {
  VmConfig cfg;
  for (const Line& line : doc.lines()) {
    if (!line.is_entry()) continue;
    Setting s;
    s.key = std::string(doc.key(line));
    s.value = doc.value(line);
    s.whole = {line.begin, line.end};
    s.key_span = {line.key_begin, line.key_end};
    s.value_span = {line.value_begin, line.value_end};
    cfg.settings.push_back(std::move(s));
  }
  return cfg;
}

}  // namespace vmxkit::vmx
