// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/yaml_json.h"

#include <fmt/format.h>
// GCC 12 reports -Wdangling-pointer inside yaml-cpp 0.7's node/impl.h once its code is inlined
// here (a false positive on the header's own temporaries); the header is not ours to change.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#include <yaml-cpp/yaml.h>
#pragma GCC diagnostic pop
#else
#include <yaml-cpp/yaml.h>
#endif

#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>
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

class Converter {
 public:
  explicit Converter(const SourceFile& source)
      : source_(source), bom_(source.bytes().substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0) {}

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    const Location l = source_.location(std::min(offset, source_.bytes().size()));
    throw Error(source_.path(), l.line, l.column, message);
  }

  std::size_t offset(const YAML::Mark& m) const {
    return m.is_null() || m.pos < 0 ? 0 : static_cast<std::size_t>(m.pos) + bom_;
  }

  Value convert(const YAML::Node& n, int depth) {
    if (depth > kMaxDepth) fail_at(offset(n.Mark()), "values nest deeper than 64 levels");
    if (++count_ > kMaxValues) {
      fail_at(offset(n.Mark()), "the document expands to more than a million values (aliases)");
    }
    Value v;
    v.span.begin = v.span.end = offset(n.Mark());
    switch (n.Type()) {
      case YAML::NodeType::Map:
        check_collection_tag(n, "map");
        map(n, v, depth);
        break;
      case YAML::NodeType::Sequence:
        check_collection_tag(n, "seq");
        v.type = Type::array;
        for (const YAML::Node& item : n) {
          v.items.push_back(convert(item, depth + 1));
          v.span.end = std::max(v.span.end, v.items.back().span.end);
        }
        break;
      case YAML::NodeType::Scalar:
        scalar(n, v);
        break;
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        v.type = Type::null;
        break;
    }
    return v;
  }

 private:
  void check_collection_tag(const YAML::Node& n, std::string_view kind) const {
    const std::string& tag = n.Tag();
    if (tag.empty() || tag == "?" || tag == "!" ||
        tag == std::string(kCoreTag) + std::string(kind)) {
      return;
    }
    fail_at(offset(n.Mark()),
            fmt::format("the tag {} is not supported here", vsphere::quote_for_message(tag)));
  }

  void map(const YAML::Node& n, Value& v, int depth) {
    v.type = Type::object;
    std::unordered_map<std::string, std::size_t> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const YAML::Node& key = it->first;
      const std::size_t at = offset(key.Mark());
      if (!key.IsScalar()) fail_at(at, "a map key must be a scalar");
      Value k;
      k.span.begin = at;
      scalar(key, k);
      if (key.Tag() == "?" && key.Scalar() == "<<") {
        fail_at(at, "merge keys (<<) are not supported: write the keys out");
      }
      if (k.type == Type::null) fail_at(at, "a map key must not be null");
      std::string name = k.type == Type::boolean ? (k.boolean ? "true" : "false") : k.text;
      if (const auto [first, fresh] = seen.emplace(name, at); !fresh) {
        const Location l = source_.location(first->second);
        fail_at(at, fmt::format("key {} given twice in one map (first at line {}, column {})",
                                vsphere::quote_for_message(name), l.line, l.column));
      }
      Member m;
      m.key = std::move(name);
      m.key_span = k.span;
      m.value = convert(it->second, depth + 1);
      if (m.value.type == Type::null && it->second.Type() != YAML::NodeType::Scalar) {
        m.value.span = {m.key_span.end, m.key_span.end};  // `key:` with nothing after it
      }
      v.span.end = std::max(v.span.end, m.value.span.end);
      v.members.push_back(std::move(m));
    }
  }

  void scalar(const YAML::Node& n, Value& v) const {
    const std::string& tag = n.Tag();
    const std::string& text = n.Scalar();
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
      const bool ok = (want == "int" && type == Type::number &&
                       number.find_first_of(".eE") == std::string::npos) ||
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
  Converter converter(source);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(source.bytes()));
  } catch (const YAML::Exception& e) {
    converter.fail_at(converter.offset(e.mark), e.msg);
  }
  std::vector<Value> out;
  out.reserve(docs.size());
  for (const YAML::Node& d : docs) out.push_back(converter.convert(d, 0));
  return out;
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
