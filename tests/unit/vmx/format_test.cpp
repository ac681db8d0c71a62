// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vmx/format.h"

#include <catch2/catch.hpp>

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
  for (const auto& path : test::corpus_files("vmx", ".vmx"))
    inputs.push_back(test::read_bytes(path));
  for (const std::string& text : inputs) {
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
