// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/xml_support.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "vmxkit/core/error.h"

namespace vmxkit::vsphere::xml {
namespace {

// Where a DOCTYPE starts, ignoring comments and processing instructions before it.
std::size_t find_doctype(std::string_view bytes) {
  std::size_t pos = 0;
  while ((pos = bytes.find("<!", pos)) != std::string_view::npos) {
    if (bytes.compare(pos, 4, "<!--") == 0) {
      const std::size_t end = bytes.find("-->", pos + 4);
      if (end == std::string_view::npos) return std::string_view::npos;
      pos = end + 3;
      continue;
    }
    if (bytes.compare(pos, 9, "<!DOCTYPE") == 0) return pos;
    if (bytes.compare(pos, 9, "<![CDATA[") == 0) {
      const std::size_t end = bytes.find("]]>", pos + 9);
      if (end == std::string_view::npos) return std::string_view::npos;
      pos = end + 3;
      continue;
    }
    pos += 2;
  }
  return std::string_view::npos;
}

}  // namespace

void load(const SourceFile& source, pugi::xml_document& doc) {
  const std::string_view bytes = source.bytes();
  const Positions pos(source);
  if (bytes.size() > kMaxDocumentBytes) {
    throw Error(source.path(), "document is larger than " +
                                   std::to_string(kMaxDocumentBytes >> 20) + " MiB");
  }
  if (const std::size_t d = find_doctype(bytes); d != std::string_view::npos) {
    pos.fail_at(d, "a DOCTYPE is not allowed: vmxkit never loads DTDs or entities");
  }
  const unsigned options = pugi::parse_default & ~pugi::parse_doctype;
  const pugi::xml_parse_result r =
      doc.load_buffer(bytes.data(), bytes.size(), options, pugi::encoding_utf8);
  if (!r) {
    pos.fail_at(static_cast<std::size_t>(r.offset),
                std::string("malformed XML: ") + r.description());
  }
  // Depth check, iteratively (the readers below recurse a fixed few levels only).
  std::vector<std::pair<pugi::xml_node, std::size_t>> stack{{doc, 0}};
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxDepth) {
      pos.fail(node, "elements nest deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element) stack.emplace_back(c, depth + 1);
    }
  }
  if (!doc.document_element()) throw Error(source.path(), "no root element");
}

std::string_view local_name(const char* name) {
  std::string_view n(name);
  const std::size_t colon = n.find(':');
  return colon == std::string_view::npos ? n : n.substr(colon + 1);
}

pugi::xml_node child(pugi::xml_node node, std::string_view local) {
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_element && local_name(c.name()) == local) return c;
  }
  return {};
}

pugi::xml_attribute attribute(pugi::xml_node node, std::string_view local) {
  for (pugi::xml_attribute a = node.first_attribute(); a; a = a.next_attribute()) {
    if (local_name(a.name()) == local) return a;
  }
  return {};
}

std::string_view xsi_type(pugi::xml_node node) {
  for (pugi::xml_attribute a = node.first_attribute(); a; a = a.next_attribute()) {
    const std::string_view n = a.name();
    if (n.size() > 5 && n.substr(n.size() - 5) == ":type") return local_name(a.value());
  }
  return {};
}

std::size_t Positions::begin(pugi::xml_node node) const {
  const std::ptrdiff_t off = node.offset_debug();
  if (off <= 0) return 0;
  const auto o = static_cast<std::size_t>(off);
  // offset_debug() points at an element's name; step back to its '<'.
  return node.type() == pugi::node_element && o > 0 ? o - 1 : o;
}

std::size_t Positions::start_tag_end(std::size_t from) const {
  const std::string_view b = source_.bytes();
  char quote = 0;
  for (std::size_t i = from; i < b.size(); ++i) {
    const char c = b[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return i + 1;
    }
  }
  return b.size();
}

std::size_t Positions::end(pugi::xml_node node, std::size_t depth) const {
  const std::string_view b = source_.bytes();
  const std::size_t start = begin(node);
  if (node.type() == pugi::node_pcdata || node.type() == pugi::node_cdata) {
    const std::size_t lt = b.find('<', start);
    return lt == std::string_view::npos ? b.size() : lt;
  }
  const std::size_t tag_end = start_tag_end(start);
  if (tag_end >= 2 && b[tag_end - 2] == '/') return tag_end;  // <x/>
  pugi::xml_node last = node.last_child();
  const std::size_t inner = last && depth < kMaxDepth + 2 ? end(last, depth + 1) : tag_end;
  const std::size_t close = b.find("</", inner);
  if (close == std::string_view::npos) return b.size();
  const std::size_t gt = b.find('>', close);
  return gt == std::string_view::npos ? b.size() : gt + 1;
}

SourceSpan Positions::element(pugi::xml_node node) const { return {begin(node), end(node, 0)}; }

SourceSpan Positions::text(pugi::xml_node node) const {
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
      return {begin(c), end(c, 0)};
    }
  }
  const std::size_t t = start_tag_end(begin(node));
  return {t, t};
}

SourceSpan Positions::attribute_value(pugi::xml_node node, pugi::xml_attribute attr) const {
  // Find `name="` inside the start tag.
  const std::string_view b = source_.bytes();
  const std::size_t start = begin(node);
  const std::size_t tag_end = start_tag_end(start);
  const std::string name = attr.name();
  std::size_t p = start;
  while ((p = b.find(name, p)) != std::string_view::npos && p < tag_end) {
    std::size_t q = p + name.size();
    while (q < tag_end && (b[q] == ' ' || b[q] == '\t' || b[q] == '\r' || b[q] == '\n')) ++q;
    if (q < tag_end && b[q] == '=') {
      ++q;
      while (q < tag_end && (b[q] == ' ' || b[q] == '\t' || b[q] == '\r' || b[q] == '\n')) ++q;
      if (q < tag_end && (b[q] == '"' || b[q] == '\'')) {
        const std::size_t close = b.find(b[q], q + 1);
        return {q + 1, close == std::string_view::npos ? q + 1 : close};
      }
    }
    p += name.size();
  }
  return {start, start};
}

void Positions::fail(pugi::xml_node node, const std::string& message) const {
  fail_at(begin(node), message);
}

void Positions::fail_at(std::size_t offset, const std::string& message) const {
  const Location loc = source_.location(offset);
  throw Error(source_.path(), loc.line, loc.column, message);
}

void check_text(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(c));
      throw Error("value '" + std::string(text) + "' holds the control byte " + hex +
                  ", which XML 1.0 cannot carry");
    }
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= text.size();
    std::uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1Fu : len == 3 ? c & 0x0Fu : c & 0x07u;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    // Well-formed means the shortest form of a scalar value (no overlong forms, surrogates or
    // values past U+10FFFF): libxml2 refuses anything else, so our own output would not load.
    static constexpr std::uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kMinForLength[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (!ok) {
      throw Error("value '" + std::string(text) +
                  "' is not valid UTF-8; convert the file to UTF-8 first");
    }
    if (cp == 0xFFFE || cp == 0xFFFF) {
      char hex[12];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
      throw Error("value '" + std::string(text) + "' holds the noncharacter " + hex +
                  ", which XML 1.0 cannot carry");
    }
    i += len;
  }
}

void escape_append(std::string_view text, std::string& out) {
  check_text(text);
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      default: out += c;
    }
  }
}

}  // namespace vmxkit::vsphere::xml
