// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/parse_problems.h"

namespace vmxkit::checks {
namespace form001 {

constexpr std::string_view kDoc = R"md(
## What it does
Says what a declaration form leaves to vSphere or VM Operator, or cannot say, for each VM read
from a Terraform plan or state (`terraform show -json`) or a VM Operator VirtualMachineClass:
a DirectPath device named by host address only (its vendor and device id come from the host
at apply), a device named by vendor and device id (vSphere picks the host device at power-on,
so GPU/NIC pairing is placement by vSphere), the 64-bit MMIO settings VM Operator adds to a VM
of a class with devices, a field another one overrides.

## Why is this bad?
It is not: it is information. The other rules judge the VM from what the form says; what the
form leaves to another party is neither checked nor known to vmxkit, and saying so keeps "no
problems found" from claiming more than was checked.

## Example
```yaml
spec:
  hardware:
    devices:
      dynamicDirectPathIODevices:
        - vendorID: 0x10de
          deviceID: 0x2330
```
The note says that vSphere places the device on a host at power-on.

## Fix safety
No automatic fix: nothing is wrong.

## References
- docs/terraform-and-vmclass.md (the argument and field names, versions and sources)
- vmware-tanzu/vm-operator `api/v1alpha5/virtualmachineclass_types.go`
- vmware/terraform-provider-vsphere `vsphere/resource_vsphere_virtual_machine.go`
)md";

}  // namespace form001

// Found by the Terraform and VM class readers, so there is no check function: the engine
// reports form_note_diagnostics() with the VM's other findings.
extern const Check kFORM001{
    .id = "FORM001",
    .name = "declaration-form-note",
    .severity = Severity::info,
    .summary = "What a Terraform resource or VM class leaves to vSphere or cannot say",
    .doc = form001::kDoc,
    .check = nullptr,
};

std::vector<Diagnostic> form_note_diagnostics(std::span<const FormNote> notes) {
  Sink sink;
  for (const FormNote& n : notes) sink.report(kFORM001, n.where, n.text);
  return std::move(sink.diagnostics());
}

}  // namespace vmxkit::checks
