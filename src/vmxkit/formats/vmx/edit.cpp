// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/edit.h"

#include <algorithm>
#include <cctype>

#include "vmxkit/core/text.h"
#include "vmxkit/formats/vmx/escape.h"

namespace vmxkit::vmx {
namespace {

// Length of the leading run of ASCII letters: the "family" of a key (`pciPassthru` of
// `pciPassthru0.id`, `sched` of `sched.mem.min`).
std::size_t stem_length(std::string_view key) {
  std::size_t n = 0;
  while (n < key.size() && std::isalpha(static_cast<unsigned char>(key[n]))) ++n;
  return n;
}

// replace_value(), which needs nothing of the document but the line.
TextEdit value_edit(const Line& line, std::string_view value) {
  TextEdit edit;
  edit.begin = line.value_begin;
  edit.end = line.value_end;
  if (line.quoted) {
    edit.replacement = escape::encode(value);
    return edit;
  }
  if (line.value_begin != line.value_end && escape::can_be_unquoted(value)) {
    edit.replacement = std::string(value);
    return edit;
  }
  edit.replacement.reserve(value.size() + 3);
  edit.replacement.push_back('"');
  escape::encode_append(value, edit.replacement);
  edit.replacement.push_back('"');
  // An empty unquoted value right before a comment: keep a space between value and '#'.
  if (line.value_begin == line.comment_begin && line.comment_begin < line.end) {
    edit.replacement.push_back(' ');
  }
  return edit;
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
  (void)doc;
  return value_edit(line, value);
}

namespace {

// remove_line() given the line before (nullptr for the first line).
TextEdit remove_line_after(const Line& line, const Line* previous) {
  if (line.ending == LineEnding::none && previous != nullptr) return {previous->end, line.end, {}};
  return {line.begin, line.next(), {}};
}

// insert_line_after() given what it needs of the document.
TextEdit insert_line(const Line* after, bool empty, std::uint32_t first_begin, bool bom,
                     LineEnding dominant, std::string_view text) {
  const std::string_view eol = vmx::text(dominant);
  TextEdit edit;
  if (after == nullptr) {
    edit.begin = edit.end = empty ? (bom ? 3u : 0u) : first_begin;
    edit.replacement.reserve(text.size() + eol.size());
    edit.replacement.append(text).append(eol);
  } else if (after->ending == LineEnding::none) {
    edit.begin = edit.end = after->end;
    edit.replacement.reserve(text.size() + eol.size());
    edit.replacement.append(eol).append(text);
  } else {
    edit.begin = edit.end = after->next();
    edit.replacement.reserve(text.size() + eol.size());
    edit.replacement.append(text).append(eol);
  }
  return edit;
}

// Appends a removal to sorted, merged removals: only the last line's removal can reach back
// over the ending of the line before, so it may touch the previous removal.
void add_removal(std::vector<TextEdit>& removals, TextEdit e) {
  if (!removals.empty() && e.begin < removals.back().end) {
    removals.back().end = std::max(removals.back().end, e.end);
  } else {
    removals.push_back(std::move(e));
  }
}

// What set() and unset() need from one pass over the lines of a document.
class KeyScan {
 public:
  KeyScan(std::string_view bytes, std::string_view key, bool keep_first)
      : bytes_(bytes), key_(key), keep_first_(keep_first), stem_(stem_length(key)) {}

  // Feed every line in order.
  void add(const Line& line) {
    ++lines_;
    if (lines_ == 1) first_begin_ = line.begin;
    counts_.add(line.ending);
    if (line.is_entry()) {
      const std::string_view k = bytes_.substr(line.key_begin, line.key_end - line.key_begin);
      if (iequals(k, key_)) {
        if (keep_first_ && !found_) {
          first_ = line;
        } else {
          add_removal(removals_, remove_line_after(line, lines_ == 1 ? nullptr : &previous_));
        }
        found_ = true;
      } else if (stem_ > 0 && !found_) {
        const std::size_t len = icommon_prefix(k, key_);
        if (len >= stem_ && len >= best_len_) {
          best_ = line;
          best_len_ = len;
          has_best_ = true;
        }
      }
    }
    previous_ = line;
  }

  bool found() const { return found_; }

  // The edits of set(): a new value for the first entry and the removal of the others, or the
  // insertion of a new line.
  std::vector<TextEdit> set_edits(std::string_view value, bool bom) {
    std::vector<TextEdit> edits;
    if (!found_) {
      const Line* after = has_best_ ? &best_ : lines_ > 0 ? &previous_ : nullptr;
      edits.push_back(insert_line(after, lines_ == 0, first_begin_, bom, counts_.dominant(),
                                  format_entry(key_, value)));
      return edits;
    }
    edits = std::move(removals_);
    edits.push_back(value_edit(first_, value));
    return edits;
  }

  std::vector<TextEdit> take_removals() { return std::move(removals_); }

 private:
  std::string_view bytes_;
  std::string_view key_;
  bool keep_first_;
  std::size_t stem_;
  std::size_t lines_ = 0;
  std::uint32_t first_begin_ = 0;
  LineCounts counts_;
  bool found_ = false;
  Line first_;
  Line previous_;
  Line best_;
  bool has_best_ = false;
  std::size_t best_len_ = 0;
  std::vector<TextEdit> removals_;
};

}  // namespace

TextEdit remove_line(const Document& doc, const Line& line) {
  return remove_line_after(line, &line == &doc.lines().front() ? nullptr : &line - 1);
}

TextEdit insert_line_after(const Document& doc, const Line* after, std::string_view text) {
  const auto lines = doc.lines();
  return insert_line(after, lines.empty(), lines.empty() ? 0 : lines.front().begin, doc.has_bom(),
                     doc.dominant_line_ending(), text);
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

namespace {

template <class Lines>
KeyScan scan_lines(std::string_view bytes, std::string_view key, bool keep_first, Lines&& lines) {
  KeyScan scan(bytes, key, keep_first);
  lines([&scan](const Line& line) { scan.add(line); });
  return scan;
}

KeyScan scan_document(const Document& doc, std::string_view key, bool keep_first) {
  return scan_lines(doc.bytes(), key, keep_first, [&doc](auto&& add) {
    for (const Line& line : doc.lines()) add(line);
  });
}

KeyScan scan_bytes(std::string_view bytes, std::string_view key, bool keep_first, bool& bom) {
  LineScanner scanner(bytes);
  bom = scanner.has_bom();
  return scan_lines(bytes, key, keep_first, [&scanner](auto&& add) {
    Line line;
    while (scanner.next(line)) add(line);
  });
}

}  // namespace

std::vector<TextEdit> set(const Document& doc, std::string_view key, std::string_view value) {
  return scan_document(doc, key, true).set_edits(value, doc.has_bom());
}

std::vector<TextEdit> remove_lines(const Document& doc, std::span<const Line* const> lines) {
  std::vector<TextEdit> edits;
  edits.reserve(lines.size());
  for (const Line* line : lines) edits.push_back(remove_line(doc, *line));
  const auto by_begin = [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; };
  if (!std::is_sorted(edits.begin(), edits.end(), by_begin)) {
    std::sort(edits.begin(), edits.end(), by_begin);
  }
  std::vector<TextEdit> merged;
  merged.reserve(edits.size());
  for (TextEdit& e : edits) add_removal(merged, std::move(e));
  return merged;
}

std::vector<TextEdit> unset(const Document& doc, std::string_view key) {
  return scan_document(doc, key, false).take_removals();
}

Document with_edits(const Document& doc, const std::vector<TextEdit>& edits) {
  return Document::parse(apply_edits(doc.bytes(), edits), doc.path());
}

std::string set_bytes(std::string_view bytes, std::string_view key, std::string_view value) {
  bool bom = false;
  KeyScan scan = scan_bytes(bytes, key, true, bom);
  return apply_edits(bytes, scan.set_edits(value, bom));
}

std::string unset_bytes(std::string_view bytes, std::string_view key, bool* removed) {
  bool bom = false;
  KeyScan scan = scan_bytes(bytes, key, false, bom);
  if (removed != nullptr) *removed = scan.found();
  return apply_edits(bytes, scan.take_removals());
}

}  // namespace vmxkit::vmx
