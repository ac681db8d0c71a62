// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/edit.h"

#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/core/error.h"

using namespace vmxkit;
using namespace vmxkit::vmx;

namespace {

std::string set_text(const std::string& text, std::string_view key, std::string_view value) {
  const auto doc = Document::parse(text);
  return with_edits(doc, set(doc, key, value)).to_string();
}

std::string unset_text(const std::string& text, std::string_view key) {
  const auto doc = Document::parse(text);
  return with_edits(doc, unset(doc, key)).to_string();
}

}  // namespace

TEST_CASE("set replaces only the value, keeping key case, spacing, comment and ending",
          "[vmx][edit]") {
  CHECK(
      set_text("a = \"1\"\r\n  PCIPASSTHRU.use64bitMMIO\t=\t\"FALSE\"  # keep me\r\nz = \"2\"\r\n",
               "pciPassthru.use64bitMMIO", "TRUE") ==
      "a = \"1\"\r\n  PCIPASSTHRU.use64bitMMIO\t=\t\"TRUE\"  # keep me\r\nz = \"2\"\r\n");
}

TEST_CASE("set keeps an unquoted value unquoted when it can", "[vmx][edit]") {
  CHECK(set_text("pciPassthru.64bitMMIOSizeGB=128\n", "pciPassthru.64bitMMIOSizeGB", "256") ==
        "pciPassthru.64bitMMIOSizeGB=256\n");
  CHECK(set_text("name = old\n", "name", "two words") == "name = \"two words\"\n");
  CHECK(set_text("name = # c\n", "name", "v") == "name = \"v\" # c\n");
  CHECK(set_text("name =\n", "name", "v") == "name =\"v\"\n");
}

TEST_CASE("set encodes the new value with VMware escapes", "[vmx][edit]") {
  CHECK(set_text("annotation = \"x\"\n", "annotation", "say \"hi\"\nbye|") ==
        "annotation = \"say |22hi|22|0Abye|7C\"\n");
}

TEST_CASE("set of a new key goes after the last key sharing its prefix", "[vmx][edit]") {
  const std::string text =
      "memsize = \"4096\"\n"
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"00000:059:00.0\"\n"
      "pciPassthru.use64bitMMIO = \"TRUE\"\n"
      "firmware = \"efi\"\n";
  CHECK(set_text(text, "pciPassthru.allowP2P", "TRUE") ==
        "memsize = \"4096\"\n"
        "pciPassthru0.present = \"TRUE\"\n"
        "pciPassthru0.id = \"00000:059:00.0\"\n"
        "pciPassthru.use64bitMMIO = \"TRUE\"\n"
        "pciPassthru.allowP2P = \"TRUE\"\n"
        "firmware = \"efi\"\n");
  CHECK(set_text(text, "pciPassthru0.vendorId", "0x10de") ==
        "memsize = \"4096\"\n"
        "pciPassthru0.present = \"TRUE\"\n"
        "pciPassthru0.id = \"00000:059:00.0\"\n"
        "pciPassthru0.vendorId = \"0x10de\"\n"
        "pciPassthru.use64bitMMIO = \"TRUE\"\n"
        "firmware = \"efi\"\n");
}

TEST_CASE("set of an unrelated new key goes at the end with the file's line ending",
          "[vmx][edit]") {
  CHECK(set_text("a = \"1\"\r\nb = \"2\"\r\n", "zzz", "3") ==
        "a = \"1\"\r\nb = \"2\"\r\nzzz = \"3\"\r\n");
  CHECK(set_text("a = \"1\"\nb = \"2\"", "zzz", "3") == "a = \"1\"\nb = \"2\"\nzzz = \"3\"");
  CHECK(set_text("", "zzz", "3") == "zzz = \"3\"\n");
  CHECK(set_text("\xEF\xBB\xBF", "zzz", "3") == "\xEF\xBB\xBFzzz = \"3\"\n");
}

TEST_CASE("set removes later duplicates of the key in any case", "[vmx][edit]") {
  CHECK(set_text("msg.autoAnswer = \"FALSE\"\nx = \"1\"\nmsg.autoanswer = \"FALSE\"\n",
                 "MSG.AUTOANSWER", "TRUE") == "msg.autoAnswer = \"TRUE\"\nx = \"1\"\n");
}

TEST_CASE("set then unset of a new key gives back the original bytes", "[vmx][edit]") {
  for (const std::string& text :
       {std::string("a = \"1\"\nb = \"2\"\n"), std::string("a = \"1\"\r\nb = \"2\""),
        std::string(""), std::string("# only a comment"), std::string("\xEF\xBB\xBF"),
        std::string("pciPassthru0.id = \"x\"\rz = \"1\"\r")}) {
    INFO(text);
    const std::string added = set_text(text, "pciPassthru.allowP2P", "TRUE");
    CHECK(added != text);
    CHECK(unset_text(added, "pciPassthru.allowP2P") == text);
  }
}

TEST_CASE("unset removes every line of the key in any case", "[vmx][edit]") {
  CHECK(unset_text("a = \"1\"\nA = \"2\"\nb = \"3\"\na = \"4\"", "a") == "b = \"3\"");
  CHECK(unset_text("b = \"3\"\na = \"4\"", "a") == "b = \"3\"");
  CHECK(unset_text("a = \"1\"\na = \"4\"", "a") == "");
  CHECK(unset_text("b = \"3\"\n", "a") == "b = \"3\"\n");
}

TEST_CASE("edits leave malformed lines byte for byte", "[vmx][edit]") {
  const std::string text = "key \"value1\"\r\nx = \"1\"\r\n";
  CHECK(set_text(text, "x", "2") == "key \"value1\"\r\nx = \"2\"\r\n");
}

namespace {

// Documents with every line ending, BOMs, duplicates in any case, a last line without an
// ending, malformed lines, and the repository's own .vmx files.
std::vector<std::string> edit_inputs() {
  std::vector<std::string> out = {"",
                                  "\xEF\xBB\xBF",
                                  "k = \"1\"",
                                  "k = \"1\"\n",
                                  "a = \"1\"\r\nK = \"2\"\r\nk = \"3\"",
                                  "a = \"1\"\rk = x\rK = \"y\" # c\r",
                                  "\xEF\xBB\xBFk = \"1\"\nbad line\nK=2\n",
                                  "# only a comment\n\n",
                                  "k=\nk =\nk = # c\n"};
  for (const auto& path : vmxkit::test::repo_files(".vmx")) {
    out.push_back(vmxkit::test::read_bytes(path));
  }
  return out;
}

void check_byte_edits(const std::string& text) {
  INFO(text);
  const auto doc = Document::parse(text);
  for (const std::string_view key :
       {"k", "K", "pciPassthru.allowP2P", "pciPassthru0.id", "memsize", "displayName", "zzz"}) {
    INFO(key);
    CHECK(set_bytes(text, key, "new \"value\"|") ==
          apply_edits(doc.bytes(), set(doc, key, "new \"value\"|")));
    bool removed = false;
    CHECK(unset_bytes(text, key, &removed) == apply_edits(doc.bytes(), unset(doc, key)));
    CHECK(removed == !unset(doc, key).empty());
  }
}

}  // namespace

TEST_CASE("set_bytes and unset_bytes write what the document edits write", "[vmx][edit]") {
  for (const std::string& text : edit_inputs()) check_byte_edits(text);
}

TEST_CASE("set_bytes and unset_bytes write what the document edits write, on the corpus",
          "[vmx][edit][corpus]") {
  for (const auto& path : vmxkit::test::corpus_files("vmx", ".vmx")) {
    check_byte_edits(vmxkit::test::read_bytes(path));
  }
}

namespace {

// What set_entries() stands for: one set() after the other, the document parsed again each time.
std::string set_one_by_one(const Document& doc,
                           const std::vector<std::pair<std::string, std::string>>& entries) {
  Document out = doc;
  for (const auto& [key, value] : entries) out = with_edits(out, set(out, key, value));
  return std::string(out.bytes());
}

}  // namespace

TEST_CASE("set_entries gives the bytes of one set() after the other", "[vmx][edit]") {
  using Entries = std::vector<std::pair<std::string, std::string>>;
  const std::vector<Entries> fragments = {
      {},
      {{"firmware", "efi"}, {"memSize", "4096"}},
      // New keys beside keys the fragment itself adds (longer shared prefixes than the base's).
      {{"pciPassthru7.present", "TRUE"},
       {"pciPassthru7.id", "00000:059:00.0"},
       {"pciPassthru8.present", "TRUE"},
       {"pciPassthru7.deviceId", "0x2331"},
       {"pciPassthru.allowP2P", "TRUE"},
       {"sched.mem.pin", "TRUE"},
       {"zz.new", "1"},
       {"1digit.first", "x"},
       {"zz.new2", "2"},
       {"Sched.Mem.Min", "4096"}},
      // The same key twice (any case), a key new then set again, a value to quote.
      {{"a.b", "1"}, {"A.B", "2"}, {"guestinfo.x", "say \"hi\"|"}, {"guestinfo.x", "3"}},
  };
  std::vector<std::string> bases = {"", "a = \"1\"", "a = \"1\"\r\nb = \"2\"\r\n",
                                    "# only a comment\n", "x = 1\n\ny = 2"};
  for (const auto& path : test::repo_files(".vmx")) bases.push_back(test::read_bytes(path));
  int compared = 0;
  for (const std::string& bytes : bases) {
    const Document doc = Document::parse(bytes);
    for (const Entries& entries : fragments) {
      INFO(bytes.substr(0, 200) << "\n-- entries: " << entries.size());
      CHECK(set_entries(doc, entries) == set_one_by_one(doc, entries));
      ++compared;
    }
  }
  CHECK(compared > 100);
}

TEST_CASE("an accepted text with NUL bytes stays editable when an edit tips the UTF-16 sample",
          "[vmx][edit]") {
  // Found by fuzz_vmx_document: the text's first 512 bytes read as mixed, not UTF-16, until a
  // new line of ASCII pairs made the little-endian share small enough to call it UTF-16BE.
  const std::string text(
      "z\0e\0 \0=\0 \0\"(\xff\xfe\0\"(\xff\xfe"
      "e\0m\0s\0i\0z\0e\0 \0=\0 \0\"\0"
      "3\0e\0m\0s\0i\0z\0e\0 \0=\0 \0\"\0"
      "3\0\"\0\n\0",
      67);
  const auto doc = Document::parse(text);
  const auto added = with_edits(doc, set(doc, "vmxkit.fuzz.key", "v a|l\"ue"));
  CHECK(added.get("vmxkit.fuzz.key") == std::string("v a|l\"ue"));
  CHECK(with_edits(added, unset(added, "vmxkit.fuzz.key")).to_string() == text);
  // Parsing the edited bytes as a new input judges them afresh, as a read of the file would.
  CHECK_THROWS_AS(Document::parse(added.to_string()), Error);
}
