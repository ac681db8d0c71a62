// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vmx/edit.h"

#include <algorithm>
#include <cctype>

#include "vmxkit/core/text.h"
#include "vmxkit/vmx/escape.h"

namespace vmxkit::vmx {
namespace {

// Length of the leading run of ASCII letters: the "family" of a key (`pciPassthru` of
// `pciPassthru0.id`, `sched` of `sched.mem.min`).
std::size_t stem_length(std::string_view key) {
  std::size_t n = 0;
  while (n < key.size() && std::isalpha(static_cast<unsigned char>(key[n]))) ++n;
  return n;
}

}  // namespace

std::string format_entry(std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(key.size() + value.size() + 6);
  out.append(key);
  out.append(" = \"");
  escape::encode_append(value, out);
  out.push_back('"');
  return out;
}

TextEdit replace_value(const Document& doc, const Line& line, std::string_view value) {
  TextEdit edit;
  if (line.quoted) {
    edit.begin = line.value_begin;
    edit.end = line.value_end;
    edit.replacement = escape::encode(value);
    return edit;
  }
  edit.begin = line.value_begin;
  edit.end = line.value_end;
  if (line.value_begin != line.value_end && escape::can_be_unquoted(value)) {
    edit.replacement = std::string(value);
    return edit;
  }
  edit.replacement.push_back('"');
  escape::encode_append(value, edit.replacement);
  edit.replacement.push_back('"');
  // An empty unquoted value right before a comment: keep a space between value and '#'.
  if (line.value_begin == line.comment_begin && line.comment_begin < line.end) {
    edit.replacement.push_back(' ');
  }
  (void)doc;
  return edit;
}

TextEdit remove_line(const Document& doc, const Line& line) {
  if (line.ending == LineEnding::none && &line != &doc.lines().front()) {
    const Line& previous = *(&line - 1);
    return {previous.end, line.end, {}};
  }
  return {line.begin, line.next(), {}};
}

TextEdit insert_line_after(const Document& doc, const Line* after, std::string_view text) {
  const std::string_view eol = vmx::text(doc.dominant_line_ending());
  if (after == nullptr) {
    const std::uint32_t at = doc.lines().empty() ? (doc.has_bom() ? 3u : 0u)
                                                 : doc.lines().front().begin;
    return {at, at, std::string(text) + std::string(eol)};
  }
  if (after->ending == LineEnding::none) {
    return {after->end, after->end, std::string(eol) + std::string(text)};
  }
  return {after->next(), after->next(), std::string(text) + std::string(eol)};
}

const Line* insertion_point(const Document& doc, std::string_view key) {
  const auto lines = doc.lines();
  if (lines.empty()) return nullptr;
  const std::size_t stem = stem_length(key);
  const Line* best = nullptr;
  std::size_t best_len = 0;
  if (stem > 0) {
    for (const Line& line : lines) {
      if (!line.is_entry()) continue;
      const std::size_t len = icommon_prefix(doc.key(line), key);
      if (len >= stem && len >= best_len) {
        best = &line;
        best_len = len;
      }
    }
  }
  return best != nullptr ? best : &lines.back();
}

std::vector<TextEdit> set(const Document& doc, std::string_view key, std::string_view value) {
  const auto found = doc.find_all(key);
  std::vector<TextEdit> edits;
  if (found.empty()) {
    edits.push_back(insert_line_after(doc, insertion_point(doc, key), format_entry(key, value)));
    return edits;
  }
  edits = remove_lines(doc, std::vector<const Line*>(found.begin() + 1, found.end()));
  edits.push_back(replace_value(doc, *found.front(), value));
  return edits;
}

std::vector<TextEdit> remove_lines(const Document& doc, const std::vector<const Line*>& lines) {
  std::vector<TextEdit> edits;
  for (const Line* line : lines) edits.push_back(remove_line(doc, *line));
  // Only the last line lacks an ending, so its removal reaches back over the ending of the line
  // before; when that line goes too, the two edits touch: merge them.
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  std::vector<TextEdit> merged;
  for (TextEdit& e : edits) {
    if (!merged.empty() && e.begin < merged.back().end) {
      merged.back().end = std::max(merged.back().end, e.end);
    } else {
      merged.push_back(std::move(e));
    }
  }
  return merged;
}

std::vector<TextEdit> unset(const Document& doc, std::string_view key) {
  return remove_lines(doc, doc.find_all(key));
}

Document with_edits(const Document& doc, const std::vector<TextEdit>& edits) {
  return Document::parse(apply_edits(doc.bytes(), edits), doc.path());
}

}  // namespace vmxkit::vmx
