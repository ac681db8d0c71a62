// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

/// The `|XX` escape codec of `.vmx` values, as in VMware's own code (open-vm-tools
/// lib/misc/escape.c): `|` followed by two hex digits stands for one byte.
namespace vmxkit::vmx::escape {

/// True for the bytes VMware's writer escapes: `"`, `|`, DEL and every control byte but TAB.
constexpr bool needs_escape(unsigned char c) {
  return c == '"' || c == '|' || c == 0x7F || (c < 0x20 && c != '\t');
}

/// Decodes a raw value leniently, as VMware's reader does: either hex case is accepted; a `|`
/// not followed by two hex digits is kept literally, and the byte after it is not re-read as the
/// start of another escape (`||22` decodes to `||22`).
std::string decode(std::string_view raw);
void decode_append(std::string_view raw, std::string& out);

/// Encodes a value exactly as VMware's writer does: the bytes of needs_escape() become `|XX`
/// with uppercase hex; everything else, including bytes >= 0x80, is kept as it is.
std::string encode(std::string_view value);
void encode_append(std::string_view value, std::string& out);

/// Appends what encode(decode(raw)) gives, without the decoded copy: the canonical form of a
/// raw value (fmt). A raw value with nothing to decode or encode is appended as it is.
void recode_append(std::string_view raw, std::string& out);

/// Offset of the first `|` in `raw` that does not start a valid escape, or npos.
std::size_t find_invalid_escape(std::string_view raw, std::size_t from = 0);

/// True when the value can be written without quotes: not empty, and no whitespace, `#`, `"` or
/// byte that needs escaping.
bool can_be_unquoted(std::string_view value);

}  // namespace vmxkit::vmx::escape
