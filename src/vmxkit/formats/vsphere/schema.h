// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"

/// Validation of ConfigSpec XML against vmxkit's vim25 subset (schemas/vim25-configspec.xsd,
/// compiled into the binary), with libxml2 reading the schema from memory. Nothing is loaded
/// from disk or the network: no DTD, no entity, no schema import.
namespace vmxkit::vsphere {

/// A place where the document breaks the schema: the element's start tag (an empty span; the
/// document's start when libxml2 gives no line) and what is wrong. The rules layer reports these
/// as XML001 (rules/parse_problems.h).
struct SchemaProblem {
  SourceSpan span;
  std::string message;
};

/// The XSD text, as compiled in.
std::string_view configspec_schema();

/// Validates a standalone ConfigSpec document (root `<spec>` in urn:vim25) or a SOAP envelope
/// (its `ReconfigVM_Task` element) and returns one problem per libxml2 error, at the element.
/// Throws vmxkit::Error, as read_configspec_xml() does, for XML that is unsafe or not well-formed.
std::vector<SchemaProblem> validate_configspec(const SourceFile& source);

}  // namespace vmxkit::vsphere
