// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/wide_encoding.h"

#include "vmxkit/core/error.h"

namespace vmxkit {
namespace {

constexpr std::size_t kSample = 512;

unsigned char at(std::string_view b, std::size_t i) { return static_cast<unsigned char>(b[i]); }

bool has_bom(std::string_view b, WideEncoding e) {
  switch (e) {
    case WideEncoding::utf32le:
      return b.substr(0, 4) == std::string_view("\xFF\xFE\0\0", 4);
    case WideEncoding::utf32be:
      return b.substr(0, 4) == std::string_view("\0\0\xFE\xFF", 4);
    case WideEncoding::utf16le:
      return b.substr(0, 2) == "\xFF\xFE";
    case WideEncoding::utf16be:
      return b.substr(0, 2) == "\xFE\xFF";
    case WideEncoding::none:
      return false;
  }
  return false;
}

std::size_t unit_size(WideEncoding e) {
  return e == WideEncoding::utf32le || e == WideEncoding::utf32be ? 4 : 2;
}

}  // namespace

WideEncoding detect_wide_encoding(std::string_view b) {
  for (const WideEncoding e : {WideEncoding::utf32le, WideEncoding::utf32be, WideEncoding::utf16le,
                               WideEncoding::utf16be}) {
    if (has_bom(b, e)) return e;
  }
  const std::string_view s = b.substr(0, kSample);
  // UTF-32: three NUL bytes and one ASCII byte in most units.
  const std::size_t units = s.size() / 4;
  std::size_t le32 = 0;
  std::size_t be32 = 0;
  for (std::size_t u = 0; u < units; ++u) {
    const std::size_t i = u * 4;
    const bool mid_zero = at(s, i + 1) == 0 && at(s, i + 2) == 0;
    if (mid_zero && at(s, i) != 0 && at(s, i + 3) == 0) ++le32;
    if (mid_zero && at(s, i) == 0 && at(s, i + 3) != 0) ++be32;
  }
  if (units > 0 && le32 * 2 >= units && be32 == 0) return WideEncoding::utf32le;
  if (units > 0 && be32 * 2 >= units && le32 == 0) return WideEncoding::utf32be;
  // UTF-16: one NUL byte in most pairs, always on the same side.
  const std::size_t pairs = s.size() / 2;
  std::size_t le16 = 0;
  std::size_t be16 = 0;
  for (std::size_t p = 0; p < pairs; ++p) {
    const unsigned char lo = at(s, p * 2);
    const unsigned char hi = at(s, p * 2 + 1);
    if (lo != 0 && hi == 0) ++le16;
    if (lo == 0 && hi != 0) ++be16;
  }
  if (pairs > 0 && le16 * 2 >= pairs && be16 * 8 <= pairs) return WideEncoding::utf16le;
  if (pairs > 0 && be16 * 2 >= pairs && le16 * 8 <= pairs) return WideEncoding::utf16be;
  return WideEncoding::none;
}

std::string_view to_string(WideEncoding encoding) {
  switch (encoding) {
    case WideEncoding::none:
      return "UTF-8";
    case WideEncoding::utf16le:
      return "UTF-16LE";
    case WideEncoding::utf16be:
      return "UTF-16BE";
    case WideEncoding::utf32le:
      return "UTF-32LE";
    case WideEncoding::utf32be:
      return "UTF-32BE";
  }
  return "UTF-8";
}

std::string narrow_ascii(std::string_view b, WideEncoding encoding, std::size_t max_units) {
  if (encoding == WideEncoding::none) return std::string(b.substr(0, max_units));
  const std::size_t size = unit_size(encoding);
  const bool little = encoding == WideEncoding::utf16le || encoding == WideEncoding::utf32le;
  std::string out;
  for (std::size_t i = has_bom(b, encoding) ? size : 0;
       i + size <= b.size() && out.size() < max_units; i += size) {
    // The code unit's value, as far as it matters: is it ASCII, and which character.
    unsigned high = 0;
    for (std::size_t k = 1; k < size; ++k) high |= at(b, little ? i + k : i + size - 1 - k);
    const unsigned char low = at(b, little ? i : i + size - 1);
    out += high == 0 && low < 0x80 ? static_cast<char>(low) : '?';
  }
  return out;
}

bool has_byte_order_mark(std::string_view bytes, WideEncoding encoding) {
  return has_bom(bytes, encoding);
}

void refuse_wide_encoding(std::string_view bytes, const std::string& path) {
  const WideEncoding e = detect_wide_encoding(bytes);
  if (e == WideEncoding::none) return;
  const std::string family = unit_size(e) == 4 ? "UTF-32" : "UTF-16";
  throw Error(path, 1, 1,
              family + " text: save it as UTF-8 (found " + std::string(to_string(e)) +
                  (has_bom(bytes, e) ? " with a byte order mark" : ", NUL-interleaved") +
                  "; vmxkit reads UTF-8 only)");
}

}  // namespace vmxkit
