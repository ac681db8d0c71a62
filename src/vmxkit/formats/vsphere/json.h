// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/model/vm_config.h"

/// A small JSON reader (RFC 8259) that keeps the byte span of every value and member key, so
/// diagnostics on VI/JSON documents get line:column, and a writer with stable formatting.
/// Numbers keep their text as written.
namespace vmxkit::vsphere::json {

struct Member;

struct Value {
  enum class Type { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool boolean = false;
  std::string text;  ///< string: decoded; number: as written
  std::vector<Value> items;
  std::vector<Member> members;
  SourceSpan span;

  /// The first member with this key, or nullptr (also for non-objects).
  const Value* find(std::string_view key) const;
  bool is(Type t) const { return type == t; }

  static Value string(std::string s);
  static Value number(std::string text);
  static Value boolean_value(bool b);
  static Value object();
  static Value array();
  /// Appends a member (objects) and returns its value.
  Value& add(std::string key, Value value);
};

struct Member {
  std::string key;
  SourceSpan key_span;
  Value value;
};

/// The JSON type's name for messages: "a string", "true", "an object", ...
std::string describe(const Value& v);

/// Parses a whole document. Throws vmxkit::Error with file:line:col for malformed JSON (a string
/// that is not UTF-8, a member name given twice in one object), a document over 16 MiB or
/// nesting deeper than 64 levels.
Value parse(const SourceFile& source);

/// Parses one or more JSON values one after the other, separated by whitespace or nothing (what
/// Go's json.Encoder writes when it encodes several values to one stream), as parse() does.
std::vector<Value> parse_sequence(const SourceFile& source);

/// Writes `v` with two-space indentation and a final newline; an object of at most two scalar
/// members (a boxed value such as `{"_typeName": "string", "_value": "TRUE"}`) stays on one line.
/// Throws vmxkit::Error for a string that is not UTF-8.
std::string write(const Value& v);

/// A member of govc's JSON by its Go field name (`VendorId`), which govc 0.24 writes, or by its
/// camelCase json tag (`vendorId`), which govc 0.32 and later write; nullptr when it is absent or
/// null.
const Value* go_field(const Value& obj, std::string_view go_name);

/// Typed access for the readers of JSON documents (VI/JSON, govc's JSON): each accessor returns
/// the value as the type asked for, or throws vmxkit::Error at the value's file:line:col
/// ("WHAT must be an object, not a string").
class TypedReader {
 public:
  explicit TypedReader(const SourceFile& source) : source_(source) {}

 protected:
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const;
  [[noreturn]] void fail(const Value& at, const std::string& message) const;
  const Value& object(const Value& v, std::string_view what) const;
  const std::vector<Value>& array(const Value& v, std::string_view what) const;
  std::string text(const Value& v, std::string_view what) const;
  std::int64_t integer(const Value& v, std::string_view what) const;

  const SourceFile& source_;
};

}  // namespace vmxkit::vsphere::json
