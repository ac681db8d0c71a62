// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/document.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/core/wide_encoding.h"
#include "vmxkit/formats/vmx/canonical_blocks.h"
#include "vmxkit/formats/vmx/escape.h"

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

// The first i in [i, e) whose byte is of class `cls` (kKeyStop or kValueStop), or e. Compares
// 16 bytes at a time where the buffer (of `size` bytes) has them: keys are mostly longer than
// a few bytes, and this is the scanner's inner loop.
template <std::uint8_t cls>
inline std::uint32_t find_class(const unsigned char* b, std::uint32_t i, std::uint32_t e,
                                std::size_t size) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i hash = _mm_set1_epi8('#');
  const __m128i other = _mm_set1_epi8(cls == kKeyStop ? '=' : '"');
  while (i < e && i + 16 <= size) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(c, space), _mm_cmpeq_epi8(c, tab)),
                     _mm_or_si128(_mm_cmpeq_epi8(c, hash), _mm_cmpeq_epi8(c, other)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return std::min(e, i + static_cast<std::uint32_t>(__builtin_ctz(mask)));
    i += 16;
  }
  if (i >= e) return e;
#else
  (void)size;
#endif
  while (i < e && !is(b[i], cls)) ++i;
  return i;
}

// The first i >= `i` whose byte ends a key of the canonical form (' ', '\t', '=', '#') or a line
// ('\n', '\r'), or `size`.
inline std::size_t find_key_stop(const unsigned char* b, std::size_t i, std::size_t size) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i eq = _mm_set1_epi8('=');
  const __m128i hash = _mm_set1_epi8('#');
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  while (i + 16 <= size) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(c, space), _mm_cmpeq_epi8(c, tab)),
                                  _mm_or_si128(_mm_cmpeq_epi8(c, eq), _mm_cmpeq_epi8(c, hash))),
                     _mm_or_si128(_mm_cmpeq_epi8(c, lf), _mm_cmpeq_epi8(c, cr)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
    i += 16;
  }
#endif
  while (i < size && !is(b[i], kKeyStop) && b[i] != '\n' && b[i] != '\r') ++i;
  return i;
}

// The first i >= `i` whose byte escape::needs_escape() (which holds '"', '|', DEL and every
// control byte but tab, line breaks included), or `size`: the end of a quoted value that needs
// no recoding, or what stops it from being one.
inline std::size_t find_escape_stop(const unsigned char* b, std::size_t i, std::size_t size) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i bar = _mm_set1_epi8('|');
  const __m128i del = _mm_set1_epi8(0x7F);
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i control_max = _mm_set1_epi8(0x1F);
  while (i + 16 <= size) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    // c <= 0x1F (unsigned) and not a tab
    const __m128i control =
        _mm_andnot_si128(_mm_cmpeq_epi8(c, tab), _mm_cmpeq_epi8(_mm_min_epu8(c, control_max), c));
    const __m128i hit = _mm_or_si128(_mm_or_si128(control, _mm_cmpeq_epi8(c, quote)),
                                     _mm_or_si128(_mm_cmpeq_epi8(c, bar), _mm_cmpeq_epi8(c, del)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
    i += 16;
  }
#endif
  while (i < size && !escape::needs_escape(b[i])) ++i;
  return i;
}

// Classifies the content [line.begin, line.end) of one line of a buffer of `size` bytes.
inline void scan_line(const unsigned char* b, std::size_t size, Line& line) {
  std::uint32_t i = line.begin;
  const std::uint32_t e = line.end;
  auto skip_space = [&] {
    while (i < e && is(b[i], kSpace)) ++i;
  };
  auto malformed = [&](Problem problem, std::uint32_t at) {
    line.kind = LineKind::malformed;
    line.problem = problem;
    line.comment_begin = at;  // problem_at()
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
  i = find_class<kKeyStop>(b, i, e, size);
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
    i = find_class<kValueStop>(b, i, e, size);
    line.value_end = i;
    if (i < e && b[i] == '"') return malformed(Problem::quote_in_value, i);
  }
  skip_space();
  if (i < e && b[i] != '#') return malformed(Problem::text_after_value, i);
  line.comment_begin = i < e ? i : e;
  line.kind = LineKind::entry;
}

// Splits off the line starting at `p` (not at `end`): fills begin, end and ending, returns where
// the next line starts.
inline const char* split_line(const char* base, const char* p, const char* end, Line& line) {
  line.begin = static_cast<std::uint32_t>(p - base);
  const char* brk = find_line_break(p, end);
  line.end = static_cast<std::uint32_t>(brk - base);
  if (brk == end) {
    line.ending = LineEnding::none;
    return end;
  }
  if (*brk == '\n') {
    line.ending = LineEnding::lf;
    return brk + 1;
  }
  if (brk + 1 < end && brk[1] == '\n') {
    line.ending = LineEnding::crlf;
    return brk + 2;
  }
  line.ending = LineEnding::cr;
  return brk + 1;
}

// What every reader of .vmx bytes refuses before reading a line: more than 4 GiB (offsets are
// 32-bit), and UTF-16 or UTF-32 text. VMware reads a .vmx as UTF-8 or as the ASCII-compatible
// code page its .encoding names; wide text read byte by byte is one malformed line per line.
void check_size(std::string_view bytes, std::string_view path) {
  if (bytes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error(std::string(path), "file is larger than 4 GiB; not a .vmx file");
  }
}

void check_readable(std::string_view bytes, std::string_view path) {
  check_size(bytes, path);
  refuse_wide_encoding(bytes, path.empty() ? std::string("<stdin>") : std::string(path));
}

}  // namespace

LineScanner::LineScanner(std::string_view bytes, std::string_view path) : bytes_(bytes) {
  check_readable(bytes, path);
  if (bytes_.starts_with(kBom)) {
    bom_ = true;
    pos_ = kBom.size();
  }
}

LineScanner LineScanner::part(std::string_view bytes) {
  LineScanner scanner;
  scanner.bytes_ = bytes;
  return scanner;
}

bool LineScanner::next(Line& line) {
  if (pos_ >= bytes_.size()) return false;
  const char* base = bytes_.data();
  line = Line{};
  pos_ = static_cast<std::size_t>(split_line(base, base + pos_, base + bytes_.size(), line) - base);
  scan_line(reinterpret_cast<const unsigned char*>(base), bytes_.size(), line);
  ++number_;
  return true;
}

namespace {

// The end of the canonical line starting at `p` (just after its ending), or `p` when it is not
// one. Each test mirrors what scan_line() and canonical_form() do with the line: a line
// passes only when the canonical form would write back exactly its bytes.
std::size_t skip_canonical_line(const unsigned char* b, std::size_t p, std::size_t size,
                                LineEnding ending) {
  const bool crlf = ending == LineEnding::crlf;
  const unsigned char first = ending == LineEnding::lf ? '\n' : '\r';
  std::size_t q = p;  // the end of the line's content
  if (b[p] == '#') {
    const auto* chars = reinterpret_cast<const char*>(b);
    q = static_cast<std::size_t>(find_line_break(chars + p, chars + size) - chars);
    if (b[q - 1] == ' ' || b[q - 1] == '\t') return p;  // trailing blanks are trimmed
  } else if (b[p] != '\n' && b[p] != '\r') {
    const std::size_t key_end = find_key_stop(b, p, size);
    if (key_end == p || size - key_end < 4 || std::memcmp(b + key_end, " = \"", 4) != 0) {
      return p;
    }
    const std::size_t close = find_escape_stop(b, key_end + 4, size);
    if (close == size || b[close] != '"') return p;
    q = close + 1;
  }
  // The line must end in `ending` (a CR followed by LF is a CRLF line, not a CR one).
  if (q == size || b[q] != first) return p;
  if (crlf ? q + 1 == size || b[q + 1] != '\n'
           : ending == LineEnding::cr && q + 1 < size && b[q + 1] == '\n') {
    return p;
  }
  return q + (crlf ? 2 : 1);
}

/// Where a run of lines from `p` on stops: `blocks(p)` takes whole 64-byte blocks of them from
/// `p` (returns where it stopped; `p` where it cannot judge them), then `line(p)` takes them one
/// by one (returns where the next starts, or `p` to stop the run) up to the end of the block
/// that did not pass, and blocks are tried again.
template <class Blocks, class OneLine>
std::size_t take_run(std::size_t p, std::size_t size, Blocks blocks, OneLine line) {
  while (p < size) {
    p = blocks(p);
    for (const std::size_t until = std::min(size, p + 64); p < until;) {
      const std::size_t next = line(p);
      if (next == p) return p;
      p = next;
    }
  }
  return p;
}

}  // namespace

std::size_t LineScanner::skip_canonical(LineEnding ending) {
  if (ending == LineEnding::none) return pos_;  // every line of the canonical form has an ending
  const auto* b = reinterpret_cast<const unsigned char*>(bytes_.data());
  const std::size_t size = bytes_.size();
  pos_ = take_run(
      pos_, size,
      [&](std::size_t p) {
        return ending == LineEnding::lf ? detail::skip_canonical_lf_blocks(b, p, size, number_) : p;
      },
      [&](std::size_t p) {
        const std::size_t next = skip_canonical_line(b, p, size, ending);
        number_ += next != p ? 1 : 0;
        return next;
      });
  return pos_;
}

std::uint32_t LineScanner::append_with_ending(LineEnding from, LineEnding to, std::string& out) {
  if (from == LineEnding::none || to == LineEnding::none || from == to) return 0;
  const auto* b = reinterpret_cast<const unsigned char*>(bytes_.data());
  const std::size_t size = bytes_.size();
  const std::uint32_t first = number_;
  const std::string_view eol = text(to);
  const std::size_t from_size = text(from).size();
  const bool crlf_to_lf = from == LineEnding::crlf && to == LineEnding::lf;
  pos_ = take_run(
      pos_, size,
      [&](std::size_t p) {
        return crlf_to_lf ? detail::crlf_blocks_to_lf(b, p, size, number_, out) : p;
      },
      [&](std::size_t p) {
        const std::size_t next = skip_canonical_line(b, p, size, from);
        if (next != p) {
          out.append(bytes_.substr(p, next - from_size - p)).append(eol);
          ++number_;
        }
        return next;
      });
  return number_ - first;
}

LineCounts count_lines(std::string_view bytes) {
  const LineBreaks breaks = count_line_breaks(bytes);
  LineCounts counts;
  counts.lf = breaks.lf;
  counts.crlf = breaks.crlf;
  counts.cr = breaks.cr;
  // The last line has no ending when the text does not end in one (after a BOM, if any).
  const std::size_t content = bytes.starts_with(kBom) ? kBom.size() : 0;
  const std::size_t n = bytes.size();
  counts.unterminated = n > content && bytes[n - 1] != '\n' && bytes[n - 1] != '\r' ? 1 : 0;
  return counts;
}

LineEnding LineCounts::dominant() const {
  LineEnding best = LineEnding::lf;
  std::size_t best_count = 0;
  for (const auto& [e, count] : {std::pair{LineEnding::lf, lf}, std::pair{LineEnding::crlf, crlf},
                                 std::pair{LineEnding::cr, cr}}) {
    if (count > best_count) {
      best = e;
      best_count = count;
    }
  }
  return best;
}

bool has_malformed_line(std::string_view bytes, std::string_view path) {
  LineScanner scanner(bytes, path);
  Line line;
  while (scanner.next(line)) {
    if (line.kind == LineKind::malformed) return true;
  }
  return false;
}

Document Document::parse(std::string bytes, std::string path) {
  check_readable(bytes, path);
  return parse_edited(std::move(bytes), std::move(path));
}

Document Document::parse_edited(std::string bytes, std::string path) {
  check_size(bytes, path);
  Document doc;
  doc.path_ = std::move(path);
  doc.bytes_ = std::move(bytes);
  const char* base = doc.bytes_.data();
  const char* const end = base + doc.bytes_.size();
  const char* p = base;
  if (doc.bytes_.starts_with(kBom)) {
    doc.bom_ = true;
    p += kBom.size();
  }
  // One exact allocation: a vector grown by doubling would hold up to twice the lines.
  doc.lines_.reserve(count_lines(doc.bytes_).lines());
  const auto* ubase = reinterpret_cast<const unsigned char*>(base);
  while (p < end) {
    Line& line = doc.lines_.emplace_back();
    p = split_line(base, p, end, line);
    scan_line(ubase, doc.bytes_.size(), line);
  }
  return doc;
}

std::string Document::take_bytes() && {
  lines_.clear();
  lines_.shrink_to_fit();
  bom_ = false;
  return std::move(bytes_);
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
  // One pass over the entries with an open-addressing table of folded keys (no allocation per
  // key): each slot holds a first line and, once its key repeats, the key's group.
  struct Slot {
    const Line* first = nullptr;
    std::size_t group = std::string_view::npos;  // index into groups, or npos: seen once
  };
  std::size_t entries = 0;
  for (const Line& line : lines_) entries += line.is_entry() ? 1 : 0;
  std::vector<std::vector<const Line*>> groups;
  if (entries < 2) return groups;
  std::size_t capacity = 16;
  while (capacity < 2 * entries) capacity *= 2;
  std::vector<Slot> table(capacity);
  const FoldedHash hash;
  for (const Line& line : lines_) {
    if (!line.is_entry()) continue;
    const std::string_view k = key(line);
    std::size_t h = hash(k);
    h ^= h >> 29;  // FNV-1a's low bits alone spread keys that differ at the end poorly
    std::size_t i = h & (capacity - 1);
    while (table[i].first != nullptr && !iequals(key(*table[i].first), k)) {
      i = (i + 1) & (capacity - 1);
    }
    Slot& slot = table[i];
    if (slot.first == nullptr) {
      slot.first = &line;
      continue;
    }
    if (slot.group == std::string_view::npos) {
      slot.group = groups.size();
      groups.push_back({slot.first});
    }
    groups[slot.group].push_back(&line);
  }
  return groups;
}

std::string_view Document::encoding() const {
  const Line* line = find(".encoding");
  return line == nullptr ? std::string_view() : raw_value(*line);
}

LineEnding Document::dominant_line_ending() const {
  LineCounts counts;
  for (const Line& line : lines_) counts.add(line.ending);
  return counts.dominant();
}

std::string shorten(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  std::size_t n = max;
  // Do not cut a UTF-8 sequence: back up over continuation bytes to the start of a character.
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  std::string out(text.substr(0, n));
  out.append("...");
  return out;
}

std::string describe(Problem problem, std::string_view key) {
  const std::string k = shorten(key, kMaxQuotedKey);
  switch (problem) {
    case Problem::missing_key:
      return "expected a key before '='";
    case Problem::missing_equals:
      return "expected '=' after key '" + k + "'";
    case Problem::space_in_key:
      return "expected '=' after key '" + k + "'; a key cannot contain whitespace";
    case Problem::unterminated_quote:
      return "unterminated quoted value: expected a closing '\"' before the end of the line";
    case Problem::quote_in_value:
      return "unexpected '\"' inside an unquoted value: quote the whole value";
    case Problem::text_after_value:
      return "unexpected text after the value: expected a '#' comment or the end of the line";
    case Problem::none:
      break;
  }
  return "malformed line";
}

std::vector<LineProblem> Document::problems() const {
  std::vector<LineProblem> out;
  for (const Line& line : lines_) {
    if (line.kind != LineKind::malformed) continue;
    LineProblem p;
    p.kind = line.problem;
    p.begin = line.problem_at();
    // At least one byte wide, but never past the end of a last line without a newline.
    p.end = std::min<std::size_t>(std::max(line.problem_at() + 1, line.end), bytes().size());
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

LineIndex Document::line_index() const {
  std::vector<std::uint32_t> starts;
  starts.reserve(lines_.size() + 1);
  starts.push_back(0);
  for (std::size_t i = 1; i < lines_.size(); ++i) starts.push_back(lines_[i].begin);
  // A line break at the very end starts one more (empty) line.
  if (!lines_.empty() && lines_.back().ending != LineEnding::none) {
    starts.push_back(lines_.back().next());
  }
  return LineIndex::from_starts(std::move(starts));
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
  std::size_t entries = 0;
  for (const Line& line : doc.lines()) entries += line.is_entry() ? 1 : 0;
  cfg.settings.reserve(entries);
  for (const Line& line : doc.lines()) {
    if (!line.is_entry()) continue;
    Setting& s = cfg.settings.emplace_back();
    s.key.assign(doc.key(line));
    const std::string_view raw = doc.raw_value(line);
    s.value.reserve(raw.size());
    escape::decode_append(raw, s.value);
    s.whole = {line.begin, line.end};
    s.key_span = {line.key_begin, line.key_end};
    s.value_span = {line.value_begin, line.value_end};
  }
  return cfg;
}

}  // namespace vmxkit::vmx
