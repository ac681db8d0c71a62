// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/canonical.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vmx/escape.h"

namespace vmxkit::vmx {
namespace {

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

namespace {

/// The line ending every line of the canonical form gets is the text's dominant one. Counting
/// the breaks first cost a pass over the whole input before the work (the largest part of fmt's
/// time on a 64 MiB file): the ending is guessed from the first line instead, build_lines()
/// counts the endings of the lines it goes through, and the rare text whose first ending is not
/// its dominant one is done again with the right one.
LineEnding guess_ending(std::string_view bytes) {
  const char* end = bytes.data() + bytes.size();
  const char* brk = find_line_break(bytes.data(), end);
  if (brk == end || *brk == '\n') return LineEnding::lf;  // no break at all: LF, as counted
  return brk + 1 < end && brk[1] == '\n' ? LineEnding::crlf : LineEnding::cr;
}

/// The first malformed line of a part of the text: its number counted from the part's first line
/// (1), its column, and what is wrong. Becomes an Error once the lines before it are counted.
struct Malformed {
  std::uint32_t line;
  std::uint32_t column;
  std::string message;
  [[noreturn]] void raise(std::string_view path, std::uint32_t lines_before) const {
    throw Error(path.empty() ? std::string("<stdin>") : std::string(path), lines_before + line,
                column, message);
  }
};

/// The canonical form of the lines `scanner` yields from `bytes` into `out`, which takes
/// `copy(span of bytes)` for runs of lines already canonical and `text()`/`appended()` around
/// each rebuilt one (Out decides whether a run is copied or only referred to), each line ended
/// with `ending`. Returns the endings the lines had: when `ending` is not their dominant one,
/// the caller starts again. Throws Malformed at the first malformed line. The caller applies the
/// BOM rule to what `out` holds.
template <class Out>
LineCounts build_lines(LineScanner& scanner, std::string_view bytes, LineEnding ending,
                       bool copy_runs, Out& out) {
  const std::string_view eol = text(ending);
  LineCounts counts;
  Line line;
  for (;;) {
    // Lines already in canonical form are taken in runs (each ends in `ending`); the others
    // are rebuilt one by one.
    if (copy_runs) {
      const std::size_t run = scanner.offset();
      const std::uint32_t first = scanner.number();
      out.copy(bytes.substr(run, scanner.skip_canonical(ending) - run));
      counts.add(ending, scanner.number() - first);
      // Then lines canonical but for their ending (a CRLF line in an LF text): their bytes,
      // with `ending`.
      const LineEnding other = ending == LineEnding::lf ? LineEnding::crlf : LineEnding::lf;
      const std::uint32_t recoded = scanner.append_with_ending(other, ending, out.text());
      if (recoded != 0) {
        out.appended();
        counts.add(other, recoded);
        continue;  // more canonical lines may follow
      }
    }
    if (!scanner.next(line)) break;
    counts.add(line.ending);
    const auto slice = [&](std::uint32_t begin, std::uint32_t end) {
      return bytes.substr(begin, end - begin);
    };
    std::string& text = out.text();
    switch (line.kind) {
      case LineKind::blank:
        break;
      case LineKind::comment:
        text.append(trim_right(slice(line.comment_begin, line.end)));
        break;
      case LineKind::entry: {
        text.append(slice(line.key_begin, line.key_end));
        text.append(" = \"");
        escape::recode_append(slice(line.value_begin, line.value_end), text);
        text.push_back('"');
        const std::string_view comment = trim_right(slice(line.comment_begin, line.end));
        if (!comment.empty()) {
          text.push_back(' ');
          text.append(comment);
        }
        break;
      }
      case LineKind::malformed:
        // The column as Document::location() gives it: from the start of the line.
        throw Malformed{scanner.number(), line.problem_at() - line.begin + 1,
                        describe(line.problem, slice(line.key_begin, line.key_end))};
    }
    text.append(eol);
    out.appended();
  }
  return counts;
}

/// Builds the whole text: runs are copied.
struct StringOut {
  std::string out;
  void copy(std::string_view run) { out.append(run); }
  std::string& text() { return out; }
  void appended() {}
};

std::string canonical_form(std::string_view bytes, std::string_view path, bool copy_runs) {
  StringOut sink;
  reserve_large(sink.out, bytes.size() + bytes.size() / 8);
  LineEnding ending = guess_ending(bytes);
  for (;;) {
    LineScanner scanner(bytes, path);
    LineEnding dominant = ending;
    try {
      dominant = build_lines(scanner, bytes, ending, copy_runs, sink).dominant();
    } catch (const Malformed& m) {
      m.raise(path, 0);
    }
    if (dominant == ending) break;
    ending = dominant;  // the first line's ending was not the text's: again, with the right one
    sink.out.clear();
  }
  std::string out = std::move(sink.out);
  // A dropped BOM must not turn bytes of the first key into a new one: if the text now starts
  // with EF BB BF (a key that began with those bytes after the BOM, or after leading blanks),
  // a reader would skip them as a BOM and see a different key. Keep one BOM in front instead.
  if (out.starts_with(kBom)) out.insert(0, kBom);
  return out;
}

}  // namespace

/// Refers to runs of the input and keeps only the rebuilt lines, in rebuilt_[source - 1]: pieces
/// are (source, offset, size), resolved once the text is complete (the rebuilt text may move
/// as it grows). build_lines() is given the text a chunk at a time: `chunk` is where the current
/// one is in memory, `chunk_offset` where it is in the input.
struct CanonicalPieces::Builder {
  std::vector<Piece>& pieces;
  std::string& rebuilt;
  std::uint32_t source;
  const char* chunk = nullptr;
  std::size_t chunk_offset = 0;
  std::size_t text_mark = 0;  // rebuilt.size() when the current line began
  void add(std::uint32_t from, std::size_t offset, std::size_t size) {
    if (size == 0) return;
    if (!pieces.empty()) {
      Piece& last = pieces.back();
      if (last.source == from && last.offset + last.size == offset) {
        last.size += size;
        return;
      }
    }
    pieces.push_back(Piece{from, offset, size});
  }
  void copy(std::string_view run) {
    add(0, chunk_offset + static_cast<std::size_t>(run.data() - chunk), run.size());
  }
  std::string& text() {
    text_mark = rebuilt.size();
    return rebuilt;
  }
  void appended() { add(source, text_mark, rebuilt.size() - text_mark); }
};

/// Where the lines are read from: straight from the input, or (with `read`) copied from it a
/// chunk of about `chunk` bytes at a time into a buffer that each part reuses.
struct CanonicalPieces::Source {
  std::string_view bytes;
  const ReadAt* read;
  std::size_t chunk;
};

namespace {

/// Inputs this large are made canonical in two halves at once, on two cores.
constexpr std::size_t kParallelMinBytes = std::size_t{1} << 20;

/// Where a text of kParallelMinBytes or more is cut in two for two threads: just after the
/// first line break past its middle (after an LF, so never inside a CRLF; after a CR only where
/// no LF follows), so that each half holds whole lines. 0: not cut (too small, one core, or no
/// line break past the middle).
std::size_t split_point(std::string_view bytes) {
  if (bytes.size() < kParallelMinBytes || std::thread::hardware_concurrency() < 2) return 0;
  const std::size_t middle = bytes.size() / 2;
  std::size_t at = bytes.find('\n', middle);
  if (at == std::string_view::npos) at = bytes.find('\r', middle);
  return at == std::string_view::npos || at + 1 >= bytes.size() ? 0 : at + 1;
}

/// Runs `second` on another thread and `first` on this one (both here, one after the other,
/// when no thread can be started); rethrows the first one's exception, else the second one's.
template <class F, class G>
void both(F&& first, G&& second) {
  std::exception_ptr error_second;
  const auto run_second = [&] {
    try {
      second();
    } catch (...) {
      error_second = std::current_exception();
    }
  };
  std::thread thread;
  try {
    thread = std::thread(run_second);
  } catch (const std::system_error&) {  // out of threads: the same work on this one
  }
  std::exception_ptr error_first;
  try {
    first();
  } catch (...) {
    error_first = std::current_exception();
  }
  if (thread.joinable()) {
    thread.join();
  } else {
    run_second();
  }
  if (error_first) std::rethrow_exception(error_first);
  if (error_second) std::rethrow_exception(error_second);
}

/// The end of the last whole line of `text`: just after its last line break, never between the
/// CR and the LF of a CRLF (a CR at its very end may be one). 0 when it holds no whole line.
std::size_t whole_lines(std::string_view text) {
  const std::size_t lf = text.rfind('\n');
  if (lf != std::string_view::npos) return lf + 1;
  if (text.size() < 2) return 0;
  const std::size_t cr = text.rfind('\r', text.size() - 2);
  return cr == std::string_view::npos ? 0 : cr + 1;
}

/// Calls f(chunk, offset) with the bytes [begin, end) of the text (whole lines) in chunks of
/// whole lines, `offset` being where a chunk starts in the text. Read through src.read, a chunk
/// is a buffer of about src.chunk bytes, larger only for a line longer than that.
template <class S, class F>
void for_each_chunk(const S& src, std::size_t begin, std::size_t end, F&& f) {
  if (src.read == nullptr) {
    if (begin < end) f(src.bytes.substr(begin, end - begin), begin);
    return;
  }
  std::string buffer(std::max<std::size_t>(1, std::min(src.chunk, end - begin)), '\0');
  std::size_t have = 0;  // buffer[0, have) holds the text's bytes [at - have, at)
  for (std::size_t at = begin; at < end;) {
    if (have == buffer.size()) buffer.resize(2 * buffer.size());  // a line longer than it
    const std::size_t n = std::min(buffer.size() - have, end - at);
    (*src.read)(at, std::span<char>(buffer.data() + have, n));
    at += n;
    have += n;
    const std::size_t cut = at == end ? have : whole_lines(std::string_view(buffer.data(), have));
    if (cut == 0) continue;
    f(std::string_view(buffer.data(), cut), at - have);
    std::memmove(buffer.data(), buffer.data() + cut, have - cut);
    have -= cut;
  }
}

void add_counts(LineCounts& to, const LineCounts& from) {
  to.lf += from.lf;
  to.crlf += from.crlf;
  to.cr += from.cr;
}

/// What building a part of the text gave: the endings of its lines and their number.
struct Part {
  LineCounts counts;
  std::uint32_t lines = 0;
};

/// Builds the lines of [begin, end) of the text (whole lines, none of them the BOM) into `out`,
/// a chunk at a time. Throws Malformed numbered from the part's first line.
template <class S, class Out>
Part build_part(const S& src, std::size_t begin, std::size_t end, LineEnding ending, Out& out) {
  Part part;
  for_each_chunk(src, begin, end, [&](std::string_view chunk, std::size_t offset) {
    LineScanner scanner = LineScanner::part(chunk);
    out.chunk = chunk.data();
    out.chunk_offset = offset;
    try {
      add_counts(part.counts, build_lines(scanner, chunk, ending, true, out));
    } catch (Malformed& m) {
      m.line += part.lines;
      throw;
    }
    part.lines += scanner.number();
  });
  return part;
}

/// Reserves the rebuilt lines' buffer of a part of `size` bytes once, for the worst case (every
/// line rebuilt, as in canonical_form()): growing it by doubling copied it and faulted in its
/// pages again (a fifth of fmt's time on the 64 MiB benchmark file). Pages never written cost
/// nothing.
void reserve_rebuilt(std::string& text, std::size_t size) { reserve_large(text, size + size / 8); }

}  // namespace

CanonicalPieces::CanonicalPieces(std::string_view bytes, std::string_view path)
    : CanonicalPieces(bytes, path, static_cast<const ReadAt*>(nullptr), 0) {}

CanonicalPieces::CanonicalPieces(std::string_view bytes, std::string_view path, const ReadAt& read,
                                 std::size_t chunk)
    : CanonicalPieces(bytes, path, &read, chunk) {}

CanonicalPieces::CanonicalPieces(std::string_view bytes, std::string_view path, const ReadAt* read,
                                 std::size_t chunk)
    : input_(bytes) {
  const LineScanner whole(bytes, path);  // checks the whole text (UTF-16, size) before any work
  const Source src{bytes, read, chunk};
  const std::size_t start = whole.has_bom() ? kBom.size() : 0;
  const std::size_t split = split_point(bytes);
  LineEnding ending = guess_ending(bytes);
  if (split > start) {
    build_halves(src, path, start, split, ending);
  } else {
    rebuilt_.resize(1);
    reserve_rebuilt(rebuilt_[0], bytes.size());
    while (true) {
      Builder builder{pieces_, rebuilt_[0], 1};
      LineEnding dominant = ending;
      try {
        dominant = build_part(src, start, bytes.size(), ending, builder).counts.dominant();
      } catch (const Malformed& m) {
        m.raise(path, 0);
      }
      if (dominant == ending) break;
      ending = dominant;  // the first line's ending was not the text's: again, with it
      pieces_.clear();
      rebuilt_[0].clear();
    }
  }
  // The BOM rule of canonical_form(): the first three bytes of the text, across pieces.
  std::string head;
  for_each([&](std::string_view piece) {
    head.append(piece.substr(0, kBom.size() - head.size()));
    return head.size() < kBom.size();
  });
  bom_ = head == kBom;
}

void CanonicalPieces::build_halves(const Source& src, std::string_view path, std::size_t start,
                                   std::size_t split, LineEnding ending) {
  // Each half's lines on its own core, then the pieces of the first half followed by those of
  // the second; the ending is the dominant one of both halves' lines together. A malformed line
  // of the second half is numbered once the first half's lines are counted.
  const std::size_t end = input_.size();
  rebuilt_.resize(2);
  std::vector<Piece> second_pieces;
  both([&] { reserve_rebuilt(rebuilt_[0], split); },
       [&] { reserve_rebuilt(rebuilt_[1], end - split); });
  while (true) {
    Part first, second;
    std::optional<Malformed> bad_second;
    try {
      both(
          [&] {
            Builder builder{pieces_, rebuilt_[0], 1};
            first = build_part(src, start, split, ending, builder);
          },
          [&] {
            Builder builder{second_pieces, rebuilt_[1], 2};
            try {
              second = build_part(src, split, end, ending, builder);
            } catch (Malformed& m) {
              bad_second = std::move(m);
            }
          });
    } catch (const Malformed& m) {
      m.raise(path, 0);
    }
    if (bad_second) bad_second->raise(path, first.lines);
    add_counts(first.counts, second.counts);
    if (first.counts.dominant() == ending) break;
    ending = first.counts.dominant();
    pieces_.clear();
    second_pieces.clear();
    rebuilt_[0].clear();
    rebuilt_[1].clear();
  }
  Builder join{pieces_, rebuilt_[1], 2};
  for (const Piece& piece : second_pieces) join.add(piece.source, piece.offset, piece.size);
}

std::size_t CanonicalPieces::size() const {
  std::size_t n = bom_ ? kBom.size() : 0;
  for (const Piece& piece : pieces_) n += piece.size;
  return n;
}

bool CanonicalPieces::equals(std::string_view text) const {
  if (size() != text.size()) return false;
  std::size_t at = 0;
  bool same = true;
  for_each([&](std::string_view piece) {
    same = text.compare(at, piece.size(), piece) == 0;
    at += piece.size();
    return same;
  });
  return same;
}

std::string_view CanonicalPieces::view(const Piece& piece) const {
  const std::string_view from =
      piece.source == 0 ? input_ : std::string_view(rebuilt_[piece.source - 1]);
  return from.substr(piece.offset, piece.size);
}

std::string_view CanonicalPieces::bom() { return kBom; }

std::string canonical_form(std::string_view bytes, std::string_view path) {
  return canonical_form(bytes, path, true);
}

namespace detail {
std::string canonical_form_each_line(std::string_view bytes, std::string_view path) {
  return canonical_form(bytes, path, false);
}
}  // namespace detail

std::string canonical_form(const Document& doc) { return canonical_form(doc.bytes(), doc.path()); }

}  // namespace vmxkit::vmx
