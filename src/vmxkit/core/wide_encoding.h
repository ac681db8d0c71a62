// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

/// Text in UTF-16 or UTF-32, which no VMware or vSphere file is: told apart so that readers
/// refuse it instead of reading its bytes as something else.
namespace vmxkit {

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

/// Whether `bytes` starts with the byte order mark of `encoding`.
bool has_byte_order_mark(std::string_view bytes, WideEncoding encoding);

/// Throws vmxkit::Error at `path`:1:1 for UTF-16 or UTF-32 text ("UTF-16 text: save it as
/// UTF-8"): every reader reads UTF-8 (or a .vmx's ASCII-compatible .encoding) only, and reading
/// wide text byte by byte finds nothing.
void refuse_wide_encoding(std::string_view bytes, const std::string& path);

}  // namespace vmxkit
