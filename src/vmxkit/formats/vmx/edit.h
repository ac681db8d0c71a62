// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/core/text_edit.h"
#include "vmxkit/formats/vmx/document.h"

/// Edits of a `.vmx` document as text edits on its original bytes, so everything the user wrote
/// outside the edited spans (comments, order, key case, quoting, line endings, encoding) stays.
namespace vmxkit::vmx {

/// `key = "value"`, VMware's writer form, with the value encoded.
std::string format_entry(std::string_view key, std::string_view value);

/// The edit that gives an existing entry a new (decoded) value: only the value bytes change; the
/// key's spelling, the whitespace, the trailing comment and the line ending stay. An unquoted
/// value stays unquoted when the new value can be written so.
TextEdit replace_value(const Document& doc, const Line& line, std::string_view value);

/// The edit that removes a whole line with its line ending. Removing the last line, when it
/// has no line ending, also removes the line ending before it, so a set-then-unset of a new key
/// gives back the original bytes.
TextEdit remove_line(const Document& doc, const Line& line);

/// Edits that remove several lines (each with remove_line()), merged where they touch.
std::vector<TextEdit> remove_lines(const Document& doc, std::span<const Line* const> lines);

/// The edit that inserts a new line (text without line ending) after `after`, or at the start of
/// the document when `after` is nullptr. Uses the document's dominant line ending.
TextEdit insert_line_after(const Document& doc, const Line* after, std::string_view text);

/// Where a new key goes: after the last entry sharing the longest prefix with it (at least its
/// leading letters, so `pciPassthru.allowP2P` joins the `pciPassthru*` keys), else after the last
/// line. nullptr means "at the start" (the document is empty).
const Line* insertion_point(const Document& doc, std::string_view key);

/// Edits that make `key` have `value`: the first entry gets the new value and later duplicates
/// (any case) are removed; when the key is absent a new `key = "value"` line is inserted at
/// insertion_point().
std::vector<TextEdit> set(const Document& doc, std::string_view key, std::string_view value);

/// The bytes of `doc` after set() of each entry in order (as a loop of with_edits(set()) gives
/// them: a key new to the document goes where insertion_point() puts it, among the keys the
/// entries before it added too), in one pass over the document and one over the entries: the
/// loop parsed the whole document again for each entry, quadratic in the two together.
std::string set_entries(const Document& doc,
                        std::span<const std::pair<std::string, std::string>> entries);

/// Edits that remove every entry of `key`, in any case. Empty when the key is absent.
std::vector<TextEdit> unset(const Document& doc, std::string_view key);

/// Applies edits and parses the result as a new document (same path).
Document with_edits(const Document& doc, const std::vector<TextEdit>& edits);

/// set() and unset() of a document's bytes without building a Document: one pass over the lines
/// finds the edits, which are then written with the rest of the bytes into one reserved result.
/// The bytes are those of apply_edits(bytes, set(Document::parse(bytes), key, value)).
std::string set_bytes(std::string_view bytes, std::string_view key, std::string_view value);
/// `removed` (when given) is set to whether the key was there.
std::string unset_bytes(std::string_view bytes, std::string_view key, bool* removed = nullptr);

}  // namespace vmxkit::vmx
