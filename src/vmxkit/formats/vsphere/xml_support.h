// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "vmxkit/core/source_file.h"
#include "vmxkit/model/vm_config.h"

/// Safe XML loading for the spec readers, and the source positions of pugixml nodes.
namespace vmxkit::vsphere::xml {

/// Largest XML or JSON document the spec readers accept (bytes). ConfigSpecs are a few KiB and
/// OVF descriptors rarely pass 1 MiB.
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{16} << 20;
/// Deepest element nesting accepted. A ConfigSpec in a SOAP envelope is about 10 deep.
inline constexpr std::size_t kMaxDepth = 64;
/// Most attributes one element may have. vim25 and OVF elements carry a handful (namespace
/// declarations, xsi:type); libxml2's time is quadratic in one element's attributes, to build its
/// tree and to validate it (20,000 took 2.6 s and 12.6 s).
inline constexpr std::size_t kMaxAttributes = 64;

/// Parses `source` with pugixml, after checking that it is well-formed UTF-8 XML that libxml2
/// (the schema validator's parser) reads too. Never loads a DTD or an entity and never touches
/// the network: pugixml has no such features, libxml2 is not allowed them, and a document with
/// a DOCTYPE is refused outright. Throws vmxkit::Error with file:line:col for UTF-16 or UTF-32
/// text, bytes that are not UTF-8 (whatever encoding the declaration names), malformed XML
/// (pugixml's or libxml2's finding: a second root element, `&#1;`, an undeclared entity...), a
/// DOCTYPE, a document over kMaxDocumentBytes, nesting deeper than kMaxDepth or an element with
/// more than kMaxAttributes attributes.
void load(const SourceFile& source, pugi::xml_document& doc);

/// The element or attribute name without its prefix.
std::string_view local_name(const char* name);
/// The first child element with this local name.
pugi::xml_node child(pugi::xml_node node, std::string_view local);
/// The value of an attribute by local name (any prefix), or nullptr.
pugi::xml_attribute attribute(pugi::xml_node node, std::string_view local);
/// The local part of the element's `xsi:type`, or empty.
std::string_view xsi_type(pugi::xml_node node);

/// Positions of nodes in the original bytes (pugixml's offset_debug).
class Positions {
 public:
  explicit Positions(const SourceFile& source) : source_(source) {}
  /// The element from its '<' to the end of its closing tag.
  SourceSpan element(pugi::xml_node node) const;
  /// The element's text as written (entities not decoded); an empty span after the start tag
  /// when it has none.
  SourceSpan text(pugi::xml_node node) const;
  /// The attribute's value inside its quotes.
  SourceSpan attribute_value(pugi::xml_node node, pugi::xml_attribute attr) const;
  /// Throws vmxkit::Error at the node: `file:line:col: message`.
  [[noreturn]] void fail(pugi::xml_node node, const std::string& message) const;
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const;
  const SourceFile& source() const { return source_; }

 private:
  std::size_t begin(pugi::xml_node node) const;
  std::size_t end(pugi::xml_node node, std::size_t depth) const;
  std::size_t start_tag_end(std::size_t from) const;
  const SourceFile& source_;
};

/// Throws vmxkit::Error when `text` cannot be written to a UTF-8 XML 1.0 document: invalid
/// UTF-8 (including overlong forms, surrogates and values past U+10FFFF), a control byte other
/// than TAB, LF and CR, or U+FFFE/U+FFFF.
void check_text(std::string_view text);
/// Escapes text for element content and attribute values (after check_text()).
void escape_append(std::string_view text, std::string& out);

}  // namespace vmxkit::vsphere::xml
