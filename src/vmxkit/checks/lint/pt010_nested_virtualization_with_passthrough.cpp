// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/formats/vmx/edit.h"

namespace vmxkit::checks {
namespace pt010 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM with present passthrough, vGPU or SR-IOV VF devices that also exposes hardware
virtualization to the guest: `vhv.enable = "TRUE"` (the ConfigSpec's `nestedHVEnabled`).

## Why is this bad?
Broadcom: "Virtualization is not supported on a virtual machine with a PCI passthrough device"
(KB 437651). A guest hypervisor on top of a passthrough GPU or NIC is a configuration VMware
does not support; run the GPU workload in the VM itself, or use a host with the GPU on bare
metal for nested setups.

## Example
```
vhv.enable = "TRUE"
pciPassthru0.present = "TRUE"
```

## Fix safety
Unsafe: the fix removes `vhv.enable`, and a guest that runs its own hypervisor (WSL2,
Hyper-V, KVM, nested ESXi) stops starting its VMs.

## References
- Broadcom KB 437651 (virtualization not supported with a PCI passthrough device)
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.devices().empty()) return;
  const Setting* vhv = ctx.config().find("vhv.enable");
  if (vhv == nullptr || !parse_bool(vhv->value).value_or(false)) return;
  Diagnostic& d = sink.report(
      kPT010, vhv->value_span,
      fmt::format("nested hardware virtualization with {} passthrough device(s): not supported "
                  "(KB 437651)",
                  ctx.devices().size()));
  if (ctx.document() != nullptr) {
    Fix fix{"Remove vhv.enable", FixSafety::unsafe, vmx::unset(*ctx.document(), vhv->key)};
    if (!fix.edits.empty()) d.fix = std::move(fix);
  }
}

}  // namespace pt010

extern const Check kPT010{
    .id = "PT010",
    .name = "nested-virtualization-with-passthrough",
    .severity = Severity::warning,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::unsafe,
    .summary = "Nested hardware virtualization in a VM with passthrough devices",
    .doc = pt010::kDoc,
    .check = &pt010::check,
};

}  // namespace vmxkit::checks
