// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/canonical_blocks.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "vmxkit/formats/vmx/canonical.h"
#include "vmxkit/formats/vmx/document.h"

using namespace vmxkit::vmx;
using detail::BlockIsa;

namespace {

// Lines that put each test of the 64-byte blocks on either side of its line: plain entries,
// the near misses of each mask (a blank or '=' in the key, '#' in a key or a value, a quote in
// the key or the value, escaped bytes, control bytes), comments and blank lines, long lines
// that cross a block, and lines that end with a stray CR.
std::vector<std::string> line_kinds() {
  const std::string long_value(70, 'v');
  return {"a = \"1\"",
          "ethernet0.virtualDev = \"vmxnet3\"",
          "pciPassthru0.id = \"00000:059:00.0\"",
          "k = \"" + long_value + "\"",
          std::string(66, 'k') + " = \"x\"",
          "",
          "",
          "# a comment",
          "#",
          "# trailing \t",
          "a = \"x # not a comment\"",
          "a#b = \"1\"",
          "a = \"1\" # note",
          "a  = \"1\"",
          "a =  \"1\"",
          "a= \"1\"",
          "a =\"1\"",
          " = \"1\"",
          "= \"1\"",
          "a b = \"1\"",
          "a\tb = \"1\"",
          "a = \"x\"y\"",
          "a = \"x\" = \"y\"",
          "a\"b = \"1\"",
          "a = \"\"",
          "a = \"tab\there\"",
          "a = \"bar|7Cesc\"",
          "a|b = \"1\"",
          "a = \"\x7F\"",
          "a = \"\x01\"",
          "a = \"x=y z\"",
          "a = 1",
          "a = \"1",
          "a = \"1\" ",
          "a\xC3\xA9 = \"\xC3\xA9\"",
          "stray = \"cr\"\r"};
}

std::string random_text(std::mt19937& rng, const std::vector<std::string>& kinds,
                        const std::vector<std::string>& endings) {
  std::string text;
  const auto lines = std::uniform_int_distribution<int>(1, 40)(rng);
  for (int i = 0; i < lines; ++i) {
    // Mostly plain entries, as in real files, so that whole blocks pass as often as they fail.
    const auto pick = std::uniform_int_distribution<std::size_t>(0, 2 * kinds.size())(rng);
    text += kinds[pick < kinds.size() ? pick : pick % 3];
    text += endings[std::uniform_int_distribution<std::size_t>(0, endings.size() - 1)(rng)];
  }
  return text;
}

// What the line-by-line test accepts from the start of `text` with `ending`.
std::size_t accepted_by_lines(const std::string& text, LineEnding ending) {
  auto scanner = LineScanner::part(text);
  if (ending == LineEnding::lf) {
    // skip_canonical() itself uses the blocks for LF: judge each line through the other path,
    // canonical_form() of one line being the line itself.
    std::size_t p = 0;
    while (p < text.size()) {
      const std::size_t end = text.find('\n', p);
      if (end == std::string::npos) break;
      const std::string line = text.substr(p, end + 1 - p);
      try {
        if (detail::canonical_form_each_line(line, "t.vmx") != line) break;
      } catch (const std::exception&) {
        break;  // malformed
      }
      p = end + 1;
    }
    return p;
  }
  return scanner.skip_canonical(ending);
}

std::uint32_t newlines(const std::string& text, std::size_t end) {
  return static_cast<std::uint32_t>(
      std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
}

}  // namespace

TEST_CASE("64-byte blocks skip only lines the line-by-line test accepts, on every instruction set",
          "[vmx][fmt]") {
  const auto kinds = line_kinds();
  std::mt19937 rng(20261204);
  std::size_t blocks_taken = 0;
  for (const BlockIsa isa : detail::block_isas()) {
    CAPTURE(static_cast<int>(isa));
    for (int round = 0; round < 3000; ++round) {
      const std::string text = random_text(rng, kinds, {"\n", "\n", "\n", "\r\n"});
      const auto* b = reinterpret_cast<const unsigned char*>(text.data());
      std::uint32_t lines = 0;
      const std::size_t stop = detail::skip_canonical_lf_blocks(isa, b, 0, text.size(), lines);
      CAPTURE(text);
      // Sound: every line skipped is canonical, and counted.
      CHECK(stop <= accepted_by_lines(text, LineEnding::lf));
      CHECK(lines == newlines(text, stop));
      CHECK((stop == 0 || text[stop - 1] == '\n'));
      blocks_taken += stop != 0 ? 1 : 0;
    }
  }
  // Useful: the blocks took lines in a good share of the texts (none without SIMD).
  CHECK(blocks_taken > 1000);
}

TEST_CASE("64-byte blocks of CRLF lines give the lines with LF, on every instruction set",
          "[vmx][fmt]") {
  const auto kinds = line_kinds();
  std::mt19937 rng(4122026);
  std::size_t blocks_taken = 0;
  for (const BlockIsa isa : detail::block_isas()) {
    CAPTURE(static_cast<int>(isa));
    for (int round = 0; round < 3000; ++round) {
      const std::string text = random_text(rng, kinds, {"\r\n", "\r\n", "\r\n", "\n"});
      const auto* b = reinterpret_cast<const unsigned char*>(text.data());
      std::uint32_t lines = 0;
      std::string out = "before";
      const std::size_t stop = detail::crlf_blocks_to_lf(isa, b, 0, text.size(), lines, out);
      CAPTURE(text);
      CHECK(stop <= accepted_by_lines(text, LineEnding::crlf));
      CHECK(lines == newlines(text, stop));
      std::string expected = "before" + text.substr(0, stop);
      std::erase(expected, '\r');  // every CR skipped is that of a CRLF
      CHECK(out == expected);
      blocks_taken += stop != 0 ? 1 : 0;
    }
  }
  CHECK(blocks_taken > 1000);
}

TEST_CASE("canonical form with the blocks matches rebuilding each line on mixed texts",
          "[vmx][fmt]") {
  const auto kinds = line_kinds();
  std::mt19937 rng(64);
  for (int round = 0; round < 2000; ++round) {
    const std::string text = random_text(rng, kinds, {"\n", "\n", "\r\n", "\r"});
    CAPTURE(text);
    std::string fast, each;
    try {
      fast = canonical_form(text, "t.vmx");
    } catch (const std::exception& e) {
      fast = std::string("error: ") + e.what();
    }
    try {
      each = detail::canonical_form_each_line(text, "t.vmx");
    } catch (const std::exception& e) {
      each = std::string("error: ") + e.what();
    }
    CHECK(fast == each);
  }
}
