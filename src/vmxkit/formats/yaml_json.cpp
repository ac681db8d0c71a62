// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/yaml_json.h"

#include <fmt/format.h>
// GCC 12 reports -Wdangling-pointer inside yaml-cpp 0.7's node/impl.h once its code is inlined
// here (a false positive on the header's own temporaries); the header is not ours to change.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#pragma GCC diagnostic pop
#else
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#endif

#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::yaml {
namespace {

// 128 bits for exact arithmetic on 64-bit values (a GCC and Clang extension).
__extension__ using Uint128 = unsigned __int128;

using vsphere::json::Member;
using vsphere::json::Value;
using Type = Value::Type;

constexpr std::size_t kMaxBytes = 16u << 20;  // as the JSON reader
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxValues = 1'000'000;
constexpr std::string_view kCoreTag = "tag:yaml.org,2002:";

// go-yaml v2's resolve table (resolve.go): the words a plain scalar is looked up by.
constexpr std::array<std::string_view, 11> kTrue = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                                    "True", "TRUE", "on",  "On",  "ON"};
constexpr std::array<std::string_view, 11> kFalse = {"n",     "N",     "no",  "No",  "NO", "false",
                                                     "False", "FALSE", "off", "Off", "OFF"};
constexpr std::array<std::string_view, 5> kNull = {"", "~", "null", "Null", "NULL"};
constexpr std::array<std::string_view, 12> kSpecialFloat = {".nan",  ".NaN",  ".NAN",  ".inf",
                                                            ".Inf",  ".INF",  "+.inf", "+.Inf",
                                                            "+.INF", "-.inf", "-.Inf", "-.INF"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& words, std::string_view text) {
  for (const std::string_view w : words) {
    if (!w.empty() && w == text) return true;
  }
  return false;
}

// strconv.ParseInt(s, 0, 64), then ParseUint: an optional sign, then `0x`, `0o`, `0b` or a
// leading `0` (octal) or decimal digits. The value in decimal, or nullopt.
std::optional<std::string> go_integer(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  unsigned base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
    } else if (p == 'b' || p == 'B') {
      base = 2;
    } else if (p == 'o' || p == 'O') {
      base = 8;
    } else {
      base = 8;  // a leading zero: octal (YAML 1.1, Go's base 0)
      s.remove_prefix(1);
    }
    if (base != 8 || p == 'o' || p == 'O') s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  Uint128 v = 0;
  for (const char c : s) {
    const unsigned d = c >= '0' && c <= '9'   ? static_cast<unsigned>(c - '0')
                       : c >= 'a' && c <= 'f' ? static_cast<unsigned>(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? static_cast<unsigned>(c - 'A' + 10)
                                              : 99;
    if (d >= base) return std::nullopt;
    v = v * base + d;
    if (v > UINT64_MAX) return std::nullopt;
  }
  if (negative && v > static_cast<Uint128>(INT64_MAX) + 1) return std::nullopt;
  if (negative && v == 0) return std::string("0");
  return (negative ? "-" : "") + fmt::format("{}", static_cast<std::uint64_t>(v));
}

// go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool yaml_style_float(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

std::string json_float(std::string_view s) {
  return fmt::format("{}", std::strtod(std::string(s).c_str(), nullptr));
}

// A plain scalar as go-yaml v2 resolves it; `number` gets the JSON text of a number.
Type resolve_plain(std::string_view in, std::string* number) {
  if (one_of(kNull, in) || in.empty()) return Type::null;
  if (one_of(kTrue, in) || one_of(kFalse, in)) return Type::boolean;
  const char first = in[0];
  if (first == '.' && in.size() > 1 && in[1] >= '0' && in[1] <= '9' && yaml_style_float(in)) {
    if (number != nullptr) *number = json_float(in);
    return Type::number;
  }
  if (!((first >= '0' && first <= '9') || first == '+' || first == '-')) return Type::string;
  std::string plain;
  for (const char c : in) {
    if (c != '_') plain.push_back(c);
  }
  if (auto v = go_integer(plain)) {
    if (number != nullptr) *number = std::move(*v);
    return Type::number;
  }
  if (yaml_style_float(plain)) {
    if (number != nullptr) *number = json_float(plain);
    return Type::number;
  }
  return Type::string;
}

// Where a scalar that starts at `begin` ends in the source: past a quoted scalar's closing
// quote, or at the end of a plain scalar's first line (before a comment, `: `, `,`, `]`, `}`).
std::size_t scalar_end(std::string_view b, std::size_t begin) {
  if (begin >= b.size()) return b.size();
  std::size_t i = begin;
  if (b[i] == '"' || b[i] == '\'') {
    const char q = b[i++];
    while (i < b.size()) {
      if (q == '"' && b[i] == '\\') {
        i += 2;
      } else if (b[i] == q) {
        if (q == '\'' && i + 1 < b.size() && b[i + 1] == '\'') {
          i += 2;
        } else {
          return i + 1;
        }
      } else {
        ++i;
      }
    }
    return b.size();
  }
  if (b[i] == '|' || b[i] == '>') return i + 1;
  while (i < b.size() && b[i] != '\n' && b[i] != '\r' && b[i] != ',' && b[i] != ']' &&
         b[i] != '}') {
    if ((b[i] == ' ' || b[i] == '\t') && i + 1 < b.size() && b[i + 1] == '#') break;
    if (b[i] == ':' && (i + 1 == b.size() || b[i + 1] == ' ' || b[i + 1] == '\n' ||
                        b[i + 1] == '\r' || b[i + 1] == '\t')) {
      break;
    }
    ++i;
  }
  while (i > begin && (b[i - 1] == ' ' || b[i - 1] == '\t')) --i;
  return i;
}

// A value's count of values, itself included: what an alias to it adds to the document.
std::size_t value_count(const Value& v) {
  std::size_t n = 1;
  for (const Value& item : v.items) n += value_count(item);
  for (const Member& m : v.members) n += value_count(m.value);
  return n;
}

// Builds JSON values from yaml-cpp's parse events, with each value's span in the file. (The
// node API's YAML::LoadAll is not used: for a `,` outside any flow collection, yaml-cpp 0.7's
// parser makes empty documents without end, without consuming the token.)
class Builder : public YAML::EventHandler {
 public:
  explicit Builder(const SourceFile& source)
      : source_(source), bom_(source.bytes().substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0) {}

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    const Location l = source_.location(std::min(offset, source_.bytes().size()));
    throw Error(source_.path(), l.line, l.column, message);
  }

  std::size_t offset(const YAML::Mark& m) const {
    return m.is_null() || m.pos < 0 ? 0 : static_cast<std::size_t>(m.pos) + bom_;
  }

  std::vector<Value>& documents() { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    const std::size_t at = offset(mark);
    if (started_ && at == last_start_) {
      fail_at(at, fmt::format("{} cannot start a document or a value here",
                              vsphere::quote_for_message(source_.bytes().substr(at, 1))));
    }
    started_ = true;
    last_start_ = at;
  }
  void OnDocumentEnd() override {
    if (!root_) root_ = Value{};
    documents_.push_back(std::move(*root_));
    root_.reset();
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Value v;
    v.span.begin = v.span.end = offset(mark);
    const std::string_view at = source_.bytes().substr(v.span.begin, 4);
    if (at.empty() || (at[0] != '~' && at != "null" && at != "Null" && at != "NULL")) {
      // An empty value (`key:` and nothing): placed just after its key.
      if (!stack_.empty() && stack_.back().is_map && !stack_.back().expect_key) {
        v.span.begin = v.span.end = stack_.back().key.span.end;
      }
    } else {
      v.span.end = scalar_end(source_.bytes(), v.span.begin);
    }
    complete(std::move(v), anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    const std::size_t at = offset(mark);
    if (it == anchors_.end()) fail_at(at, "an alias to a node that contains it");
    count(at, it->second.second);
    Value v = it->second.first;
    v.span = {at, scalar_end(source_.bytes(), at)};
    complete(std::move(v), YAML::NullAnchor);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Value v;
    v.span.begin = offset(mark);
    if (tag == "?" && value == "<<" && !stack_.empty() && stack_.back().is_map &&
        stack_.back().expect_key) {
      fail_at(v.span.begin, "merge keys (<<) are not supported: write the keys out");
    }
    scalar(tag, value, v);
    complete(std::move(v), anchor);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, tag, anchor, "seq", Type::array);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, tag, anchor, "map", Type::object);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    Value value;
    YAML::anchor_t anchor = YAML::NullAnchor;
    bool is_map = false;
    bool expect_key = true;
    Value key;
    std::unordered_map<std::string, std::size_t> seen;  // key -> where it was first given
  };

  void count(std::size_t at, std::size_t n) {
    count_ += n;
    if (count_ > kMaxValues) {
      fail_at(at, "the document expands to more than a million values (aliases)");
    }
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            std::string_view kind, Type type) {
    const std::size_t at = offset(mark);
    if (stack_.size() >= static_cast<std::size_t>(kMaxDepth)) {
      fail_at(at, "values nest deeper than 64 levels");
    }
    if (!(tag.empty() || tag == "?" || tag == "!" ||
          tag == std::string(kCoreTag) + std::string(kind))) {
      fail_at(at, fmt::format("the tag {} is not supported here", vsphere::quote_for_message(tag)));
    }
    count(at, 1);
    Frame f;
    f.value.type = type;
    f.value.span = {at, at};
    f.anchor = anchor;
    f.is_map = type == Type::object;
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    complete(std::move(f.value), f.anchor);
  }

  // A finished value: the document's root, an item of a sequence, a map's key or value.
  void complete(Value v, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = {v, value_count(v)};
    if (v.type != Type::object && v.type != Type::array) count(v.span.begin, 1);
    if (stack_.empty()) {
      root_ = std::move(v);
      return;
    }
    Frame& top = stack_.back();
    top.value.span.end = std::max(top.value.span.end, v.span.end);
    if (!top.is_map) {
      top.value.items.push_back(std::move(v));
    } else if (top.expect_key) {
      key(top, std::move(v));
    } else {
      Member m;
      m.key = std::move(top.key.text);
      m.key_span = top.key.span;
      m.value = std::move(v);
      top.value.members.push_back(std::move(m));
      top.expect_key = true;
    }
  }

  void key(Frame& top, Value k) {
    const std::size_t at = k.span.begin;
    if (k.type == Type::object || k.type == Type::array) fail_at(at, "a map key must be a scalar");
    if (k.type == Type::null) fail_at(at, "a map key must not be null");
    // As sigs.k8s.io/yaml makes a key a string: booleans as true/false, numbers in decimal.
    if (k.type == Type::boolean) k.text = k.boolean ? "true" : "false";
    if (const auto [first, fresh] = top.seen.emplace(k.text, at); !fresh) {
      const Location l = source_.location(first->second);
      fail_at(at, fmt::format("key {} given twice in one map (first at line {}, column {})",
                              vsphere::quote_for_message(k.text), l.line, l.column));
    }
    top.key = std::move(k);
    top.expect_key = false;
  }

  void scalar(const std::string& tag, const std::string& text, Value& v) const {
    v.span.end = scalar_end(source_.bytes(), v.span.begin);
    std::string number;
    Type type = Type::string;
    if (tag == "?") {
      type = resolve_plain(text, &number);
    } else if (tag == "!" || tag == std::string(kCoreTag) + "str") {
      type = Type::string;
    } else if (tag.rfind(kCoreTag, 0) == 0) {
      const std::string_view want = std::string_view(tag).substr(kCoreTag.size());
      type = resolve_plain(text, &number);
      const bool integer = number.find_first_of(".eE") == std::string::npos;
      const bool ok = (want == "int" && type == Type::number && integer) ||
                      (want == "float" && type == Type::number) ||
                      (want == "bool" && type == Type::boolean) ||
                      (want == "null" && type == Type::null);
      if (!ok) {
        fail_at(v.span.begin,
                fmt::format("{} is not a {}", vsphere::quote_for_message(text), std::string(want)));
      }
    } else {
      fail_at(v.span.begin,
              fmt::format("the tag {} is not supported", vsphere::quote_for_message(tag)));
    }
    if (tag == "?" && one_of(kSpecialFloat, text)) {
      fail_at(v.span.begin, fmt::format("{} is a number JSON cannot hold", text));
    }
    v.type = type;
    if (type == Type::boolean) v.boolean = one_of(kTrue, text);
    if (type == Type::number) v.text = std::move(number);
    if (type == Type::string) v.text = text;
  }

  const SourceFile& source_;
  std::size_t bom_;
  std::size_t count_ = 0;
  bool started_ = false;
  std::size_t last_start_ = 0;
  std::vector<Frame> stack_;
  std::optional<Value> root_;
  std::unordered_map<YAML::anchor_t, std::pair<Value, std::size_t>> anchors_;
  std::vector<Value> documents_;
};

void emit(YAML::Emitter& out, const Value& v) {
  switch (v.type) {
    case Type::object:
      out << YAML::BeginMap;
      for (const Member& m : v.members) {
        out << YAML::Key;
        if (plain_scalar_type(m.key) != Type::string) out << YAML::DoubleQuoted;
        out << m.key << YAML::Value;
        emit(out, m.value);
      }
      out << YAML::EndMap;
      break;
    case Type::array:
      out << YAML::BeginSeq;
      for (const Value& item : v.items) emit(out, item);
      out << YAML::EndSeq;
      break;
    case Type::string:
      if (plain_scalar_type(v.text) != Type::string) out << YAML::DoubleQuoted;
      out << v.text;
      break;
    case Type::number:
      out << v.text;
      break;
    case Type::boolean:
      out << (v.boolean ? "true" : "false");
      break;
    case Type::null:
      out << YAML::Null;
      break;
  }
}

}  // namespace

Value::Type plain_scalar_type(std::string_view text) { return resolve_plain(text, nullptr); }

std::vector<Value> parse_documents(const SourceFile& source) {
  if (source.bytes().size() > kMaxBytes) {
    throw Error(source.path(), "document is larger than 16 MiB");
  }
  Builder builder(source);
  std::istringstream in{std::string(source.bytes())};
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::Exception& e) {
    builder.fail_at(builder.offset(e.mark), e.msg);
  }
  return std::move(builder.documents());
}

std::string write(const Value& v) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetOutputCharset(YAML::EmitNonAscii);
  out.SetMapFormat(YAML::Block);
  out.SetSeqFormat(YAML::Block);
  emit(out, v);
  if (!out.good()) throw Error("YAML writer: " + out.GetLastError());
  std::string text = out.c_str();
  text += '\n';
  return text;
}

}  // namespace vmxkit::yaml
