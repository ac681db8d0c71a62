// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>
#include <vector>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/source_file.h"

/// Validation of ConfigSpec XML against vmxkit's vim25 subset (schemas/vim25-configspec.xsd,
/// compiled into the binary), with libxml2 reading the schema from memory. Nothing is loaded
/// from disk or the network: no DTD, no entity, no schema import.
namespace vmxkit::vsphere {

/// The rule id of schema findings.
inline constexpr std::string_view kSchemaRuleId = "XML001";

/// The XSD text, as compiled in.
std::string_view configspec_schema();

/// Validates a standalone ConfigSpec document (root `<spec>` in urn:vim25) or a SOAP envelope
/// (its `ReconfigVM_Task` element) and returns one error per problem, at the element. Throws
/// vmxkit::Error, as read_configspec_xml() does, for XML that is unsafe or not well-formed.
std::vector<Diagnostic> validate_configspec(const SourceFile& source);

}  // namespace vmxkit::vsphere
