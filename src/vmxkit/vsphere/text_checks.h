// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/core/source_file.h"

/// Checks the vSphere readers share on the text they are given, and the quoting of values in
/// their messages.
namespace vmxkit::vsphere {

/// A Unicode encoding wider than UTF-8, told by its byte order mark or, without one, by NUL
/// bytes interleaved with ASCII ("<\0?\0x\0" is `<?x` in UTF-16LE).
enum class WideEncoding { none, utf16le, utf16be, utf32le, utf32be };

/// The wide encoding of `bytes`, or none. Looks at the BOM, else at the first 512 bytes: one
/// byte of every two (UTF-16) or three of every four (UTF-32) being NUL, where the others are not.
WideEncoding detect_wide_encoding(std::string_view bytes);

/// "UTF-16LE", "UTF-32BE", ...
std::string_view to_string(WideEncoding encoding);

/// The ASCII characters of wide text (one per code unit, others as '?'), for telling its
/// format; `bytes` itself when the encoding is none. Reads at most `max_units` code units.
std::string narrow_ascii(std::string_view bytes, WideEncoding encoding, std::size_t max_units);

/// Throws vmxkit::Error at 1:1 for UTF-16 or UTF-32 text ("UTF-16 text: save it as UTF-8"):
/// every vSphere reader reads UTF-8 only, and reading wide text byte by byte finds nothing.
void refuse_wide_encoding(const SourceFile& source);

/// `value` in double quotes for a message: `"`, `\` and bytes that are not printable (control
/// bytes, DEL, bytes that are not well-formed UTF-8) are escaped as `\"`, `\\` and `\xNN`, so a
/// NUL cannot cut the message short and a terminal shows what the bytes were.
std::string quote_for_message(std::string_view value);

/// A byte as messages show it: `0xE9`.
std::string hex_byte(char byte);

}  // namespace vmxkit::vsphere
