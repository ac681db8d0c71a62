// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/escape.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

using namespace vmxkit::vmx;

TEST_CASE("escape round-trips every one of the 256 byte values", "[vmx][escape]") {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string encoded = escape::encode(all);
  CHECK(escape::decode(encoded) == all);
  for (int c = 0; c < 256; ++c) {
    const std::string one(1, static_cast<char>(c));
    CHECK(escape::decode(escape::encode(one)) == one);
  }
}

TEST_CASE("encode escapes exactly quote, pipe, DEL and control bytes but TAB", "[vmx][escape]") {
  for (int c = 0; c < 256; ++c) {
    const auto b = static_cast<unsigned char>(c);
    const bool expected = c == '"' || c == '|' || c == 0x7F || (c < 0x20 && c != '\t');
    CHECK(escape::needs_escape(b) == expected);
    const std::string enc = escape::encode(std::string(1, static_cast<char>(c)));
    CHECK(enc.size() == (expected ? 3u : 1u));
  }
  CHECK(escape::encode("a\"b|c\nd\x7f") == "a|22b|7Cc|0Ad|7F");
  CHECK(escape::encode("tab\there") == "tab\there");
  CHECK(escape::encode("caf\xc3\xa9 #=\\'") == "caf\xc3\xa9 #=\\'");
}

TEST_CASE("encode writes uppercase hex as VMware does", "[vmx][escape]") {
  CHECK(escape::encode("\x1b") == "|1B");
  CHECK(escape::encode("|") == "|7C");
}

TEST_CASE("decode accepts either hex case", "[vmx][escape]") {
  CHECK(escape::decode("|22quoted|22") == "\"quoted\"");
  CHECK(escape::decode("|7c|7C") == "||");
  CHECK(escape::decode("line1|0Aline2|0a") == "line1\nline2\n");
}

TEST_CASE("decode keeps a pipe without two hex digits literally", "[vmx][escape]") {
  CHECK(escape::decode("a|b") == "a|b");
  CHECK(escape::decode("a|") == "a|");
  CHECK(escape::decode("a|4") == "a|4");
  CHECK(escape::decode("a|4x") == "a|4x");
  // The byte after a lone '|' is not re-read as the start of an escape (Escape_Undo).
  CHECK(escape::decode("||22") == "||22");
  CHECK(escape::decode("|2|41") == "|2|41");
}

TEST_CASE("find_invalid_escape points at the first lone pipe", "[vmx][escape]") {
  CHECK(escape::find_invalid_escape("ok|22ok") == std::string_view::npos);
  CHECK(escape::find_invalid_escape("ok|2") == 2);
  CHECK(escape::find_invalid_escape("|22|zz") == 3);
  CHECK(escape::find_invalid_escape("x|") == 1);
}

TEST_CASE("can_be_unquoted refuses values VMware's unquoted grammar cannot hold", "[vmx][escape]") {
  CHECK(escape::can_be_unquoted("TRUE"));
  CHECK(escape::can_be_unquoted("0x10de"));
  CHECK_FALSE(escape::can_be_unquoted(""));
  CHECK_FALSE(escape::can_be_unquoted("two words"));
  CHECK_FALSE(escape::can_be_unquoted("a#b"));
  CHECK_FALSE(escape::can_be_unquoted("a\"b"));
  CHECK_FALSE(escape::can_be_unquoted("a|b"));
}

TEST_CASE("recode_append writes encode(decode(raw)) for any raw value", "[vmx][escape]") {
  std::vector<std::string> raws = {"",
                                   "plain",
                                   "|",
                                   "||",
                                   "|2",
                                   "|22",
                                   "|7c|7C",
                                   "a|0Ab|zz",
                                   "\"q\"",
                                   std::string("\x01\x7F\t\xC3\xA9", 5),
                                   std::string(40, 'x') + "|22" + std::string(40, 'y') + "|"};
  std::uint32_t seed = 7;
  const char alphabet[] = "ab|2F7cZ\"\t\x01\x7F\xC3 #";
  for (int n = 0; n < 2000; ++n) {
    std::string raw;
    const int len = static_cast<int>((seed = seed * 1103515245u + 12345u) >> 16) % 40;
    for (int i = 0; i < len; ++i) {
      seed = seed * 1103515245u + 12345u;
      raw.push_back(alphabet[(seed >> 16) % (sizeof alphabet - 1)]);
    }
    raws.push_back(std::move(raw));
  }
  for (const std::string& raw : raws) {
    INFO(raw);
    std::string out = "prefix";
    escape::recode_append(raw, out);
    CHECK(out == "prefix" + escape::encode(escape::decode(raw)));
  }
}
