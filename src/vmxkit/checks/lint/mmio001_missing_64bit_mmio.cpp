// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/mmio_requirement.h"
#include "vmxkit/checks/util.h"
#include "vmxkit/formats/vmx/edit.h"

namespace vmxkit::checks {
namespace mmio001 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM whose passthrough GPUs (DirectPath or vGPU) need more than 16 GB of MMIO space while
`pciPassthru.use64bitMMIO` is not TRUE. The need is computed from the devices' 64-bit BARs: the
host capture's with `--host`, else the device catalogue's, else Broadcom KB 323402's rule (twice
the framebuffer, to a power of two). A vGPU counts as its profile's framebuffer in a VM with
less than 32 GB of memory; in a VM with 32 GB or more, as the physical GPU it runs on (the host's
GPU of the profile's board with `--host`, else the catalogue's model of that board that needs
the least), and never less than 64 GB: a small C-series profile in a large VM needs the window.

## Why is this bad?
Without 64-bit MMIO the BARs must fit below 4 GB, which a modern GPU's cannot: power-on fails
with "Module 'DevicePowerOn' power on failed" and vmware.log says "PCIPassthru: total number of
pages needed (N) exceeds limit (M)".

## Example
An H100 (BAR1 of 128 GiB) passed through without:
```
pciPassthru.use64bitMMIO = "TRUE"
pciPassthru.64bitMMIOSizeGB = "256"
```

## Fix safety
Unsafe: 64-bit MMIO also needs an EFI guest (MMIO005) and "above 4G decoding" in the host's
BIOS. The fix sets `pciPassthru.use64bitMMIO = "TRUE"` and, when it is missing, the computed
`pciPassthru.64bitMMIOSizeGB`.

## References
- Broadcom KB 323402 (failed to power on VMs with large-BAR GPUs; sizing rule)
- VMware blogs on V100/compute accelerators in passthrough (needed above 16 GB of BARs)
- Dell KB 000199172 (`DevicePowerOn` failure)
- NVIDIA AI Enterprise, "Optimizing VM configuration for AI inference", appendix (VMware): for a
  vGPU VM with 32 GB or more of memory "64-bit MMIO and EFI boot must be enabled" and the MMIO
  space "must be increased to 64 GB", or to what the physical GPU requires
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.config().get_bool(kUse64bitMmio).value_or(false)) return;
  const auto req = mmio_requirement(ctx);
  if (!req || req->result.size_gb <= 16) return;
  const Setting* existing = ctx.config().find(kUse64bitMmio);
  const SourceSpan where = existing != nullptr ? existing->value_span : anchor_for_missing_key(ctx);
  Diagnostic& d =
      sink.report(kMMIO001, where,
                  fmt::format("the passthrough BARs need a {} GB 64-bit MMIO window, but "
                              "pciPassthru.use64bitMMIO is not TRUE",
                              req->result.size_gb));
  add_mmio_notes(ctx, *req, d);
  if (ctx.document() == nullptr) return;
  Fix fix{"Set pciPassthru.use64bitMMIO = \"TRUE\" (and the window size)", FixSafety::unsafe,
          vmx::set(*ctx.document(), kUse64bitMmio, "TRUE")};
  if (ctx.config().find(kMmioSizeGb) == nullptr) {
    for (TextEdit& e :
         vmx::set(*ctx.document(), kMmioSizeGb, std::to_string(req->result.size_gb))) {
      fix.edits.push_back(std::move(e));
    }
  }
  if (edits_are_disjoint(fix.edits)) d.fix = std::move(fix);
}

}  // namespace mmio001

extern const Check kMMIO001{
    .id = "MMIO001",
    .name = "missing-64bit-mmio",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::unsafe,
    .summary = "Large-BAR GPUs without pciPassthru.use64bitMMIO",
    .doc = mmio001::kDoc,
    .check = &mmio001::check,
};

}  // namespace vmxkit::checks
