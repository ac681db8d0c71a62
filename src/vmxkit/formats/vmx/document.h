// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/core/text.h"
#include "vmxkit/model/vm_config.h"

/// The lossless `.vmx` document: every byte of the input belongs to exactly one line, and an
/// unedited document writes back byte-identical, whatever its encoding, line endings, comments or
/// malformed lines. Grammar as VMware's reader (open-vm-tools lib/dict/dictll.c):
///
///     <ws> key <ws> = <ws> value <ws> [# comment]       unquoted value: no ws, '#' or '"'
///     <ws> key <ws> = <ws> "value" <ws> [# comment]     quoted: any byte but '"'
///     <ws> key <ws> = <ws> [# comment]                  empty value
///     <ws> [# comment]                                  comment or blank line
///
/// `<ws>` is spaces and tabs. Lines end with "\n", "\r\n" or a lone "\r" (kept per line).
namespace vmxkit::vmx {

enum class LineEnding : std::uint8_t { none, lf, crlf, cr };

constexpr std::size_t length(LineEnding ending) {
  return ending == LineEnding::none ? 0 : ending == LineEnding::crlf ? 2 : 1;
}
constexpr std::string_view text(LineEnding ending) {
  switch (ending) {
    case LineEnding::lf:
      return "\n";
    case LineEnding::crlf:
      return "\r\n";
    case LineEnding::cr:
      return "\r";
    case LineEnding::none:
      break;
  }
  return "";
}

enum class LineKind : std::uint8_t { blank, comment, entry, malformed };

/// Why a line is malformed.
enum class Problem : std::uint8_t {
  none,
  missing_key,         ///< the line starts with '='
  missing_equals,      ///< a key with no '=' after it
  space_in_key,        ///< a key, whitespace, then more text before '='
  unterminated_quote,  ///< an opening '"' with no closing one on the line
  quote_in_value,      ///< a '"' inside an unquoted value
  text_after_value,    ///< something other than a '#' comment after the value
};

/// A malformed line as the parser reports it: what is wrong, where (from the problem to the end
/// of the line, at least one byte unless at the end of the document) and the message naming
/// what was expected. The rules layer turns these into diagnostics (rules/parse_problems.h).
struct LineProblem {
  Problem kind = Problem::none;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string message;
};

/// One line as byte offsets into the document, 32 bytes. Offsets are absolute, so a line can be
/// turned into text edits without copying it.
struct Line {
  std::uint32_t begin = 0;      ///< first byte of the line
  std::uint32_t end = 0;        ///< one past the last byte before the line ending
  std::uint32_t key_begin = 0;  ///< entry (or malformed line that has a key): the key
  std::uint32_t key_end = 0;
  std::uint32_t value_begin = 0;  ///< entry: the raw value, inside the quotes when quoted
  std::uint32_t value_end = 0;
  /// Entry: the trailing '#', or `end` when there is none. Comment line: its '#'. Malformed
  /// line: where the problem is (problem_at()), as a malformed line has no comment.
  std::uint32_t comment_begin = 0;
  LineKind kind = LineKind::blank;
  LineEnding ending = LineEnding::none;
  Problem problem = Problem::none;
  bool quoted = false;

  std::uint32_t next() const { return end + static_cast<std::uint32_t>(length(ending)); }
  bool is_entry() const { return kind == LineKind::entry; }
  /// Malformed: where the problem is.
  std::uint32_t problem_at() const { return comment_begin; }
};
static_assert(sizeof(Line) == 32, "a Line is a compact record: one per line of the input");

/// The lines of `.vmx` bytes one at a time, without storing them: what Document::parse does,
/// for the commands that need one pass (fmt, set, unset). Skips a leading UTF-8 BOM.
class LineScanner {
 public:
  /// Throws vmxkit::Error (naming `path`) when the input is larger than 4 GiB - 1.
  explicit LineScanner(std::string_view bytes, std::string_view path = {});
  /// A scanner of a part of a text that a LineScanner of the whole text has checked, starting
  /// just after a line break of it: no BOM is looked for, and number() counts from the part's
  /// first line (1).
  static LineScanner part(std::string_view bytes);

  bool has_bom() const { return bom_; }
  /// The next line (its 1-based number is `number()`), or false at the end of the input.
  bool next(Line& line);
  std::uint32_t number() const { return number_; }
  /// Where the next line starts.
  std::size_t offset() const { return pos_; }
  /// Skips the lines from offset() on that are already in canonical form (`key = "value"` with
  /// nothing to recode, a comment without trailing blanks, an empty line), each ending in
  /// `ending`, and returns where the first other line starts: fmt copies such runs as they are
  /// instead of splitting and classifying each line.
  std::size_t skip_canonical(LineEnding ending);
  /// Appends to `out` the lines from offset() on that are in canonical form but end in `from`,
  /// not `to` (a CRLF line of a Windows-edited file whose text is mostly LF): each line's bytes
  /// with `to` as their ending, as the canonical form writes them. Returns how many.
  std::uint32_t append_with_ending(LineEnding from, LineEnding to, std::string& out);

 private:
  LineScanner() = default;
  std::string_view bytes_;
  std::size_t pos_ = 0;
  std::uint32_t number_ = 0;
  bool bom_ = false;
};

/// How many lines of each ending `bytes` has (as Document::parse splits them), in one pass.
struct LineCounts {
  std::size_t lf = 0;
  std::size_t crlf = 0;
  std::size_t cr = 0;
  std::size_t unterminated = 0;  ///< 1 when the last line has no line ending, else 0

  std::size_t lines() const { return lf + crlf + cr + unterminated; }
  /// Counts `lines` lines of one ending (none counts nothing: it is the last line, told apart by
  /// the text).
  void add(LineEnding ending, std::size_t lines = 1) {
    lf += ending == LineEnding::lf ? lines : 0;
    crlf += ending == LineEnding::crlf ? lines : 0;
    cr += ending == LineEnding::cr ? lines : 0;
  }
  /// The line ending most lines use; LF when there are none (Document::dominant_line_ending()).
  LineEnding dominant() const;
};
LineCounts count_lines(std::string_view bytes);

/// True when some line of `bytes` is malformed (one pass, nothing stored). Throws vmxkit::Error,
/// naming `path`, for text no .vmx reader can read (UTF-16, 4 GiB and more).
bool has_malformed_line(std::string_view bytes, std::string_view path = {});

class Document {
 public:
  /// Parses `bytes`. Never fails on content: malformed lines are kept and reported by
  /// problems(). Throws vmxkit::Error when the input is larger than 4 GiB - 1, or is UTF-16 or
  /// UTF-32 text.
  static Document parse(std::string bytes, std::string path = {});
  /// Parses bytes that edits made from an accepted document: not judged for a wide encoding
  /// again. That judgement samples the text's start, and an edit to a short text with NUL bytes
  /// could tip it; a document vmxkit read stays one it can edit.
  static Document parse_edited(std::string bytes, std::string path = {});

  Document() = default;

  const std::string& path() const { return path_; }
  std::string_view bytes() const { return bytes_; }
  std::span<const Line> lines() const { return lines_; }
  bool has_bom() const { return bom_; }
  /// Moves the bytes out (the document is left empty): for callers that keep the bytes after
  /// they are done with the document, without a copy.
  std::string take_bytes() &&;

  std::string_view key(const Line& line) const { return slice(line.key_begin, line.key_end); }
  /// The value as written, escapes not decoded, without the quotes.
  std::string_view raw_value(const Line& line) const {
    return slice(line.value_begin, line.value_end);
  }
  /// The value as VMware reads it (`|XX` escapes decoded).
  std::string value(const Line& line) const;
  /// The trailing comment from its '#', or empty.
  std::string_view comment(const Line& line) const { return slice(line.comment_begin, line.end); }
  /// The line without its line ending.
  std::string_view text(const Line& line) const { return slice(line.begin, line.end); }

  /// The first entry with this key (ASCII case-insensitive), or nullptr.
  const Line* find(std::string_view key) const;
  /// Every entry with this key, in file order.
  std::vector<const Line*> find_all(std::string_view key) const;
  /// The decoded value of the first entry with this key.
  std::optional<std::string> get(std::string_view key) const;

  /// Groups of two or more entries whose keys are equal ignoring ASCII case, each in file order,
  /// the groups in the order their keys first repeat. VMware refuses to start a VM whose file
  /// has any. One pass with a hash table of folded keys.
  std::vector<std::vector<const Line*>> duplicate_keys() const;

  /// The declared `.encoding` value (raw), or empty when there is none.
  std::string_view encoding() const;

  /// The line ending most lines use; LF when the document has none.
  LineEnding dominant_line_ending() const;

  /// Every malformed line, in file order.
  std::vector<LineProblem> problems() const;

  /// Line and column (1-based, bytes) of a byte offset.
  Location location(std::size_t offset) const;
  /// The line index of the bytes (LineIndex(bytes()), without scanning them again). Unlike
  /// location(), its first line starts at offset 0, before a BOM.
  LineIndex line_index() const;

  /// Writes the document, line by line, to `out`. Byte-identical to the input.
  void write(std::string& out) const;
  std::string to_string() const;

 private:
  std::string_view slice(std::uint32_t begin, std::uint32_t end) const {
    return std::string_view(bytes_).substr(begin, end - begin);
  }

  std::string path_;
  std::string bytes_;
  std::vector<Line> lines_;
  bool bom_ = false;
};

/// The message for a malformed line's problem, naming what was expected. A key longer than
/// kMaxQuotedKey bytes is shortened (its start, then "..."), so one huge line cannot make a
/// huge message.
std::string describe(Problem problem, std::string_view key);
/// The UTF-8 byte order mark a .vmx may start with (kept, and not part of the first line).
inline constexpr std::string_view kBom = "\xEF\xBB\xBF";

inline constexpr std::size_t kMaxQuotedKey = 128;

/// `text` when it is at most `max` bytes, else its first bytes (not cutting a UTF-8 sequence)
/// and "...": for user text quoted in messages.
std::string shorten(std::string_view text, std::size_t max = kMaxQuotedKey);

/// The neutral model of a parsed `.vmx`: its entries as settings, in file order, with their
/// spans (malformed lines are not settings).
VmConfig to_vm_config(const Document& doc);

}  // namespace vmxkit::vmx
