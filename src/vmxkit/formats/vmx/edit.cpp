// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/edit.h"

#include <algorithm>
#include <cctype>
#include <list>
#include <map>
#include <unordered_map>
#include <unordered_set>

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

namespace {

// set_entries(): the lines it inserts, kept after the document line they follow, and the place
// of a line of the result (a document line, or one of those).
struct NewLine {
  std::string key;
  std::string value;
};
using NewLines = std::list<NewLine>;
struct Place {
  const Line* line = nullptr;  // the document line, or the one the inserted line follows
  NewLines* list = nullptr;    // null: the document line itself
  NewLines::iterator it;
  bool operator==(const Place& o) const {
    return line == o.line && list == o.list && (list == nullptr || it == o.it);
  }
};

class EntrySetter {
 public:
  EntrySetter(const Document& doc, std::span<const std::pair<std::string, std::string>> entries)
      : doc_(doc), entries_(entries) {
    for (const auto& [key, value] : entries) lower_.push_back(ascii_lowercase(key));
    for (const std::string& k : lower_) {
      for (std::size_t n = 1; n <= k.size(); ++n)
        last_.emplace(std::string_view(k).substr(0, n), Place{});
    }
  }

  // False when a key of the entries is in the document more than once: set() then removes the
  // later entries, which may be where a later key would go; the caller sets one at a time.
  bool scan() {
    std::unordered_set<std::string_view> wanted(lower_.begin(), lower_.end());
    std::string key;
    for (const Line& line : doc_.lines()) {
      last_line_ = Place{&line, nullptr, {}};
      if (!line.is_entry()) continue;
      key = ascii_lowercase(doc_.key(line));
      if (wanted.count(key) != 0 && !existing_.emplace(key, &line).second) return false;
      for (std::size_t n = 1; n <= key.size(); ++n) {
        const auto it = last_.find(std::string_view(key).substr(0, n));
        if (it == last_.end()) break;
        it->second = Place{&line, nullptr, {}};
      }
    }
    return true;
  }

  std::string apply() {
    for (std::size_t i = 0; i < entries_.size(); ++i) set(i);
    std::vector<TextEdit> edits;
    for (const auto& [line, value] : values_) edits.push_back(replace_value(doc_, *line, value));
    const std::string eol = line_ending_text(doc_.dominant_line_ending());
    for (const auto& [after, list] : inserted_) {
      std::string text;
      for (const NewLine& n : list) {
        if (!text.empty()) text += eol;
        text += format_entry(n.key, n.value);
      }
      edits.push_back(insert_line_after(doc_, after, text));
    }
    std::sort(edits.begin(), edits.end(),
              [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
    return apply_edits(doc_.bytes(), edits);
  }

 private:
  static std::string line_ending_text(LineEnding e) {
    return e == LineEnding::crlf ? "\r\n" : e == LineEnding::cr ? "\r" : "\n";
  }

  void set(std::size_t i) {
    const std::string& key = lower_[i];
    const std::string& value = entries_[i].second;
    if (const auto it = existing_.find(key); it != existing_.end()) {
      values_[it->second] = value;
      return;
    }
    if (const auto it = added_.find(key); it != added_.end()) {
      it->second.it->value = value;
      return;
    }
    // insertion_point(): the last line with the longest common prefix, of the stem at least.
    const std::size_t stem = stem_length(key);
    std::size_t longest = 0;
    Place after = last_line_;
    for (std::size_t n = key.size(); stem > 0 && n >= stem && longest == 0; --n) {
      const Place& p = last_.at(std::string_view(key).substr(0, n));
      if (p.line != nullptr || p.list != nullptr) {
        after = p;
        longest = n;
      }
    }
    const Place added = insert_after(after, NewLine{entries_[i].first, value});
    // The new line is right after `after`: the last line of every prefix `after` was last of,
    // of the prefixes longer than the longest (no line had them), and of all when it ends the
    // document.
    const bool at_end = after == last_line_;
    for (std::size_t n = 1; n <= key.size(); ++n) {
      Place& p = last_.at(std::string_view(key).substr(0, n));
      if (at_end || n > longest || p == after) p = added;
    }
    if (at_end) last_line_ = added;
    added_.emplace(key, added);
  }

  Place insert_after(const Place& after, NewLine line) {
    if (after.list == nullptr) {  // right after a document line: before what was put there
      NewLines& list = inserted_[after.line];
      return Place{after.line, &list, list.insert(list.begin(), std::move(line))};
    }
    return Place{after.line, after.list, after.list->insert(std::next(after.it), std::move(line))};
  }

  const Document& doc_;
  std::span<const std::pair<std::string, std::string>> entries_;
  std::vector<std::string> lower_;  // the entries' keys, lower case (last_ views them)
  std::unordered_map<std::string_view, Place> last_;  // prefix of a key -> its last line
  std::unordered_map<std::string, const Line*> existing_;
  std::map<const Line*, std::string> values_;  // new values of document lines
  std::map<const Line*, NewLines> inserted_;   // lines inserted after a document line
  std::unordered_map<std::string, Place> added_;
  Place last_line_;  // the result's last line (null: the document is empty)
};

}  // namespace

std::string set_entries(const Document& doc,
                        std::span<const std::pair<std::string, std::string>> entries) {
  EntrySetter setter(doc, entries);
  if (setter.scan()) return setter.apply();
  Document out = doc;
  for (const auto& [key, value] : entries) out = with_edits(out, set(out, key, value));
  return std::string(out.bytes());
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
  return Document::parse_edited(apply_edits(doc.bytes(), edits), doc.path());
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
