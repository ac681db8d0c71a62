// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/mmio_requirement.h"
#include "vmxkit/checks/vm_pairs.h"
#include "vmxkit/devices/role.h"

namespace vmxkit::checks {
namespace mmio006 {

constexpr std::string_view kDoc = R"md(
## What it does
Names each NVIDIA GPU passed through (DirectPath, vendor `0x10de`) whose BARs neither the
device catalogue (an id it does not know, or a row with neither BAR1 nor framebuffer) nor a
`--host` capture gives. vmxkit still applies the
checks an NVIDIA GPU needs (MMIO001, MMIO005: a GPU is only taken to need no 64-bit MMIO window
when its BAR1 is known to be small), sizing the window at 64 GB, the smallest NVIDIA lists for a
data-center GPU; this finding says that the size was assumed, not computed, and which input
would compute it.

## Why is this bad?
A GPU newer than the catalogue (or a variant of a known one) may have a BAR1 of 128 GiB or more
(an H20 has 128 GiB): a 64 GB window would then be too small and the VM would fail to power on.
The GPUDirect and P2P verdicts for it are also made without knowing the model.

## Example
```
pciPassthru0.deviceId = "0xffff"
pciPassthru0.vendorId = "0x10de"
```
Lint with `--host` and a capture that has `lspci -vvv` (its `Region N: Memory at ... [size=128G]`
lines give the BAR sizes), or add the model with `--catalog FILE` (the format is documented in
`src/vmxkit/devices/catalog.tsv`).

## Fix safety
No fix: the BAR sizes must come from the host.

## References
- Broadcom KB 323402 (VMs with large-BAR GPUs fail to power on without 64-bit MMIO; sizing rule)
- NVIDIA AI Enterprise, "Optimizing VM configuration for AI inference", appendix (VMware): the
  MMIO space each GPU requires, 64 GB for the smallest (V100, A10, A30, L4, L2)
- NVIDIA nvtrust issue 128: `lspci` of an H20 (10de:2329) with `Memory at ... [size=128G]`
)md";

void check(const Context& ctx, Sink& sink) {
  const auto req = mmio_requirement(ctx);
  if (!req || req->result.unknown_gpus.empty()) return;
  for (const VmDevice& v : ctx.devices()) {
    if (std::find(req->result.unknown_gpus.begin(), req->result.unknown_gpus.end(), v.label) ==
        req->result.unknown_gpus.end()) {
      continue;
    }
    sink.report(kMMIO006, id_span(ctx, v),
                fmt::format("{} is an NVIDIA GPU ({:04x}:{:04x}) {}: its BAR sizes were not "
                            "checked and the 64-bit MMIO window assumes {} GB; lint with --host "
                            "and a capture with `lspci -vvv` (its Region lines give the BAR "
                            "sizes), or add the model with --catalog",
                            v.label, pci::kNvidiaVendor, v.device_id.value_or(0),
                            v.model != nullptr
                                ? "whose BAR1 and framebuffer the device catalogue does not give"
                                : "the device catalogue does not know, so its GPUDirect and P2P "
                                  "support are not known either",
                            pci::kUnknownGpuMinGb));
  }
}

}  // namespace mmio006

extern const Check kMMIO006{
    .id = "MMIO006",
    .name = "unknown-gpu-bars",
    .severity = Severity::warning,
    .summary = "An NVIDIA GPU the catalogue does not know: its BARs are assumed, not known",
    .doc = mmio006::kDoc,
    .check = &mmio006::check,
};

}  // namespace vmxkit::checks
