// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/document.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <iterator>

#include "support/support.h"

using namespace vmxkit;
using namespace vmxkit::vmx;

namespace {

const Line& only_line(const Document& doc) {
  REQUIRE(doc.lines().size() == 1);
  return doc.lines()[0];
}

}  // namespace

TEST_CASE("parser reads a quoted entry", "[vmx][parser]") {
  const auto doc = Document::parse("displayName = \"GPU VM\"\n");
  const Line& l = only_line(doc);
  CHECK(l.kind == LineKind::entry);
  CHECK(l.quoted);
  CHECK(doc.key(l) == "displayName");
  CHECK(doc.raw_value(l) == "GPU VM");
  CHECK(l.ending == LineEnding::lf);
  CHECK(doc.comment(l).empty());
}

TEST_CASE("parser reads unquoted and empty values", "[vmx][parser]") {
  const auto doc = Document::parse("a = TRUE\nb =\nc = # note\nd=1024");
  REQUIRE(doc.lines().size() == 4);
  CHECK(doc.raw_value(doc.lines()[0]) == "TRUE");
  CHECK_FALSE(doc.lines()[0].quoted);
  CHECK(doc.lines()[1].kind == LineKind::entry);
  CHECK(doc.raw_value(doc.lines()[1]).empty());
  CHECK(doc.raw_value(doc.lines()[2]).empty());
  CHECK(doc.comment(doc.lines()[2]) == "# note");
  CHECK(doc.raw_value(doc.lines()[3]) == "1024");
  CHECK(doc.lines()[3].ending == LineEnding::none);
}

TEST_CASE("parser keeps comments, blank lines, leading whitespace and shebangs", "[vmx][parser]") {
  const std::string text =
      "#!/usr/bin/vmware\n\n  \t\n   # indented comment\n\tkey\t=\t\"v\"\t# c\n";
  const auto doc = Document::parse(text);
  REQUIRE(doc.lines().size() == 5);
  CHECK(doc.lines()[0].kind == LineKind::comment);
  CHECK(doc.lines()[1].kind == LineKind::blank);
  CHECK(doc.lines()[2].kind == LineKind::blank);
  CHECK(doc.lines()[3].kind == LineKind::comment);
  CHECK(doc.lines()[4].kind == LineKind::entry);
  CHECK(doc.key(doc.lines()[4]) == "key");
  CHECK(doc.comment(doc.lines()[4]) == "# c");
  CHECK(doc.to_string() == text);
}

TEST_CASE("parser keeps '#' inside a quoted value", "[vmx][parser]") {
  const auto doc = Document::parse("serial0.fileName = \"telnet://host:1#x\" # real comment\n");
  const Line& l = only_line(doc);
  CHECK(doc.raw_value(l) == "telnet://host:1#x");
  CHECK(doc.comment(l) == "# real comment");
}

TEST_CASE("parser keeps CRLF, LF and lone CR endings per line", "[vmx][parser]") {
  const std::string text = "a = \"1\"\r\nb = \"2\"\nc = \"3\"\rd = \"4\"";
  const auto doc = Document::parse(text);
  REQUIRE(doc.lines().size() == 4);
  CHECK(doc.lines()[0].ending == LineEnding::crlf);
  CHECK(doc.lines()[1].ending == LineEnding::lf);
  CHECK(doc.lines()[2].ending == LineEnding::cr);
  CHECK(doc.lines()[3].ending == LineEnding::none);
  CHECK(doc.raw_value(doc.lines()[0]) == "1");
  CHECK(doc.to_string() == text);
}

TEST_CASE("parser skips a UTF-8 BOM and writes it back", "[vmx][parser]") {
  const std::string text = "\xEF\xBB\xBF.encoding = \"UTF-8\"\n";
  const auto doc = Document::parse(text);
  CHECK(doc.has_bom());
  CHECK(doc.key(only_line(doc)) == ".encoding");
  CHECK(doc.encoding() == "UTF-8");
  CHECK(doc.to_string() == text);
  CHECK(doc.location(3).line == 1);
}

TEST_CASE("parser keeps any byte in values and never transcodes", "[vmx][parser]") {
  const std::string text = ".encoding = \"windows-949-2000\"\ndisplayName = \"\xc7\xd1\xb1\xdb\"\n";
  const auto doc = Document::parse(text);
  CHECK(doc.encoding() == "windows-949-2000");
  CHECK(*doc.get("displayName") == "\xc7\xd1\xb1\xdb");
  CHECK(doc.to_string() == text);
}

TEST_CASE("parser reports malformed lines with their column and keeps them", "[vmx][parser]") {
  struct Case {
    std::string text;
    Problem problem;
    std::uint32_t column;
  };
  const Case cases[] = {
      {"key \"value1\"", Problem::space_in_key, 4},
      {"keyvalue", Problem::missing_equals, 9},
      {"key 1 = \"value1\"", Problem::space_in_key, 4},
      {"key1 = \"value1", Problem::unterminated_quote, 8},
      {"= \"x\"", Problem::missing_key, 1},
      {"key = two words", Problem::text_after_value, 11},
      {"key = \"a\" b", Problem::text_after_value, 11},
      {"key = a\"b\"", Problem::quote_in_value, 8},
      {"key6 = \"value\\\"hello\"", Problem::text_after_value, 16},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const auto doc = Document::parse("ok = \"1\"\n" + c.text + "\nok2 = \"2\"\n");
    REQUIRE(doc.lines().size() == 3);
    const Line& l = doc.lines()[1];
    CHECK(l.kind == LineKind::malformed);
    CHECK(l.problem == c.problem);
    const auto problems = doc.problems();
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].kind == c.problem);
    CHECK(problems[0].message == describe(c.problem, doc.key(l)));
    const Location at = doc.location(problems[0].begin);
    CHECK(at.line == 2);
    CHECK(at.column == c.column);
    CHECK(doc.lines()[2].kind == LineKind::entry);
    CHECK(doc.to_string() == "ok = \"1\"\n" + c.text + "\nok2 = \"2\"\n");
  }
}

TEST_CASE("a malformed last line without a newline is reported inside the file", "[vmx][parser]") {
  // Found by fuzz_lint: "expected '='" at the very end gave a span one byte past the file.
  for (const std::string text : {"a = \"1\"\n}", "keyvalue", "key1 = \"value1"}) {
    INFO(text);
    const auto problems = Document::parse(text).problems();
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].begin <= problems[0].end);
    CHECK(problems[0].end <= text.size());
  }
}

TEST_CASE("lookup ignores ASCII case and finds every duplicate", "[vmx][parser]") {
  const auto doc = Document::parse(
      "msg.autoAnswer = \"TRUE\"\nother = \"x\"\nmsg.autoanswer = \"FALSE\"\nMSG.AUTOANSWER = "
      "\"1\"\n"
      "other2 = \"y\"\nother2 = \"z\"\n");
  CHECK(*doc.get("MSG.AutoAnswer") == "TRUE");
  CHECK(doc.find_all("msg.autoanswer").size() == 3);
  const auto dups = doc.duplicate_keys();
  REQUIRE(dups.size() == 2);
  CHECK(dups[0].size() == 3);
  CHECK(doc.key(*dups[0][0]) == "msg.autoAnswer");
  CHECK(doc.key(*dups[0][2]) == "MSG.AUTOANSWER");
  CHECK(dups[1].size() == 2);
  CHECK_FALSE(doc.get("missing").has_value());
}

TEST_CASE("value decodes escapes, raw_value keeps them", "[vmx][parser]") {
  const auto doc = Document::parse("annotation = \"line1|0Aline2 |22q|22 a|b\"\n");
  const Line& l = only_line(doc);
  CHECK(doc.raw_value(l) == "line1|0Aline2 |22q|22 a|b");
  CHECK(doc.value(l) == "line1\nline2 \"q\" a|b");
}

TEST_CASE("location maps offsets to 1-based line and column", "[vmx][parser]") {
  const auto doc = Document::parse("a = \"1\"\r\n\tb = \"2\"\n");
  CHECK(doc.location(0).line == 1);
  CHECK(doc.location(10).line == 2);
  CHECK(doc.location(10).column == 2);
}

TEST_CASE("dominant line ending is what most lines use", "[vmx][parser]") {
  CHECK(Document::parse("a=1\r\nb=2\r\nc=3\n").dominant_line_ending() == LineEnding::crlf);
  CHECK(Document::parse("a=1").dominant_line_ending() == LineEnding::lf);
  CHECK(Document::parse("").dominant_line_ending() == LineEnding::lf);
}

TEST_CASE("an empty input has no lines and writes back empty", "[vmx][parser]") {
  const auto doc = Document::parse("");
  CHECK(doc.lines().empty());
  CHECK(doc.to_string().empty());
}

namespace {

// Inputs that exercise the line splitter and scanner: every line ending, at every offset of a
// 16-byte chunk, BOMs, malformed lines, long keys and values, and the corpus.
std::vector<std::string> tricky_inputs() {
  std::vector<std::string> out = {"",
                                  "\xEF\xBB\xBF",
                                  "\xEF\xBB\xBF\n",
                                  "\r",
                                  "\n",
                                  "\r\n",
                                  "\r\r\n\n",
                                  "a=1",
                                  "a=1\r",
                                  "\xEF\xBB\xBF"
                                  "a = \"x\"\r\n"};
  const char* const pieces[] = {"key = \"value\"",
                                "  spaced\t=\t\"v|22\"  # c",
                                "# comment",
                                "",
                                "   ",
                                "k=v",
                                "bad line",
                                "k = \"open",
                                "= x",
                                "pciPassthru0.id = \"0000:3b:00.0\"",
                                "k = a\"b",
                                "k = \"a\" b"};
  const char* const endings[] = {"\n", "\r\n", "\r"};
  std::uint32_t seed = 12345;
  const auto next = [&seed] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFF; };
  for (int n = 0; n < 200; ++n) {
    std::string text = next() % 7 == 0 ? "\xEF\xBB\xBF" : "";
    const int lines = static_cast<int>(next() % 12);
    for (int i = 0; i < lines; ++i) {
      text += pieces[next() % std::size(pieces)];
      text += std::string(next() % 20, 'x');  // moves the line breaks across chunk boundaries
      if (i + 1 < lines || next() % 2 == 0) text += endings[next() % std::size(endings)];
    }
    out.push_back(std::move(text));
  }
  for (const auto& path : test::repo_files(".vmx")) out.push_back(test::read_bytes(path));
  return out;
}

void check_scanner(const std::string& text) {
  INFO(text);
  const auto doc = Document::parse(text);
  LineScanner scanner(text);
  CHECK(scanner.has_bom() == doc.has_bom());
  Line line;
  std::size_t i = 0;
  while (scanner.next(line)) {
    REQUIRE(i < doc.lines().size());
    const Line& kept = doc.lines()[i];
    CHECK(std::memcmp(&line, &kept, sizeof(Line)) == 0);
    CHECK(scanner.number() == i + 1);
    ++i;
  }
  CHECK(i == doc.lines().size());
  CHECK(has_malformed_line(text) == !doc.problems().empty());
}

void check_line_counts(const std::string& text) {
  INFO(text);
  const auto doc = Document::parse(text);
  const LineCounts counts = count_lines(text);
  CHECK(counts.lines() == doc.lines().size());
  std::size_t lf = 0, crlf = 0, cr = 0;
  for (const Line& l : doc.lines()) {
    lf += l.ending == LineEnding::lf;
    crlf += l.ending == LineEnding::crlf;
    cr += l.ending == LineEnding::cr;
  }
  CHECK(counts.lf == lf);
  CHECK(counts.crlf == crlf);
  CHECK(counts.cr == cr);
  CHECK(counts.dominant() == doc.dominant_line_ending());
}

void check_line_index(const std::string& text) {
  INFO(text);
  const auto doc = Document::parse(text);
  const LineIndex expected(text);
  const LineIndex got = doc.line_index();
  REQUIRE(got.line_count() == expected.line_count());
  for (std::size_t offset = 0; offset <= text.size(); ++offset) {
    CHECK(got.location(offset).line == expected.location(offset).line);
    CHECK(got.location(offset).column == expected.location(offset).column);
  }
}

}  // namespace

TEST_CASE("a Line is a 32-byte record", "[vmx][parser][perf]") {
  // One per line of the input: at 36 bytes (the old layout) a line record outweighed the
  // ~32-byte lines of a real .vmx file.
  CHECK(sizeof(Line) == 32);
}

TEST_CASE("the line scanner yields exactly the lines the document keeps", "[vmx][parser]") {
  for (const std::string& text : tricky_inputs()) check_scanner(text);
}

TEST_CASE("count_lines counts the lines and their endings as the parser splits them",
          "[vmx][parser]") {
  for (const std::string& text : tricky_inputs()) check_line_counts(text);
}

TEST_CASE("a document's line index is the line index of its bytes", "[vmx][parser]") {
  for (const std::string& text : tricky_inputs()) check_line_index(text);
}

TEST_CASE("the scanner, line counts and line index agree with the parser on every corpus file",
          "[vmx][parser][corpus]") {
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    const std::string text = test::read_bytes(path);
    check_scanner(text);
    check_line_counts(text);
    check_line_index(text);
  }
}

TEST_CASE("take_bytes hands over the bytes without a copy", "[vmx][parser]") {
  std::string text(1000, 'a');
  text += " = \"1\"\n";
  auto doc = Document::parse(text);
  const char* data = doc.bytes().data();
  const std::string taken = std::move(doc).take_bytes();
  CHECK(taken == text);
  CHECK(taken.data() == data);
}

TEST_CASE("duplicate groups come in the order their keys first repeat", "[vmx][parser]") {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "key" + std::to_string(i) + " = \"a\"\n";
  for (int i = 2999; i >= 0; --i) text += "KEY" + std::to_string(i) + " = \"b\"\n";
  const auto doc = Document::parse(text);
  const auto groups = doc.duplicate_keys();
  REQUIRE(groups.size() == 3000);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    REQUIRE(groups[g].size() == 2);
    CHECK(doc.key(*groups[g][0]) == "key" + std::to_string(3000 - 1 - g));
    CHECK(doc.key(*groups[g][1]) == "KEY" + std::to_string(3000 - 1 - g));
  }
}

TEST_CASE("a malformed line's message quotes at most kMaxQuotedKey bytes of its key",
          "[vmx][parser]") {
  const std::string key(10'000'000, 'k');
  const auto problems = Document::parse(key + " value\n").problems();
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message.size() < kMaxQuotedKey + 100);
  CHECK(problems[0].message.find(std::string(kMaxQuotedKey, 'k') + "...'") != std::string::npos);
  // Never half a UTF-8 character: "é" is two bytes, cut after an odd number of them.
  const std::string accents = std::string(kMaxQuotedKey - 1, 'a') + "\xC3\xA9\xC3\xA9";
  CHECK(shorten(accents) == std::string(kMaxQuotedKey - 1, 'a') + "...");
  CHECK(shorten("short") == "short");
}
