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

std::string canonical_form(std::string_view bytes, std::string_view path, bool copy_runs) {
  LineScanner scanner(bytes, path);
  // Text without a CR has only LF breaks (or none, and LF is then the default): no count needed.
  const LineEnding ending =
      bytes.find('\r') == std::string_view::npos ? LineEnding::lf : count_lines(bytes).dominant();
  const std::string_view eol = text(ending);
  std::string out;
  reserve_large(out, bytes.size() + bytes.size() / 8);
  Line line;
  for (;;) {
    // Lines already in canonical form are copied in runs; the others are rebuilt one by one.
    if (copy_runs) {
      const std::size_t run = scanner.offset();
      out.append(bytes.substr(run, scanner.skip_canonical(ending) - run));
    }
    if (!scanner.next(line)) break;
    const auto slice = [&](std::uint32_t begin, std::uint32_t end) {
      return bytes.substr(begin, end - begin);
    };
    switch (line.kind) {
      case LineKind::blank:
        break;
      case LineKind::comment:
        out.append(trim_right(slice(line.comment_begin, line.end)));
        break;
      case LineKind::entry: {
        out.append(slice(line.key_begin, line.key_end));
        out.append(" = \"");
        escape::recode_append(slice(line.value_begin, line.value_end), out);
        out.push_back('"');
        const std::string_view comment = trim_right(slice(line.comment_begin, line.end));
        if (!comment.empty()) {
          out.push_back(' ');
          out.append(comment);
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
    out.append(eol);
  }
  // A dropped BOM must not turn bytes of the first key into a new one: if the text now starts
  // with EF BB BF (a key that began with those bytes after the BOM, or after leading blanks),
  // a reader would skip them as a BOM and see a different key. Keep one BOM in front instead.
  if (out.starts_with(kBom)) out.insert(0, kBom);
  return out;
}

}  // namespace

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
