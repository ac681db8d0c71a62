// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/json.h"

#include <cstdio>
#include <unordered_map>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::vsphere::json {
namespace {

class Parser {
 public:
  explicit Parser(const SourceFile& source) : source_(source), s_(source.bytes()) {}

  Value document() {
    if (s_.size() > xml::kMaxDocumentBytes) {
      throw Error(source_.path(), "document is larger than 16 MiB");
    }
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail(pos_, "unexpected text after the JSON value");
    return v;
  }

  std::vector<Value> documents() {
    if (s_.size() > xml::kMaxDocumentBytes) {
      throw Error(source_.path(), "document is larger than 16 MiB");
    }
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    std::vector<Value> out;
    skip_ws();
    do {
      out.push_back(value(0));
      skip_ws();
    } while (pos_ != s_.size());
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    const Location l = source_.location(at);
    throw Error(source_.path(), l.line, l.column, message);
  }

  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  Value value(std::size_t depth) {
    if (depth > xml::kMaxDepth) fail(pos_, "values nest deeper than 64 levels");
    if (pos_ >= s_.size()) fail(pos_, "unexpected end of document: expected a value");
    const char c = s_[pos_];
    Value v;
    const std::size_t begin = pos_;
    if (c == '{') {
      object(v, depth);
    } else if (c == '[') {
      array(v, depth);
    } else if (c == '"') {
      v.type = Value::Type::string;
      v.text = string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.type = Value::Type::number;
      v.text = number();
    } else if (word("true")) {
      v.type = Value::Type::boolean;
      v.boolean = true;
    } else if (word("false")) {
      v.type = Value::Type::boolean;
    } else if (word("null")) {
      v.type = Value::Type::null;
    } else {
      fail(pos_, "expected a JSON value");
    }
    v.span = {begin, pos_};
    return v;
  }

  // The members of the object at pos_ (at its '{'), into `v`.
  void object(Value& v, std::size_t depth) {
    v.type = Value::Type::object;
    ++pos_;
    skip_ws();
    if (peek('}')) {
      ++pos_;
      return;
    }
    std::unordered_map<std::string, std::size_t> index;  // used from kIndexFrom members on
    for (;;) {
      skip_ws();
      if (!peek('"')) fail(pos_, "expected a member name in double quotes");
      Member m;
      const std::size_t kb = pos_;
      m.key = string();
      m.key_span = {kb, pos_};
      skip_ws();
      if (!peek(':')) fail(pos_, "expected ':' after the member name");
      ++pos_;
      skip_ws();
      check_unique(v, m, index);
      m.value = value(depth + 1);
      v.members.push_back(std::move(m));
      skip_ws();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek('}')) {
        ++pos_;
        return;
      }
      fail(pos_, "expected ',' or '}' in the object");
    }
  }

  // The items of the array at pos_ (at its '['), into `v`.
  void array(Value& v, std::size_t depth) {
    v.type = Value::Type::array;
    ++pos_;
    skip_ws();
    if (peek(']')) {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      v.items.push_back(value(depth + 1));
      skip_ws();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek(']')) {
        ++pos_;
        return;
      }
      fail(pos_, "expected ',' or ']' in the array");
    }
  }

  // RFC 8259 lets readers differ on repeated names (some take the first, some the last), so a
  // document with one means different things to different tools: refuse it.
  void check_unique(const Value& object, const Member& m,
                    std::unordered_map<std::string, std::size_t>& index) {
    const Member* first = nullptr;
    if (object.members.size() < kIndexFrom) {
      for (const Member& other : object.members) {
        if (other.key == m.key) {
          first = &other;
          break;
        }
      }
    } else {
      if (index.empty()) {
        for (std::size_t i = 0; i < object.members.size(); ++i) {
          index.emplace(object.members[i].key, i);
        }
      }
      const auto [it, inserted] = index.emplace(m.key, object.members.size());
      if (!inserted) first = &object.members[it->second];
    }
    if (first != nullptr) {
      const Location l = source_.location(first->key_span.begin);
      fail(m.key_span.begin, "duplicate member " + quote_for_message(m.key) + " (first at line " +
                                 std::to_string(l.line) + ", column " + std::to_string(l.column) +
                                 "): a member may appear once per object");
    }
  }

  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  std::string number() {
    const std::size_t begin = pos_;
    auto digits = [&] {
      const std::size_t d = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - d;
    };
    if (peek('-')) ++pos_;
    if (peek('0')) {
      ++pos_;
    } else if (digits() == 0) {
      fail(pos_, "malformed number");
    }
    if (peek('.')) {
      ++pos_;
      if (digits() == 0) fail(pos_, "malformed number: digits expected after '.'");
    }
    if (peek('e') || peek('E')) {
      ++pos_;
      if (peek('+') || peek('-')) ++pos_;
      if (digits() == 0) fail(pos_, "malformed number: digits expected in the exponent");
    }
    return std::string(s_.substr(begin, pos_ - begin));
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail(pos_, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail(pos_ - 1, "malformed \\u escape");
      }
    }
    return v;
  }

  static void utf8(unsigned cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    const std::size_t open = pos_++;
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail(open, "unterminated string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail(pos_, "control character in a string");
      if (static_cast<unsigned char>(c) >= 0x80) {
        // JSON text is UTF-8 (RFC 8259 section 8.1): other bytes would reach every output.
        const std::size_t n = utf8_sequence_length(s_, pos_);
        if (n == 0) {
          fail(pos_, "invalid UTF-8 in a string (byte " + hex_byte(c) +
                         "): JSON text must be UTF-8; save the file as UTF-8");
        }
        out.append(s_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= s_.size()) fail(open, "unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail(pos_ - 6, "unpaired UTF-16 surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            fail(pos_ - 6, "unpaired UTF-16 surrogate");
          }
          utf8(cp, out);
          break;
        }
        default:
          fail(pos_ - 2, std::string("unknown escape \\") + e);
      }
    }
  }

  // Objects with this many members look names up in a hash index instead of a scan.
  static constexpr std::size_t kIndexFrom = 16;

  const SourceFile& source_;
  std::string_view s_;
  std::size_t pos_ = 0;
};

void write_string(std::string_view s, std::string& out) {
  if (const std::size_t bad = find_invalid_utf8(s); bad != std::string_view::npos) {
    throw UncarriedText(s, "value " + quote_for_message(s) + " is not valid UTF-8 (byte " +
                               hex_byte(s[bad]) +
                               "), which JSON cannot carry; convert the file to UTF-8 first");
  }
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool is_scalar(const Value& v) {
  return v.type != Value::Type::array && v.type != Value::Type::object;
}

void write_value(const Value& v, int indent, std::string& out) {
  const auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<std::size_t>(level) * 2, ' ');
  };
  switch (v.type) {
    case Value::Type::null:
      out += "null";
      break;
    case Value::Type::boolean:
      out += v.boolean ? "true" : "false";
      break;
    case Value::Type::number:
      out += v.text;
      break;
    case Value::Type::string:
      write_string(v.text, out);
      break;
    case Value::Type::array:
      if (v.items.empty()) {
        out += "[]";
        break;
      }
      out += '[';
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i != 0) out += ',';
        newline(indent + 1);
        write_value(v.items[i], indent + 1, out);
      }
      newline(indent);
      out += ']';
      break;
    case Value::Type::object: {
      if (v.members.empty()) {
        out += "{}";
        break;
      }
      // A box such as {"_typeName": "string", "_value": "TRUE"} stays on one line.
      bool flat = v.members.size() <= 2;
      for (const Member& m : v.members) flat = flat && is_scalar(m.value);
      out += '{';
      for (std::size_t i = 0; i < v.members.size(); ++i) {
        if (i != 0) out += flat ? ", " : ",";
        if (!flat) newline(indent + 1);
        write_string(v.members[i].key, out);
        out += ": ";
        write_value(v.members[i].value, indent + 1, out);
      }
      if (!flat) newline(indent);
      out += '}';
      break;
    }
  }
}

}  // namespace

const Value* Value::find(std::string_view key) const {
  for (const Member& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

Value Value::string(std::string s) {
  Value v;
  v.type = Type::string;
  v.text = std::move(s);
  return v;
}

Value Value::number(std::string text) {
  Value v;
  v.type = Type::number;
  v.text = std::move(text);
  return v;
}

Value Value::boolean_value(bool b) {
  Value v;
  v.type = Type::boolean;
  v.boolean = b;
  return v;
}

Value Value::object() {
  Value v;
  v.type = Type::object;
  return v;
}

Value Value::array() {
  Value v;
  v.type = Type::array;
  return v;
}

Value& Value::add(std::string key, Value value) {
  members.push_back({std::move(key), {}, std::move(value)});
  return members.back().value;
}

std::string describe(const Value& v) {
  switch (v.type) {
    case Value::Type::null:
      return "null";
    case Value::Type::boolean:
      return v.boolean ? "true" : "false";
    case Value::Type::number:
      return "the number " + v.text;
    case Value::Type::string:
      return "a string";
    case Value::Type::array:
      return "an array";
    case Value::Type::object:
      return "an object";
  }
  return "a value";
}

Value parse(const SourceFile& source) { return Parser(source).document(); }

std::vector<Value> parse_sequence(const SourceFile& source) { return Parser(source).documents(); }

const Value* go_field(const Value& obj, std::string_view go_name) {
  const Value* v = obj.find(go_name);
  if (v == nullptr && !go_name.empty() && go_name[0] >= 'A' && go_name[0] <= 'Z') {
    std::string camel(go_name);
    camel[0] = static_cast<char>(camel[0] - 'A' + 'a');
    v = obj.find(camel);
  }
  return v == nullptr || v->is(Value::Type::null) ? nullptr : v;
}

std::string write(const Value& v) {
  std::string out;
  write_value(v, 0, out);
  out += '\n';
  return out;
}

void TypedReader::fail_at(std::size_t offset, const std::string& message) const {
  const Location l = source_.location(offset);
  throw Error(source_.path(), l.line, l.column, message);
}

void TypedReader::fail(const Value& at, const std::string& message) const {
  fail_at(at.span.begin, message);
}

const Value& TypedReader::object(const Value& v, std::string_view what) const {
  if (!v.is(Value::Type::object))
    fail(v, std::string(what) + " must be an object, not " + describe(v));
  return v;
}

const std::vector<Value>& TypedReader::array(const Value& v, std::string_view what) const {
  if (!v.is(Value::Type::array))
    fail(v, std::string(what) + " must be an array, not " + describe(v));
  return v.items;
}

std::string TypedReader::text(const Value& v, std::string_view what) const {
  if (!v.is(Value::Type::string))
    fail(v, std::string(what) + " must be a string, not " + describe(v));
  return v.text;
}

std::int64_t TypedReader::integer(const Value& v, std::string_view what) const {
  const auto n = v.is(Value::Type::number) ? parse_long(v.text) : std::nullopt;
  if (!n) fail(v, std::string(what) + " must be an integer, not " + describe(v));
  return *n;
}

}  // namespace vmxkit::vsphere::json
