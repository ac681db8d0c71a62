// SPDX-License-Identifier: Apache-2.0
// The one JSON writer. Every JSON document it prints (lint, SARIF, topo, mmio, host-check,
// guest-check) is in one layout, nlohmann's dump(2): a document built as a `Json` value is
// written by write_json_document; a report too large to build as one value (lint's report of
// many files, SARIF's results) is streamed in the same layout by JsonStream and
// JsonArrayStream. Strings that come from input bytes (paths, messages, device names) go in
// through json_text.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace vmxkit::report {

/// A JSON value whose object members keep the order they were added in.
using Json = nlohmann::ordered_json;

/// A JSON string from input bytes: each byte that is not part of well-formed UTF-8 (a legacy
/// code page, a truncated or overlong sequence, a code point above U+10FFFF) becomes U+FFFD.
std::string json_text(std::string_view bytes);

/// json_text of `s`, or null when it is empty (a fact the input did not give).
Json optional_text(const std::string& s);

/// Writes `doc` with two-space indentation, UTF-8 as it is (not \u-escaped), and a final
/// newline. A string that reached the document without json_text has its invalid bytes replaced
/// by U+FFFD too, instead of failing the run.
void write_json_document(std::ostream& os, const Json& doc);

/// The JSON text of `value` as write_json_document writes it inside a document, `depth` levels
/// deep: each line after the first is indented by two more spaces a level.
std::string dump_nested(const Json& value, std::size_t depth);

/// JSON text appended to a string token by token, in write_json_document's layout, for a value
/// nested `depth` levels deep in a document. It builds no `Json` value: lint's report of many
/// files is mostly this, and building a value per finding cost more than linting. Strings go
/// through json_text, so they are valid UTF-8; escapes are nlohmann's (\" \\ \b \f \n \r \t,
/// other control bytes as \u00xx). The caller pairs begin_* with end_* and gives each object
/// member a key() before its value.
class JsonStream {
 public:
  JsonStream(std::string& out, std::size_t depth) : out_(out), depth_(depth) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(std::string_view k) {
    separate();
    string(k);
    out_.append(": ");
    after_key_ = true;
  }
  void value(std::string_view text);
  void value(std::size_t n);
  void null() {
    separate();
    out_.append("null");
  }

 private:
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (counts_.empty()) return;
    out_.append(counts_.back()++ == 0 ? "\n" : ",\n");
    indent(counts_.size());
  }
  void open(char bracket) {
    separate();
    out_.push_back(bracket);
    counts_.push_back(0);
  }
  void close(char bracket) {
    const bool empty = counts_.back() == 0;
    counts_.pop_back();
    if (!empty) {
      out_.push_back('\n');
      indent(counts_.size());
    }
    out_.push_back(bracket);
  }
  void indent(std::size_t level) { out_.append(2 * (depth_ + level), ' '); }
  void string(std::string_view text);

  std::string& out_;
  std::size_t depth_;
  std::vector<std::size_t> counts_;  // members written so far, per open container
  bool after_key_ = false;
};

/// Writes a JSON array to a stream one element at a time, as write_json_document writes it
/// `depth` levels deep: `[`, each element nested at depth + 1, `]`. The caller has written what
/// comes before the array and writes what follows close().
class JsonArrayStream {
 public:
  JsonArrayStream(std::ostream& os, std::size_t depth) : os_(os), depth_(depth) {}
  void add(const Json& element);
  void close();

 private:
  std::ostream& os_;
  std::size_t depth_;
  bool first_ = true;
};

}  // namespace vmxkit::report
