// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/canonical.h"

#include <cstdint>
#include <cstring>
#include <exception>
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

constexpr std::string_view kBom = "\xEF\xBB\xBF";

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

/// The canonical form of the lines `scanner` yields from `bytes` into `out`, which takes
/// `copy(span of bytes)` for runs of lines already canonical and `text()`/`appended()` around
/// each rebuilt one (Out decides whether a run is copied or only referred to), each line ended
/// with `ending`. Returns the endings the lines had: when `ending` is not their dominant one,
/// the caller starts again. `before`: the text before `bytes` when they are a part of it (their
/// line numbers follow its lines). The caller applies the BOM rule to what `out` holds.
template <class Out>
LineCounts build_lines(LineScanner& scanner, std::string_view bytes, std::string_view path,
                       LineEnding ending, bool copy_runs, Out& out, std::string_view before = {}) {
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
      const std::size_t lines = scanner.number() - first;
      counts.lf += ending == LineEnding::lf ? lines : 0;
      counts.crlf += ending == LineEnding::crlf ? lines : 0;
      counts.cr += ending == LineEnding::cr ? lines : 0;
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
      case LineKind::malformed: {
        // The column as Document::location() gives it: from the start of the line. The lines
        // before a part are counted only here, for the message.
        const auto lines_before =
            before.empty() ? 0 : static_cast<std::uint32_t>(count_line_breaks(before).total());
        throw Error(path.empty() ? std::string("<stdin>") : std::string(path),
                    lines_before + scanner.number(), line.problem_at() - line.begin + 1,
                    describe(line.problem, slice(line.key_begin, line.key_end)));
      }
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
    const LineEnding dominant =
        build_lines(scanner, bytes, path, ending, copy_runs, sink).dominant();
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
/// as it grows).
struct CanonicalPieces::Builder {
  std::vector<Piece>& pieces;
  std::string& rebuilt;
  std::uint32_t source;
  const char* input;
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
    add(0, static_cast<std::size_t>(run.data() - input), run.size());
  }
  std::string& text() {
    text_mark = rebuilt.size();
    return rebuilt;
  }
  void appended() { add(source, text_mark, rebuilt.size() - text_mark); }
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

}  // namespace

CanonicalPieces::CanonicalPieces(std::string_view bytes, std::string_view path) : input_(bytes) {
  const LineScanner whole(bytes, path);  // checks the whole text (UTF-16, size) before any work
  // The rebuilt lines' buffers are reserved once for the worst case (every line rebuilt, as in
  // canonical_form()): growing them by doubling copied them and faulted in their pages again
  // (a fifth of fmt's time on the 64 MiB benchmark file). Pages never written cost nothing.
  const auto reserve = [](std::string& text, std::string_view part) {
    reserve_large(text, part.size() + part.size() / 8);
  };
  const std::size_t split = split_point(bytes);
  LineEnding ending = guess_ending(bytes);
  if (split == 0) {
    rebuilt_.resize(1);
    reserve(rebuilt_[0], bytes);
    while (true) {
      LineScanner scanner = whole;
      Builder builder{pieces_, rebuilt_[0], 1, bytes.data()};
      const LineEnding dominant =
          build_lines(scanner, bytes, path, ending, true, builder).dominant();
      if (dominant == ending) break;
      ending = dominant;  // the first line's ending was not the text's: again, with it
      pieces_.clear();
      rebuilt_[0].clear();
    }
  } else {
    // Each half's lines on its own core, then the pieces of the first half followed by those of
    // the second; the ending is the dominant one of both halves' lines together.
    const std::string_view first = bytes.substr(0, split), second = bytes.substr(split);
    rebuilt_.resize(2);
    std::vector<Piece> second_pieces;
    both([&] { reserve(rebuilt_[0], first); }, [&] { reserve(rebuilt_[1], second); });
    while (true) {
      LineCounts counts_first, counts_second;
      both(
          [&] {
            LineScanner lines(first, path);
            Builder builder{pieces_, rebuilt_[0], 1, bytes.data()};
            counts_first = build_lines(lines, first, path, ending, true, builder);
          },
          [&] {
            LineScanner lines = LineScanner::part(second);
            Builder builder{second_pieces, rebuilt_[1], 2, bytes.data()};
            counts_second = build_lines(lines, second, path, ending, true, builder, first);
          });
      LineCounts counts;
      counts.lf = counts_first.lf + counts_second.lf;
      counts.crlf = counts_first.crlf + counts_second.crlf;
      counts.cr = counts_first.cr + counts_second.cr;
      if (counts.dominant() == ending) break;
      ending = counts.dominant();
      pieces_.clear();
      second_pieces.clear();
      rebuilt_[0].clear();
      rebuilt_[1].clear();
    }
    Builder join{pieces_, rebuilt_[1], 2, bytes.data()};
    for (const Piece& piece : second_pieces) join.add(piece.source, piece.offset, piece.size);
  }
  // The BOM rule of canonical_form(): the first three bytes of the text, across pieces.
  std::string head;
  for_each([&](std::string_view piece) {
    head.append(piece.substr(0, kBom.size() - head.size()));
    return head.size() < kBom.size();
  });
  bom_ = head == kBom;
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
