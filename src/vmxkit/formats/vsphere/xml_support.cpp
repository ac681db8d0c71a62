// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/xml_support.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/libxml2_library.h"
#include "vmxkit/formats/vsphere/text_checks.h"

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

// The `encoding` the XML declaration names, or empty.
std::string declared_encoding(std::string_view b) {
  if (b.substr(0, 3) == "\xEF\xBB\xBF") b.remove_prefix(3);
  if (b.substr(0, 5) != "<?xml") return {};
  const std::string_view decl = b.substr(0, b.find("?>"));
  const std::size_t at = decl.find("encoding");
  if (at == std::string_view::npos) return {};
  const std::size_t q = decl.find_first_of("\"'", at);
  if (q == std::string_view::npos) return {};
  const std::size_t end = decl.find(decl[q], q + 1);
  if (end == std::string_view::npos) return {};
  return std::string(decl.substr(q + 1, end - q - 1));
}

// XML is read as UTF-8 (pugixml and libxml2 are both told so): bytes that are not UTF-8 are
// refused where they are, with what the declaration says when it names another encoding.
void check_utf8(const SourceFile& source, const Positions& pos) {
  const std::size_t bad = find_invalid_utf8(source.bytes());
  if (bad == std::string_view::npos) return;
  const std::string declared = declared_encoding(source.bytes());
  std::string message = "invalid UTF-8 (byte " + hex_byte(source.bytes()[bad]) + ")";
  if (!declared.empty() && !iequals(declared, "UTF-8") && !iequals(declared, "UTF8")) {
    message += ": the document declares encoding=" + quote_for_message(declared) +
               ", and vmxkit reads XML as UTF-8 only; save it as UTF-8";
  } else {
    message += ": vmxkit reads XML as UTF-8; save the file as UTF-8";
  }
  pos.fail_at(bad, message);
}

// The first error libxml2 reports, with where its parser was then.
struct FirstError {
  bool set = false;
  int code = 0;
  int line = 0;
  int column = 0;                 // libxml2's, in characters
  std::size_t offset = SIZE_MAX;  // bytes, when the parser's input could tell
  std::string message;
};

void on_libxml2_error(void* /*user*/, xmlErrorPtr err) {
  // Fatal errors are those that make the document not well-formed; others (a namespace
  // warning) leave a document that loads.
  if (err == nullptr || err->level != XML_ERR_FATAL) return;
  auto* ctxt = static_cast<xmlParserCtxtPtr>(err->ctxt);
  if (ctxt == nullptr || ctxt->_private == nullptr) return;
  auto* first = static_cast<FirstError*>(ctxt->_private);
  if (first->set) return;
  first->set = true;
  first->code = err->code;
  first->line = err->line;
  first->column = err->int2;
  const xmlParserInputPtr in = ctxt->input;
  if (in != nullptr && in->base != nullptr && in->cur != nullptr && in->cur >= in->base) {
    first->offset =
        static_cast<std::size_t>(in->consumed) + static_cast<std::size_t>(in->cur - in->base);
  }
  first->message = err->message != nullptr ? err->message : "";
  while (!first->message.empty() &&
         (first->message.back() == '\n' || first->message.back() == ' ')) {
    first->message.pop_back();
  }
}

struct ParserDeleter {
  void operator()(xmlParserCtxt* c) const { libxml2().free_parser_ctxt(c); }
};
struct LibxmlDocDeleter {
  void operator()(xmlDoc* d) const { libxml2().free_doc(d); }
};

// libxml2 is the stricter reader (the schema validator's): a document it refuses (a second root
// element, a character reference to a character XML forbids, an undeclared entity) is refused
// here, at its place, rather than later without one.
void check_with_libxml2(const SourceFile& source, const Positions& pos) {
  const std::string_view b = source.bytes();
  const std::unique_ptr<xmlParserCtxt, ParserDeleter> ctxt(libxml2().new_parser_ctxt());
  if (!ctxt) throw Error(source.path(), "out of memory starting the XML parser");
  FirstError first;
  ctxt->_private = &first;
  ctxt->sax->serror = on_libxml2_error;
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                      XML_PARSE_BIG_LINES;  // no DTDLOAD, no NOENT: entities stay unexpanded
  const std::unique_ptr<xmlDoc, LibxmlDocDeleter> doc(libxml2().ctxt_read_memory(
      ctxt.get(), b.data(), static_cast<int>(b.size()), "input.xml", "UTF-8", options));
  if (doc && ctxt->wellFormed != 0) return;
  if (!first.set) throw Error(source.path(), "malformed XML (libxml2 gave no reason)");
  std::string message = "malformed XML: " + first.message;
  std::size_t at = first.offset;
  if (at != SIZE_MAX && at <= b.size()) {
    // A bad character reference is reported after its ';': point at its '&'.
    const std::size_t amp =
        at > 0 && b[at - 1] == ';' ? b.rfind("&#", at - 1) : std::string_view::npos;
    if (first.code == XML_ERR_INVALID_CHAR && amp != std::string_view::npos && at - amp <= 12) {
      message = quote_for_message(b.substr(amp, at - amp)) +
                " is a character reference to a character XML 1.0 does not allow";
      at = amp;
    } else if (first.code == XML_ERR_DOCUMENT_END) {
      message = "content after the root element (an XML document has exactly one root element)";
    }
    pos.fail_at(at, message);
  }
  if (first.line > 0) {
    throw Error(source.path(), static_cast<std::uint32_t>(first.line),
                static_cast<std::uint32_t>(first.column > 0 ? first.column : 1), message);
  }
  throw Error(source.path(), message);
}

}  // namespace

void load(const SourceFile& source, pugi::xml_document& doc) {
  const std::string_view bytes = source.bytes();
  const Positions pos(source);
  if (bytes.size() > kMaxDocumentBytes) {
    throw Error(source.path(),
                "document is larger than " + std::to_string(kMaxDocumentBytes >> 20) + " MiB");
  }
  refuse_wide_encoding(source);
  if (const std::size_t d = find_doctype(bytes); d != std::string_view::npos) {
    pos.fail_at(d, "a DOCTYPE is not allowed: vmxkit never loads DTDs or entities");
  }
  check_utf8(source, pos);
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
    std::size_t attributes = 0;
    for (auto a = node.first_attribute(); a && attributes <= kMaxAttributes;
         a = a.next_attribute()) {
      ++attributes;
    }
    if (attributes > kMaxAttributes) {
      std::string message = "element '";
      message += node.name();
      message += "' has more than " + std::to_string(kMaxAttributes) +
                 " attributes (vim25 and OVF elements have a handful)";
      pos.fail(node, message);
    }
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element) stack.emplace_back(c, depth + 1);
    }
  }
  if (!doc.document_element()) throw Error(source.path(), "no root element");
  check_with_libxml2(source, pos);
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
      throw UncarriedText(text, "value " + quote_for_message(text) + " holds the control byte " +
                                    hex + ", which XML 1.0 cannot carry");
    }
    std::size_t len = c < 0x80           ? 1
                      : (c >> 5) == 0x6  ? 2
                      : (c >> 4) == 0xE  ? 3
                      : (c >> 3) == 0x1E ? 4
                                         : 0;
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
      throw UncarriedText(text, "value " + quote_for_message(text) +
                                    " is not valid UTF-8; convert the file to UTF-8 first");
    }
    if (cp == 0xFFFE || cp == 0xFFFF) {
      char hex[12];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
      throw UncarriedText(text, "value " + quote_for_message(text) + " holds the noncharacter " +
                                    hex + ", which XML 1.0 cannot carry");
    }
    i += len;
  }
}

void escape_append(std::string_view text, std::string& out) {
  check_text(text);
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace vmxkit::vsphere::xml
