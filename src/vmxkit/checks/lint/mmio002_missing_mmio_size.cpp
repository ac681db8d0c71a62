// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/mmio_requirement.h"
#include "vmxkit/checks/util.h"

namespace vmxkit::checks {
namespace mmio002 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags `pciPassthru.use64bitMMIO = "TRUE"` in a VM with passthrough GPUs but no
`pciPassthru.64bitMMIOSizeGB`, and computes the size the devices need.

## Why is this bad?
Without a size the VM gets a default window (32 GB by one VMware engineer's account; the exact
default is not documented), too small for one H100's 128 GiB BAR1. The VM then fails to power on.

## Example
```
pciPassthru.use64bitMMIO = "TRUE"
```
Add:
```
pciPassthru.64bitMMIOSizeGB = "256"
```

## Fix safety
Safe: the fix writes the size computed from the devices' BARs (packed with natural alignment,
rounded up to a power of two), which is what the devices need.

## References
- Broadcom KB 323402 (sizing `64bitMMIOSizeGB`)
- Frank Denneman, vSphere ML Accelerator Spectrum Deep Dive (32 GB default MMIO region)
)md";

void check(const Context& ctx, Sink& sink) {
  if (!ctx.config().get_bool(kUse64bitMmio).value_or(false)) return;
  if (ctx.config().find(kMmioSizeGb) != nullptr) return;
  const auto req = mmio_requirement(ctx);
  if (!req) return;
  const Setting* use = ctx.config().find(kUse64bitMmio);
  Diagnostic& d = sink.report(
      kMMIO002, use->whole,
      fmt::format("pciPassthru.64bitMMIOSizeGB is not set; the passthrough BARs need {}{}",
                  req->result.size_gb, req->estimated ? " (KB 323402 estimate)" : ""));
  add_mmio_notes(ctx, *req, d);
  d.fix = set_key_fix(ctx, kMmioSizeGb, std::to_string(req->result.size_gb),
                      fmt::format("Set pciPassthru.64bitMMIOSizeGB = \"{}\"", req->result.size_gb),
                      FixSafety::safe);
}

}  // namespace mmio002

extern const Check kMMIO002{
    .id = "MMIO002",
    .name = "missing-mmio-size",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::safe,
    .summary = "use64bitMMIO without pciPassthru.64bitMMIOSizeGB",
    .doc = mmio002::kDoc,
    .check = &mmio002::check,
};

}  // namespace vmxkit::checks
