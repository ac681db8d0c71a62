// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/configspec.h"

namespace pugi {
class xml_node;
}  // namespace pugi

/// vim25 `VirtualMachineConfigSpec` as XML: a standalone document whose root element (any name,
/// vmxkit writes `<spec>`, pyVmomi's `SoapAdapter.Serialize` `<object xsi:type=...>`) holds the
/// ConfigSpec's fields, or a SOAP 1.1 `ReconfigVM_Task` request; and the documents vSphere
/// clients get back: a VM's `VirtualMachineConfigInfo` (bare, or in a `RetrievePropertiesEx`,
/// `RetrieveProperties` or `Fetch` response).
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

/// What a vim25 XML document is.
enum class XmlDocumentKind {
  configspec,   ///< a VirtualMachineConfigSpec document (`<spec>`, `<object xsi:type=...>`)
  reconfigure,  ///< a SOAP `ReconfigVM_Task` request
  configinfo,   ///< a VirtualMachineConfigInfo document
  retrieve,     ///< a `RetrievePropertiesEx`/`RetrieveProperties` response (SOAP or bare)
  fetch,        ///< a `Fetch` response holding a VM's config
};

/// One VM of a vim25 XML document. A ConfigInfo is read as the ConfigSpec that would give the
/// VM that configuration: its passthrough devices (`hardware.device`) as devices being added,
/// `hardware.numCPU`/`numCoresPerSocket`/`memoryMB` as numCPUs/numCoresPerSocket/memoryMB, the
/// other fields (name, guestId, extraConfig, memoryAllocation, firmware,
/// memoryReservationLockedToMax, nestedHVEnabled) as they are.
struct XmlVm {
  ConfigSpec spec;
  std::string name;   ///< the VM's `name` property, else the config's name, else its moref
  std::string moref;  ///< `vm-42`, where the document names it (`_this`, `obj`)
};

struct XmlDocument {
  XmlDocumentKind kind = XmlDocumentKind::configspec;
  std::vector<XmlVm> vms;  ///< one, except for a property collector response with several VMs
};

/// Reads any of the documents above, told by content: a SOAP envelope by the element in its
/// Body, a bare document by its root's name and `xsi:type` (a root without one is a ConfigInfo
/// when it has a `hardware` child, else a ConfigSpec). Throws vmxkit::Error with file:line:col,
/// as read_configspec_xml() does, and for a document that holds no VM configuration: a SOAP
/// Fault, another request or response, a property collector response without a VirtualMachine
/// `config` property (naming the objects and properties it has), a VM whose `config` is missing
/// from it.
XmlDocument read_vim25_xml(const SourceFile& source);

/// One `VirtualDevice` element of a document parsed from `source` (its `xsi:type` names the
/// device), as the readers above read each device; nullopt for a device that is not passthrough.
/// Throws vmxkit::Error as they do.
std::optional<DeviceChange> read_vim25_device(const SourceFile& source, pugi::xml_node device);

/// Writes a standalone ConfigSpec document, every field in the schema's element order, every
/// polymorphic element with its `xsi:type`. Throws vmxkit::Error for a value XML cannot carry.
std::string write_configspec_xml(const ConfigSpec& spec);

/// Writes a SOAP 1.1 `ReconfigVM_Task` request for the VirtualMachine `vm` (`vm-123`).
std::string write_soap_envelope(const ConfigSpec& spec, std::string_view vm);

}  // namespace vmxkit::vsphere
