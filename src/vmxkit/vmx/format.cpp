// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vmx/format.h"

#include <cstring>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/vmx/escape.h"

namespace vmxkit::vmx {
namespace {

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

namespace {

/// The canonical form into `out`, which takes `copy(span of bytes)` for runs of lines already
/// canonical and `append(text)` for rebuilt ones (Out decides whether a run is copied or only
/// referred to). Returns nothing: the caller applies the BOM rule to what `out` holds.
template <class Out>
void build(std::string_view bytes, std::string_view path, bool copy_runs, Out& out) {
  LineScanner scanner(bytes, path);
  // Text without a CR has only LF breaks (or none, and LF is then the default): no count needed.
  const LineEnding ending =
      bytes.find('\r') == std::string_view::npos ? LineEnding::lf : count_lines(bytes).dominant();
  const std::string_view eol = text(ending);
  Line line;
  for (;;) {
    // Lines already in canonical form are taken in runs; the others are rebuilt one by one.
    if (copy_runs) {
      const std::size_t run = scanner.offset();
      out.copy(bytes.substr(run, scanner.skip_canonical(ending) - run));
    }
    if (!scanner.next(line)) break;
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
        // The column as Document::location() gives it: from the start of the line.
        throw Error(path.empty() ? std::string("<stdin>") : std::string(path), scanner.number(),
                    line.problem_at() - line.begin + 1,
                    describe(line.problem, slice(line.key_begin, line.key_end)));
      }
    }
    text.append(eol);
    out.appended();
  }
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
  build(bytes, path, copy_runs, sink);
  std::string out = std::move(sink.out);
  // A dropped BOM must not turn bytes of the first key into a new one: if the text now starts
  // with EF BB BF (a key that began with those bytes after the BOM, or after leading blanks),
  // a reader would skip them as a BOM and see a different key. Keep one BOM in front instead.
  if (out.starts_with(kBom)) out.insert(0, kBom);
  return out;
}

}  // namespace

/// Refers to runs of the input and keeps only the rebuilt lines: pieces are (from the input?,
/// offset, size), resolved once the text is complete (the rebuilt text may move as it grows).
struct CanonicalPieces::Builder {
  CanonicalPieces& p;
  std::size_t text_mark = 0;  // p.rebuilt_.size() when the current line began
  void add(bool input, std::size_t offset, std::size_t size) {
    if (size == 0) return;
    if (!p.pieces_.empty()) {
      Piece& last = p.pieces_.back();
      if (last.input == input && last.offset + last.size == offset) {
        last.size += size;
        return;
      }
    }
    p.pieces_.push_back(Piece{input, offset, size});
  }
  void copy(std::string_view run) {
    add(true, static_cast<std::size_t>(run.data() - p.input_.data()), run.size());
  }
  std::string& text() {
    text_mark = p.rebuilt_.size();
    return p.rebuilt_;
  }
  void appended() { add(false, text_mark, p.rebuilt_.size() - text_mark); }
};

CanonicalPieces::CanonicalPieces(std::string_view bytes, std::string_view path) : input_(bytes) {
  Builder builder{*this};
  build(bytes, path, true, builder);
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
  return (piece.input ? input_ : std::string_view(rebuilt_)).substr(piece.offset, piece.size);
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
