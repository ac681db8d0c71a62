// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/parse_problems.h"

namespace vmxkit::checks {
namespace ovf001 {

constexpr std::string_view kDoc = R"md(
## What it does
Names each `vmw:Config` setting of a passthrough or SR-IOV `Item` in an OVF descriptor that
vmxkit does not read: a `backing.*` key it has no mapping for (vmxkit reads `backing.id`,
`deviceId`, `vendorId`, `systemId`, `vgpu`, `allowedDevice`, `customLabel`, the SR-IOV card's
`sriovBacking.physicalFunctionBacking.id` and the items' `deviceGroupInfo`).

## Why is this bad?
The other rules judge the VM from what vmxkit read. A setting it skipped is neither checked
nor carried over by `vmxkit convert`: saying so, instead of passing it over in silence, keeps
"no problems found" from claiming more than was checked. It is information, not a defect of
the VM; vSphere may well accept the setting.

## Example
```xml
<Item>
  <rasd:ResourceSubType>vmware.pci.passthrough</rasd:ResourceSubType>
  <rasd:ResourceType>1</rasd:ResourceType>
  <vmw:Config ovf:required="false" vmw:key="backing.id" vmw:value="0000:3b:00.0"/>
  <vmw:Config ovf:required="false" vmw:key="backing.futureField" vmw:value="x"/>
</Item>
```
`backing.futureField` is reported; check it by hand, or in vCenter after the import.

## Fix safety
No automatic fix: the setting may be right; vmxkit only says it did not read it.

## References
- DMTF DSP0243 (OVF) and VMware's `vmw:Config` extension (govmomi `ovf/envelope.go`,
  `ovf/configspec.go`: each `vmw:Config` key is a VirtualDevice property path)
- vSphere API: `VirtualPCIPassthroughDeviceBackingInfo`, `VirtualSriovEthernetCard`
)md";

}  // namespace ovf001

// Found by the OVF reader (vsphere::read_ovf) for each VirtualSystem, so there is no check
// function: the engine reports unread_diagnostics() with the VM's other findings.
extern const Check kOVF001{
    .id = "OVF001",
    .name = "ovf-setting-not-read",
    .severity = Severity::info,
    .summary = "An OVF passthrough setting vmxkit does not read, so does not check",
    .doc = ovf001::kDoc,
    .check = nullptr,
};

std::vector<Diagnostic> unread_diagnostics(std::span<const vsphere::OvfUnread> unread) {
  Sink sink;
  for (const vsphere::OvfUnread& u : unread) sink.report(kOVF001, u.span, u.message);
  return std::move(sink.diagnostics());
}

}  // namespace vmxkit::checks
