// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/json.h"

#include <fmt/format.h>

#include <iterator>
#include <ostream>

#include "vmxkit/core/text.h"

namespace vmxkit::report {

std::string json_text(std::string_view bytes) { return to_valid_utf8(bytes); }

Json optional_text(const std::string& s) { return s.empty() ? Json(nullptr) : Json(json_text(s)); }

void write_json_document(std::ostream& os, const Json& doc) {
  os << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

std::string dump_nested(const Json& value, std::size_t depth) {
  const std::string text = value.dump(2, ' ', false, Json::error_handler_t::replace);
  const std::string indent(2 * depth, ' ');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out.push_back(c);
    // Newlines inside strings are escaped in JSON text: each raw one is the dump's own.
    if (c == '\n') out.append(indent);
  }
  return out;
}

void JsonStream::value(std::string_view text) {
  separate();
  string(json_text(text));
}

void JsonStream::value(std::size_t n) {
  separate();
  fmt::format_to(std::back_inserter(out_), "{}", n);
}

void JsonStream::string(std::string_view text) {
  out_.push_back('"');
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out_.append("\\\"");
        break;
      case '\\':
        out_.append("\\\\");
        break;
      case '\b':
        out_.append("\\b");
        break;
      case '\f':
        out_.append("\\f");
        break;
      case '\n':
        out_.append("\\n");
        break;
      case '\r':
        out_.append("\\r");
        break;
      case '\t':
        out_.append("\\t");
        break;
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out_), "\\u{:04x}", c);
        } else {
          out_.push_back(ch);
        }
    }
  }
  out_.push_back('"');
}

void JsonArrayStream::add(const Json& element) {
  os_ << (first_ ? "[\n" : ",\n") << std::string(2 * (depth_ + 1), ' ')
      << dump_nested(element, depth_ + 1);
  first_ = false;
}

void JsonArrayStream::close() {
  if (first_) {
    os_ << "[]";
  } else {
    os_ << '\n' << std::string(2 * depth_, ' ') << ']';
  }
}

}  // namespace vmxkit::report
