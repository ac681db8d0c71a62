// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vmx/format.h"

#include "vmxkit/core/error.h"
#include "vmxkit/vmx/escape.h"

namespace vmxkit::vmx {
namespace {

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

std::string canonical_form(const Document& doc) {
  const std::string_view eol = text(doc.dominant_line_ending());
  std::string out;
  out.reserve(doc.bytes().size() + doc.bytes().size() / 8);
  for (const Line& line : doc.lines()) {
    switch (line.kind) {
      case LineKind::blank:
        break;
      case LineKind::comment:
        out.append(trim_right(doc.text(line).substr(line.comment_begin - line.begin)));
        break;
      case LineKind::entry: {
        out.append(doc.key(line));
        out.append(" = \"");
        escape::encode_append(doc.value(line), out);
        out.push_back('"');
        const std::string_view comment = trim_right(doc.comment(line));
        if (!comment.empty()) {
          out.push_back(' ');
          out.append(comment);
        }
        break;
      }
      case LineKind::malformed: {
        const Location at = doc.location(line.problem_at);
        throw Error(doc.path().empty() ? std::string("<stdin>") : doc.path(), at.line, at.column,
                    describe(line.problem, doc.key(line)));
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

}  // namespace vmxkit::vmx
