// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/core/source_file.h"
#include "vmxkit/vsphere/configspec.h"

/// vim25 `VirtualMachineConfigSpec` as XML: a standalone document whose root element (any name,
/// vmxkit writes `<spec>`) holds the ConfigSpec's fields, or a SOAP 1.1 `ReconfigVM_Task`
/// request.
namespace vmxkit::vsphere {

/// The SOAP and vim25 namespaces.
inline constexpr std::string_view kSoapEnvNs = "http://schemas.xmlsoap.org/soap/envelope/";
inline constexpr std::string_view kVim25Ns = "urn:vim25";
inline constexpr std::string_view kXsdNs = "http://www.w3.org/2001/XMLSchema";
inline constexpr std::string_view kXsiNs = "http://www.w3.org/2001/XMLSchema-instance";

struct XmlConfigSpec {
  ConfigSpec spec;
  bool envelope = false;  ///< it came in a SOAP envelope
  std::string vm;         ///< the envelope's `_this` VirtualMachine moref (`vm-123`)
};

/// Reads a ConfigSpec document or SOAP envelope. Fields outside vmxkit's subset are skipped
/// (schema validation reports what is not vim25), as are devices other than
/// `VirtualPCIPassthrough` and `VirtualSriovEthernetCard`. Throws vmxkit::Error with
/// file:line:col for unsafe or malformed XML and for values of the wrong type.
XmlConfigSpec read_configspec_xml(const SourceFile& source);

/// Writes a standalone ConfigSpec document, every field in the schema's element order, every
/// polymorphic element with its `xsi:type`. Throws vmxkit::Error for a value XML cannot carry.
std::string write_configspec_xml(const ConfigSpec& spec);

/// Writes a SOAP 1.1 `ReconfigVM_Task` request for the VirtualMachine `vm` (`vm-123`).
std::string write_soap_envelope(const ConfigSpec& spec, std::string_view vm);

}  // namespace vmxkit::vsphere
