// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/yaml_json.h"

#include <catch2/catch.hpp>

#include "vmxkit/core/error.h"

using namespace vmxkit;
using vmxkit::vsphere::json::Value;
using Type = Value::Type;

namespace {

std::vector<Value> parse(const std::string& text, const SourceFile** kept = nullptr) {
  static std::vector<std::unique_ptr<SourceFile>> sources;
  sources.push_back(std::make_unique<SourceFile>("c.yaml", text));
  if (kept != nullptr) *kept = sources.back().get();
  return yaml::parse_documents(*sources.back());
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("plain YAML scalars are typed as kubectl's go-yaml v2 types them", "[yaml]") {
  for (const char* word : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y",
                           "false", "no", "off", "n", "N", "OFF"}) {
    INFO(word);
    CHECK(yaml::plain_scalar_type(word) == Type::boolean);
  }
  for (const char* word : {"~", "null", "Null", "NULL", ""}) {
    CHECK(yaml::plain_scalar_type(word) == Type::null);
  }
  for (const char* word : {"0", "512", "-3", "+7", "0x10de", "0o17", "017", "0b101", "1_000", "1.5",
                           ".5", "1e3", "-2.5E-3"}) {
    INFO(word);
    CHECK(yaml::plain_scalar_type(word) == Type::number);
  }
  for (const char* word : {"TRUE1", "efi", "128Gi", "0x", "08x", "1.2.3", "grid_h100-80c",
                           "pciPassthru.use64bitMMIO", "0000:3b:00.0", "True "}) {
    INFO(word);
    CHECK(yaml::plain_scalar_type(word) == Type::string);
  }
}

TEST_CASE("YAML documents read as JSON values with the numbers in decimal and spans into the file",
          "[yaml]") {
  const SourceFile* src = nullptr;
  const std::string text =
      "\xEF\xBB\xBF"
      "a: \"TRUE\"\r\nb: [0x15b3, 017, 1_024, yes, 'q''s', ~]\r\nc:\r\n  d: caf\xC3\xA9  # note\r\n"
      "e:\n---\n---\nf: 1\n";
  const std::vector<Value> docs = parse(text, &src);
  REQUIRE(docs.size() == 3);
  const Value& d = docs[0];
  REQUIRE(d.is(Type::object));
  CHECK(d.find("a")->is(Type::string));
  CHECK(d.find("a")->text == "TRUE");
  const Value& b = *d.find("b");
  REQUIRE(b.items.size() == 6);
  CHECK(b.items[0].text == "5555");
  CHECK(b.items[1].text == "15");
  CHECK(b.items[2].text == "1024");
  CHECK(b.items[3].is(Type::boolean));
  CHECK(b.items[3].boolean);
  CHECK(b.items[4].text == "q's");
  CHECK(b.items[5].is(Type::null));
  const Value& dd = *d.find("c")->find("d");
  CHECK(dd.text == "caf\xC3\xA9");
  // Byte offsets, past the BOM, with CRLF line ends and a two-byte character.
  CHECK(src->bytes().substr(dd.span.begin, dd.span.end - dd.span.begin) == "caf\xC3\xA9");
  CHECK(src->location(dd.span.begin).line == 4);
  CHECK(src->location(dd.span.begin).column == 6);
  const Value& a = *d.find("a");
  CHECK(src->bytes().substr(a.span.begin, a.span.end - a.span.begin) == "\"TRUE\"");
  CHECK(src->bytes().substr(b.items[4].span.begin, b.items[4].span.end - b.items[4].span.begin) ==
        "'q''s'");
  CHECK(d.find("e")->is(Type::null));
  CHECK(docs[1].is(Type::null));
  CHECK(docs[2].find("f")->text == "1");
}

TEST_CASE("YAML that kubectl would not send as JSON is an error with line and column", "[yaml]") {
  CHECK(error_of("a: [1\n") == "c.yaml:2:1: end of sequence flow not found");
  CHECK(error_of("a: 1\nb: 2\na: 3\n") ==
        "c.yaml:3:1: key \"a\" given twice in one map (first at line 1, column 1)");
  CHECK(error_of("base: &b {x: 1}\nc:\n  <<: *b\n") ==
        "c.yaml:3:3: merge keys (<<) are not supported: write the keys out");
  CHECK(error_of("a: .inf\n") == "c.yaml:1:4: .inf is a number JSON cannot hold");
  CHECK(error_of("a: !!int abc\n") == "c.yaml:1:4: \"abc\" is not a int");
  CHECK(error_of("a: !custom x\n") == "c.yaml:1:4: the tag \"!custom\" is not supported");
  CHECK(error_of("? [a]\n: 1\n") == "c.yaml:1:3: a map key must be a scalar");
  // A `,` outside a flow collection: yaml-cpp 0.7's parser would make empty documents forever.
  CHECK(error_of(",{") == "c.yaml:1:1: \",\" cannot start a document or a value here");
  CHECK(error_of("kind: x\n---\n\"x\" ,\n") ==
        "c.yaml:3:5: \",\" cannot start a document or a value here");
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "[";
  for (int i = 0; i < 70; ++i) deep += "]";
  CHECK(error_of(deep).find("values nest deeper than 64 levels") != std::string::npos);
  // A billion laughs: aliases that expand the document past a million values.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c) {
    const char p = static_cast<char>(c - 1);
    laughs += std::string(1, c) + ": &" + c + " [*" + p + ", *" + p + ", *" + p + ", *" + p +
              ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + "]\n";
  }
  CHECK(error_of(laughs).find("more than a million values") != std::string::npos);
}

TEST_CASE("JSON values written as YAML read back as the same values", "[yaml]") {
  Value v = Value::object();
  v.add("s", Value::string("TRUE"));
  v.add("num", Value::number("512"));
  v.add("n", Value::string("n"));
  v.add("t", Value::string("512"));
  v.add("b", Value::boolean_value(true));
  v.add("yes", Value::string("yes"));
  Value& list = v.add("l", Value::array());
  list.items.push_back(Value::string("caf\xC3\xA9: # x"));
  list.items.push_back(Value::object());
  list.items.back().add("k", Value::string(""));
  const std::string text = yaml::write(v);
  INFO(text);
  CHECK(text.find("s: \"TRUE\"\n") != std::string::npos);
  CHECK(text.find("num: 512\n") != std::string::npos);
  // `n` is YAML 1.1's false, as a key too.
  CHECK(text.find("\"n\": \"n\"\n") != std::string::npos);
  CHECK(text.find("t: \"512\"\n") != std::string::npos);
  CHECK(text.find("\"yes\": \"yes\"\n") != std::string::npos);
  const std::vector<Value> back = parse(text);
  REQUIRE(back.size() == 1);
  const Value& r = back[0];
  CHECK(r.find("s")->is(Type::string));
  CHECK(r.find("s")->text == "TRUE");
  CHECK(r.find("num")->is(Type::number));
  CHECK(r.find("n")->text == "n");
  CHECK(r.find("t")->is(Type::string));
  CHECK(r.find("b")->boolean);
  CHECK(r.find("yes")->text == "yes");
  CHECK(r.find("l")->items[0].text == "caf\xC3\xA9: # x");
  CHECK(r.find("l")->items[1].find("k")->is(Type::string));
}
