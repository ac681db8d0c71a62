// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace pt001 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a present `pciPassthruN` entry that does not say which device it passes: no `id` (DirectPath
I/O), no `vgpu` profile, no `allowedDevices` (Dynamic DirectPath), no `pfId` (SR-IOV VF) and no
DVX device class (`dvx.deviceClass`, which a `virtualDev = "dvx"` entry needs: the vSphere API's
VirtualPCIPassthroughDvxBackingInfo requires a non-empty `deviceClass` when the device is added).

## Why is this bad?
ESXi cannot match the entry to a host device and the VM fails to power on ("AH No device hints
found", "Failed to generate predicates for pciPassthru0 - invalid VM configuration").

## Example
```
pciPassthru0.present = "TRUE"
pciPassthru0.deviceId = "0x2331"
pciPassthru0.vendorId = "0x10de"
```
Add the host address in the `.vmx` form: `pciPassthru0.id = "00000:059:00.0"`.

## Fix safety
No automatic fix: the host address comes from the host (`vmxkit generate --host` writes it).

## References
- Broadcom KB 309986 (configuring VMDirectPath I/O)
- govmomi issue #2248 (a working entry written by vSphere)
- vSphere Web Services API, VirtualPCIPassthroughDvxBackingInfo (`deviceClass`); govmomi
  `ovf/fixtures/external/vdg-vm.ovf` (a DVX-backed SR-IOV adapter with `dvx.deviceClass`)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    const PassthroughKind kind = v.entry->kind();
    if (kind == PassthroughKind::dvx &&
        (!v.entry->dvx_device_class || v.entry->dvx_device_class->empty())) {
      sink.report(kPT001, ctx.device_span(*v.entry),
                  fmt::format("pciPassthru{} is a DVX device (virtualDev = \"dvx\") without "
                              "dvx.deviceClass",
                              v.entry->index));
      continue;
    }
    if (kind != PassthroughKind::unknown) continue;
    sink.report(kPT001, ctx.device_span(*v.entry),
                fmt::format("pciPassthru{} is present but has no id, vgpu, allowedDevices, pfId "
                            "or dvx.deviceClass",
                            v.entry->index));
  }
}

}  // namespace pt001

extern const Check kPT001{
    .id = "PT001",
    .name = "passthrough-without-device",
    .severity = Severity::error,
    .summary = "A passthrough entry that names no device",
    .doc = pt001::kDoc,
    .check = &pt001::check,
};

}  // namespace vmxkit::checks
