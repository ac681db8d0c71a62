// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/schema.h"

#include <memory>
#include <pugixml.hpp>
#include <string>

#include "vmxkit/core/embedded.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/libxml2_library.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit {
extern const EmbeddedFile kSpecSchemas[];
}

namespace vmxkit::vsphere {
namespace {

constexpr std::string_view kSchemaName = "vim25-configspec.xsd";

// One libxml2 error: the line and element it names, and its text.
struct XmlError {
  int line = 0;
  std::string element;
  std::string message;
};

void collect(void* user, xmlErrorPtr err) {
  if (err == nullptr || err->message == nullptr) return;
  auto* problems = static_cast<std::vector<XmlError>*>(user);
  XmlError p;
  p.line = err->line;
  if (err->node != nullptr) {
    const auto* node = static_cast<const xmlNode*>(err->node);
    if (node->type == XML_ELEMENT_NODE && node->name != nullptr) {
      p.element = reinterpret_cast<const char*>(node->name);
      if (p.line == 0) p.line = static_cast<int>(libxml2().get_line_no(node));
    }
  }
  std::string m = err->message;
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ' || m.back() == '.')) m.pop_back();
  for (std::size_t at; (at = m.find("{urn:vim25}")) != std::string::npos;) m.erase(at, 11);
  p.message = std::move(m);
  problems->push_back(std::move(p));
}

struct SchemaDeleter {
  void operator()(xmlSchema* s) const { libxml2().schema_free(s); }
};

xmlSchema* compiled_schema() {
  static const std::unique_ptr<xmlSchema, SchemaDeleter> schema = [] {
    const std::string_view xsd = configspec_schema();
    xmlSchemaParserCtxtPtr pctxt =
        libxml2().schema_new_mem_parser_ctxt(xsd.data(), static_cast<int>(xsd.size()));
    std::vector<XmlError> problems;
    libxml2().schema_set_parser_structured_errors(pctxt, collect, &problems);
    xmlSchema* s = libxml2().schema_parse(pctxt);
    libxml2().schema_free_parser_ctxt(pctxt);
    return std::unique_ptr<xmlSchema, SchemaDeleter>(s);
  }();
  if (!schema) throw Error("the compiled-in schema vim25-configspec.xsd does not compile");
  return schema.get();
}

struct DocDeleter {
  void operator()(xmlDoc* d) const { libxml2().free_doc(d); }
};
struct ValidDeleter {
  void operator()(xmlSchemaValidCtxt* c) const { libxml2().schema_free_valid_ctxt(c); }
};

bool is_local(const xmlNode* n, const char* name) {
  return n != nullptr && n->type == XML_ELEMENT_NODE &&
         std::string_view(reinterpret_cast<const char*>(n->name)) == name;
}

const xmlNode* first_element(const xmlNode* n) {
  for (; n != nullptr; n = n->next) {
    if (n->type == XML_ELEMENT_NODE) return n;
  }
  return nullptr;
}

}  // namespace

std::string_view configspec_schema() {
  for (const EmbeddedFile* f = kSpecSchemas; !f->name.empty(); ++f) {
    if (f->name == kSchemaName) return f->data;
  }
  throw Error("vim25-configspec.xsd is not compiled in");
}

std::vector<SchemaProblem> validate_configspec(const SourceFile& source) {
  {
    pugi::xml_document safe;
    // DOCTYPE, size, depth and attribute-count checks before libxml2 sees the bytes: its
    // validator takes time quadratic in one element's attributes (xml::kMaxAttributes).
    xml::load(source, safe);
  }
  xmlSchema* schema = compiled_schema();
  const std::string_view bytes = source.bytes();
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                      XML_PARSE_BIG_LINES;  // no DTDLOAD, no NOENT: entities stay unexpanded
  const std::unique_ptr<xmlDoc, DocDeleter> doc(libxml2().read_memory(
      bytes.data(), static_cast<int>(bytes.size()), "spec.xml", "UTF-8", options));
  if (!doc) throw Error(source.path(), "libxml2 could not parse the document");
  const std::unique_ptr<xmlSchemaValidCtxt, ValidDeleter> vctxt(
      libxml2().schema_new_valid_ctxt(schema));
  std::vector<XmlError> problems;
  libxml2().schema_set_valid_structured_errors(vctxt.get(), collect, &problems);

  xmlNode* root = libxml2().doc_get_root_element(doc.get());
  int rc = 0;
  if (is_local(root, "Envelope") && root->ns != nullptr &&
      std::string_view(reinterpret_cast<const char*>(root->ns->href)) == kSoapEnvNs) {
    const xmlNode* body = first_element(root->children);
    const xmlNode* op = body != nullptr ? first_element(body->children) : nullptr;
    if (!is_local(body, "Body") || op == nullptr) {
      problems.push_back({root->line, "Envelope", "SOAP envelope without a request in its Body"});
    } else {
      rc = libxml2().schema_validate_one_element(vctxt.get(), const_cast<xmlNode*>(op));
    }
  } else {
    rc = libxml2().schema_validate_doc(vctxt.get(), doc.get());
  }
  if (rc != 0 && problems.empty()) problems.push_back({0, {}, "the document is not valid"});

  std::vector<SchemaProblem> out;
  const LineIndex& lines = source.lines();
  for (const XmlError& p : problems) {
    std::size_t at = 0;
    if (p.line > 0 && static_cast<std::size_t>(p.line) <= lines.line_count()) {
      at = lines.line_start(static_cast<std::size_t>(p.line));
      const std::string_view text = lines.line_text(bytes, at);
      // Point at the element's start tag on that line (with or without a prefix).
      std::size_t col = std::string_view::npos;
      for (std::size_t i = text.find('<'); i != std::string_view::npos; i = text.find('<', i + 1)) {
        std::string_view name = text.substr(i + 1);
        name = name.substr(0, name.find_first_of(" \t/>"));
        const std::size_t colon = name.find(':');
        if (colon != std::string_view::npos) name.remove_prefix(colon + 1);
        if (name == p.element) {
          col = i;
          break;
        }
      }
      if (col != std::string_view::npos) at += col;
    }
    out.push_back({{at, at}, "not valid in vmxkit's vim25 subset: " + p.message});
  }
  return out;
}

}  // namespace vmxkit::vsphere
