// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/parse_problems.h"

namespace vmxkit::checks {
namespace xml001 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a ConfigSpec document (vim25 XML or a SOAP `ReconfigVM_Task` request) that does not match
the vim25 schema subset vmxkit knows: an element out of the schema's order, a missing required
element (`deviceName` of a passthrough backing), a value of the wrong type (a `vendorId` outside
the signed short range, a `deviceId` in decimal).

## Why is this bad?
vCenter rejects a request whose elements are out of `xsd:sequence` order or of the wrong type,
or reads a value differently than meant; hand-built specs get exactly these wrong.

## Example
```xml
<backing xsi:type="VirtualPCIPassthroughDeviceBackingInfo">
  <id>0000:3b:00.0</id>
  <deviceId>2331</deviceId>
  <systemId>...</systemId>
  <vendorId>4318</vendorId>
</backing>
```
`deviceName` is required and comes first; add `<deviceName></deviceName>`.

## Fix safety
No automatic fix: `vmxkit convert IN --to configspec-xml` writes a valid document from it.

## References
- vim25 WSDL/XSD (`VirtualDeviceDeviceBackingInfo.deviceName` minOccurs 1, sequences)
- govmomi `vim25/types/types.go` (element order of the current schema)
)md";

}  // namespace xml001

// Found by the loader (libxml2 schema validation, vsphere::validate_configspec) for the whole
// file, not per VM, so there is no check function: the engine reports schema_diagnostics().
extern const Check kXML001{
    .id = "XML001",
    .name = "configspec-schema-violation",
    .severity = Severity::error,
    .summary = "A ConfigSpec element that does not match the vim25 schema",
    .doc = xml001::kDoc,
    .check = nullptr,
};

std::vector<Diagnostic> schema_diagnostics(std::span<const vsphere::SchemaProblem> problems) {
  Sink sink;
  for (const vsphere::SchemaProblem& p : problems) sink.report(kXML001, p.span, p.message);
  return std::move(sink.diagnostics());
}

}  // namespace vmxkit::checks
