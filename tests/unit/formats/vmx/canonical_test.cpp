// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/canonical.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/error.h"

using namespace vmxkit;
using namespace vmxkit::vmx;

TEST_CASE("canonical form quotes values, re-encodes escapes and trims whitespace", "[vmx][fmt]") {
  const auto doc = Document::parse(
      "\xEF\xBB\xBF  # header  \n\tsata0.present = TRUE\nannotation=\"a|0ab|c\"   # note  \n\n"
      "empty =\n");
  CHECK(canonical_form(doc) ==
        "# header\nsata0.present = \"TRUE\"\nannotation = \"a|0Ab|7Cc\" # note\n\nempty = \"\"\n");
}

TEST_CASE("canonical form keeps the dominant line ending and ends every line", "[vmx][fmt]") {
  CHECK(canonical_form(Document::parse("a = \"1\"\r\nb = \"2\"\r\nc = \"3\"")) ==
        "a = \"1\"\r\nb = \"2\"\r\nc = \"3\"\r\n");
}

TEST_CASE("canonical form keeps a BOM when the first key begins with BOM bytes", "[vmx][fmt]") {
  // Found by fuzz_vmx_document: dropping the BOM made the second one read as a BOM, so the key
  // changed from "\xEF\xBB\xBF.encoding" to ".encoding" and the form was not a fixed point.
  for (const std::string input : {"\xEF\xBB\xBF\xEF\xBB\xBF.encoding = \"UTF-8\"\n",
                                  "\xEF\xBB\xBF  \xEF\xBB\xBF.encoding = \"UTF-8\"\n"}) {
    const auto doc = Document::parse(input);
    const std::string once = canonical_form(doc);
    CHECK(once == "\xEF\xBB\xBF\xEF\xBB\xBF.encoding = \"UTF-8\"\n");
    const auto again = Document::parse(once);
    CHECK(again.key(again.lines().front()) == doc.key(doc.lines().front()));
    CHECK(canonical_form(again) == once);
  }
}

TEST_CASE("canonical form refuses a malformed line with its position", "[vmx][fmt]") {
  const auto doc = Document::parse("a = \"1\"\nkey1 = \"value1\n", "vm.vmx");
  REQUIRE_THROWS_AS(canonical_form(doc), Error);
  try {
    canonical_form(doc);
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "vm.vmx:2:8: unterminated quoted value: expected a closing '\"' before the end of the "
          "line");
  }
}

TEST_CASE("canonical form is stable on every well-formed corpus file", "[vmx][fmt][corpus]") {
  int formatted = 0;
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    INFO(path.filename().string());
    const auto doc = Document::parse(test::read_bytes(path), path.string());
    if (!doc.problems().empty()) continue;
    const std::string once = canonical_form(doc);
    const std::string twice = canonical_form(Document::parse(once));
    CHECK(once == twice);
    // What VMware reads is unchanged: same keys, same decoded values, same order.
    const auto again = Document::parse(once);
    std::vector<std::pair<std::string, std::string>> before, after;
    for (const Line& l : doc.lines())
      if (l.is_entry()) before.emplace_back(doc.key(l), doc.value(l));
    for (const Line& l : again.lines())
      if (l.is_entry()) after.emplace_back(again.key(l), again.value(l));
    CHECK(before == after);
    ++formatted;
  }
  CHECK(formatted >= 25);
}

namespace {

void check_bytes_match_document(const std::string& text) {
  INFO(text);
  const auto doc = Document::parse(text, "vm.vmx");
  std::string from_doc;
  std::string from_doc_error;
  try {
    from_doc = canonical_form(doc);
  } catch (const Error& e) {
    from_doc_error = e.what();
  }
  if (from_doc_error.empty()) {
    CHECK(canonical_form(text, "vm.vmx") == from_doc);
  } else {
    REQUIRE_THROWS_AS(canonical_form(text, "vm.vmx"), Error);
    try {
      canonical_form(text, "vm.vmx");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) == from_doc_error);
    }
  }
}

// The fast path (runs of canonical lines copied as they are) against rebuilding every line.
void check_fast_matches_each_line(const std::string& bytes) {
  std::string fast, each;
  try {
    fast = canonical_form(bytes, "c.vmx");
  } catch (const Error& e) {
    fast = std::string("error: ") + e.what();
  }
  try {
    each = detail::canonical_form_each_line(bytes, "c.vmx");
  } catch (const Error& e) {
    each = std::string("error: ") + e.what();
  }
  CHECK(fast == each);
}

}  // namespace

TEST_CASE("canonical form of the bytes is that of the document, errors included", "[vmx][fmt]") {
  std::vector<std::string> inputs = {"",
                                     "\xEF\xBB\xBF",
                                     "a=1",
                                     "a = \"x|0a\"\r\nb=2\r\nc=3\n",
                                     "\xEF\xBB\xBF  \xEF\xBB\xBFk = \"1\"\n",
                                     "# c  \n\n  k=v # t \n",
                                     "a = \"1\"\nbad line\n",
                                     "\xEF\xBB\xBF"
                                     "bad"};
  for (const auto& path : test::repo_files(".vmx")) inputs.push_back(test::read_bytes(path));
  for (const std::string& text : inputs) check_bytes_match_document(text);
}

TEST_CASE("canonical form of the bytes is that of the document on every corpus file",
          "[vmx][fmt][corpus]") {
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    check_bytes_match_document(test::read_bytes(path));
  }
}

TEST_CASE("the error for a malformed line names its line and column", "[vmx][fmt]") {
  try {
    canonical_form(std::string_view("\xEF\xBB\xBF"
                                    "a = \"1\"\r\n\r\nkey value\n"),
                   "vm.vmx");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("vm.vmx:3:4:") != std::string::npos);
  }
}

namespace {
std::string joined(const CanonicalPieces& pieces) {
  std::string out;
  pieces.for_each([&](std::string_view piece) { out.append(piece); });
  return out;
}

// CanonicalPieces reading `input` through a ReadAt in chunks of `chunk` bytes, as fmt reads a
// mapped file (pread), joined; or the error it throws. Checks that the pieces that are runs of
// the input refer to `input` itself.
std::string chunked(const std::string& input, std::size_t chunk,
                    const std::string& path = "c.vmx") {
  std::size_t reads = 0;
  const CanonicalPieces::ReadAt read = [&](std::size_t offset, std::span<char> to) {
    REQUIRE(offset + to.size() <= input.size());
    std::copy_n(input.data() + offset, to.size(), to.data());
    ++reads;
  };
  try {
    const CanonicalPieces pieces(input, path, read, chunk);
    std::string out;
    pieces.for_each([&](std::string_view piece) {
      const bool in_input = piece.data() >= input.data() &&
                            piece.data() + piece.size() <= input.data() + input.size();
      CHECK((in_input || piece.size() <= 3 || piece.back() == '\n' || piece.back() == '\r'));
      out.append(piece);
    });
    CHECK((input.size() <= 3 || reads > 0));
    return out;
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

std::string canonical_or_error(const std::string& input) {
  try {
    return canonical_form(input, "c.vmx");
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}
}  // namespace

TEST_CASE("canonical pieces read in chunks give what reading the whole text gives", "[vmx][fmt]") {
  // Chunks end after a line break, never between the CR and LF of a CRLF; a line longer than a
  // chunk grows it; a malformed line is numbered and placed in the whole text whatever chunk it
  // is in. Lines around 64-byte borders, every ending, CR alone, NUL bytes, a BOM, no final
  // line break.
  const std::string k62(62, 'k');
  const std::vector<std::string> inputs = {
      "",
      "\n",
      "\r\n\r\n",
      "\r\r\r",
      "a = \"1\"",
      "a = \"1\"\nb = \"2\"\n",
      "a = \"1\"\r\nb=2\r\nc = \"3\"\r\n# note \r\n\r\n",
      "a = \"1\"\rb = 2\rc = \"3\"\r",
      "a = \"1\"\r\nb = \"2\"\nc = \"3\"\rd = \"4\"\r\ne = \"5\"",
      "\xEF\xBB\xBF"
      "a = \"1\"\nb = \"2\"\n",
      "\xEF\xBB\xBF\xEF\xBB\xBFk = \"1\"\n",
      "a = \"x\0y\"\nb = \"\0\"\n# \0\n",
      k62 + " = \"v\"\n" + k62 + "=v\n" + k62 + " = \"" + k62 + "\"\r\n",
      "a = \"1\"\nb = \"2\"\nthis is bad\nc = \"3\"\n",
      "a = \"1\"\r\n\r\n" + k62 + " = \"unterminated\r\nd = 4\r\n",
      "a = \"1\"\rb = \"2\"\r\r\r  key with space = 1\r",
      std::string(300, 'x') + " = \"long\"\n" + "y = \"" + std::string(200, '|') + "\"\n",
  };
  for (const std::string& input : inputs) {
    const std::string expected = canonical_or_error(input);
    for (const std::size_t chunk :
         {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{63},
          std::size_t{64}, std::size_t{65}, std::size_t{4096}}) {
      INFO("input " << input.size() << " bytes, chunks of " << chunk);
      CHECK(chunked(input, chunk) == expected);
    }
  }
  // The errors name the line and column in the whole text.
  CHECK(chunked("a = \"1\"\nb = \"2\"\nthis is bad\n", 5) ==
        "error: c.vmx:3:5: expected '=' after key 'this'; a key cannot contain whitespace");
  CHECK(chunked("a = \"1\"\r\n\r\nk = \"open\r\n", 4) ==
        "error: c.vmx:3:5: unterminated quoted value: expected a closing '\"' before the end of "
        "the line");
}

TEST_CASE("canonical pieces keep the BOM rule and refer to the input's canonical runs",
          "[vmx][fmt]") {
  // A key that starts with the bytes of a BOM after the BOM: one BOM is kept in front.
  const std::string tricky = "\xEF\xBB\xBF\xEF\xBB\xBFk = \"1\"\n";
  CHECK(joined(CanonicalPieces(tricky, "t.vmx")) == canonical_form(tricky, "t.vmx"));
  CHECK(canonical_form(tricky, "t.vmx") == tricky);
  // A canonical document is one piece: the input itself, not a copy.
  const std::string canonical = "a = \"1\"\nb = \"2\"\n";
  const CanonicalPieces same(canonical, "t.vmx");
  std::vector<std::string_view> parts;
  same.for_each([&](std::string_view piece) { parts.push_back(piece); });
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].data() == canonical.data());
  CHECK(same.equals(canonical));
  CHECK_FALSE(same.equals("a = \"1\"\n"));
  // A rebuilt line between two runs: three pieces, the runs still in the input.
  const std::string mixed = "a = \"1\"\nb=2\nc = \"3\"\n";
  const CanonicalPieces three(mixed, "t.vmx");
  parts.clear();
  three.for_each([&](std::string_view piece) { parts.push_back(piece); });
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].data() == mixed.data());
  CHECK(parts[1] == "b = \"2\"\n");
  CHECK(parts[2].data() == mixed.data() + mixed.find("c ="));
  CHECK_FALSE(three.equals(mixed));
  // for_each stops when the callback returns false.
  int calls = 0;
  three.for_each([&](std::string_view) { return ++calls < 2; });
  CHECK(calls == 2);
}

TEST_CASE("a large input is made canonical in two halves: the same text, the same errors",
          "[vmx][fmt]") {
  // Past CanonicalPieces' threshold (1 MiB) the halves are built at once on two threads. Every
  // line starts with the bytes of a BOM (a key may), so the second half does too: it must not
  // be read as one. Some lines need rebuilding, most are runs.
  const std::string b = "\xEF\xBB\xBF";
  const std::vector<std::string> lines = {
      b + "k = \"1\"",     b + "key.with.a.long.name = \"value\"",
      "# comment",         b + "a=\"rebuilt\"",
      b + "b = \"x|22y\"", b + "c = \"" + std::string(90, 'v') + "\""};
  std::size_t compared = 0;
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    for (const bool bom : {false, true}) {
      std::string text = bom ? "\xEF\xBB\xBF" : "";
      for (std::size_t i = 0; text.size() < (std::size_t{5} << 19); ++i) {
        text += lines[i % lines.size()] + (i % 7 == 3 ? "\n" : eol);
      }
      const std::size_t line_start = text.rfind(eol, text.size() / 10) + eol.size();
      const std::size_t late_start = text.rfind(eol, text.size() * 9 / 10) + eol.size();
      const std::string bad = "bad line" + eol;
      const std::string early = text.substr(0, line_start) + bad + text.substr(line_start);
      const std::string late = text.substr(0, late_start) + bad + text.substr(late_start);
      const std::string twice =
          early.substr(0, late_start + bad.size()) + bad + early.substr(late_start + bad.size());
      for (const std::string& input : {text, early, late, twice}) {
        std::string each, each_error, pieces_text, pieces_error;
        try {
          each = detail::canonical_form_each_line(input, "big.vmx");
        } catch (const Error& e) {
          each_error = e.what();
        }
        try {
          pieces_text = joined(CanonicalPieces(input, "big.vmx"));
        } catch (const Error& e) {
          pieces_error = e.what();
        }
        CHECK(pieces_text == each);
        CHECK(pieces_error == each_error);  // the first bad line, numbered in the whole text
        // Read in chunks (as fmt reads a mapped file): the same text, the same first error.
        const std::string read = chunked(input, 1000, "big.vmx");
        CHECK(read == (each_error.empty() ? each : "error: " + each_error));
        ++compared;
      }
      CHECK_FALSE(joined(CanonicalPieces(text, "big.vmx")).empty());
    }
  }
  CHECK(compared == 3 * 2 * 4);
  // A large canonical text is one piece, the input itself, whatever its line lengths: the runs
  // of both halves join.
  std::string canonical;
  for (std::size_t i = 0; canonical.size() < (std::size_t{3} << 20); ++i) {
    canonical += "key" + std::to_string(i) + " = \"" + std::string(i % 150, 'v') + "\"\n";
  }
  std::vector<std::string_view> parts;
  CanonicalPieces(canonical, "c.vmx").for_each([&](std::string_view p) { parts.push_back(p); });
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].data() == canonical.data());
  CHECK(parts[0].size() == canonical.size());
}

TEST_CASE("canonical form copies canonical lines in runs exactly as rebuilding each line would",
          "[vmx][fmt]") {
  // Lines on each side of every test skip_canonical() makes, in every line ending, with and
  // without a BOM and a final line break, and a long key and value (the 16-byte scans).
  const std::string long_key(40, 'k');
  const std::string long_value(45, 'v');
  const std::vector<std::string> lines = {
      "a = \"1\"",
      long_key + " = \"" + long_value + "\"",
      "# comment",
      "# comment \t",
      "",
      "  ",
      "a=\"1\"",
      "a = 1",
      "a = \"1\" # note",
      "a = \"1\" ",
      "a = \"x|22y\"",
      "a = \"" + long_value + "|7f\"",
      "a = \"tab\there\"",
      "a = \"\x7F\"",
      "a = \"\x01\"",
      "\ta = \"1\"",
      "#",
      "a\xC3\xA9 = \"\xC3\xA9\"",
      "a = \"\"",
  };
  // Malformed lines, inserted in the middle: both paths refuse them at the same line and column.
  const std::vector<std::string> bad = {"a = \"" + long_value, " = \"1\"", "a b = \"1\""};
  std::size_t compared = 0;
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    for (std::size_t first = 0; first < lines.size(); ++first) {
      for (const std::string other_eol : {"\n", "\r\n"}) {
        for (const bool bom : {false, true}) {
          std::string text = bom ? "\xEF\xBB\xBF" : "";
          for (std::size_t k = 0; k < lines.size(); ++k) {
            const std::string& line = lines[(first + k) % lines.size()];
            text += line + (k % 5 == 4 ? other_eol : eol);
          }
          const std::string with_bad = text + bad[first % bad.size()] + eol + text;
          for (const std::string& input : {text, text.substr(0, text.size() - 1), with_bad}) {
            std::string fast, each, fast_error, each_error;
            try {
              fast = canonical_form(input, "t.vmx");
            } catch (const Error& e) {
              fast_error = e.what();
            }
            try {
              each = detail::canonical_form_each_line(input, "t.vmx");
            } catch (const Error& e) {
              each_error = e.what();
            }
            CHECK(fast == each);
            CHECK(fast_error == each_error);
            // The pieces fmt writes to stdout are the same text, and refuse the same lines.
            std::string pieces_error;
            try {
              const CanonicalPieces pieces(input, "t.vmx");
              CHECK(joined(pieces) == fast);
              CHECK(pieces.size() == fast.size());
              CHECK(pieces.equals(fast));
              CHECK(pieces.equals(input) == (fast == input));
            } catch (const Error& e) {
              pieces_error = e.what();
            }
            CHECK(pieces_error == fast_error);
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared == 3 * lines.size() * 2 * 2 * 3);
}

TEST_CASE("canonical form of every repository .vmx matches rebuilding each line", "[vmx][fmt]") {
  const auto files = vmxkit::test::repo_files(".vmx");
  for (const auto& path : files) check_fast_matches_each_line(vmxkit::test::read_bytes(path));
  CHECK(files.size() > 100);
}

TEST_CASE("canonical form of every corpus file matches rebuilding each line",
          "[vmx][fmt][corpus]") {
  const auto files = vmxkit::test::corpus_files("vmx", ".vmx");
  for (const auto& path : files) check_fast_matches_each_line(vmxkit::test::read_bytes(path));
  CHECK(files.size() > 10);
}
