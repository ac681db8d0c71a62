// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/mmio_requirement.h"
#include "vmxkit/checks/util.h"

namespace vmxkit::checks {
namespace mmio004 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `pciPassthru.64bitMMIOSizeGB` smaller than what the VM's passthrough devices need. The
need is computed by packing the devices' 64-bit memory BARs with natural alignment and rounding
up to a power of two; BAR sizes come from the `--host` capture, else the device catalogue, else
Broadcom KB 323402's rule (next power of two of twice the total framebuffer). The notes show the
arithmetic.

## Why is this bad?
The devices' BARs do not fit in the window: the VM fails to power on ("Module 'DevicePowerOn'
power on failed"), or the guest driver finds its BAR unassigned ("BAR1 is 0M"). Blog posts
copy `128` for every VM; two H100s need 512.

## Example
Two H100 PCIe GPUs (BAR1 128 GiB each, plus 32 MiB BARs) with:
```
pciPassthru.64bitMMIOSizeGB = "128"
```
Use instead:
```
pciPassthru.64bitMMIOSizeGB = "512"
```

## Fix safety
Safe: the fix writes the computed size, which only grows the window.

## References
- Broadcom KB 323402 (sizing rule and worked H100 example)
- NVIDIA/gpu-operator issue #492 ("BAR1 is 0M" in the guest)
- NVIDIA AI Enterprise, "Optimizing VM configuration for AI inference", appendix (VMware): vGPU
  VMs with 32 GB or more of memory, sized for the physical GPU, at least 64 GB
)md";

void check(const Context& ctx, Sink& sink) {
  const Setting* s = ctx.config().find(kMmioSizeGb);
  if (s == nullptr) return;
  const auto value = parse_int(s->value);
  if (!value || *value <= 0 || (*value & (*value - 1)) != 0) return;  // MMIO003's finding
  const auto req = mmio_requirement(ctx);
  if (!req || static_cast<std::uint64_t>(*value) >= req->result.size_gb) return;
  Diagnostic& d = sink.report(
      kMMIO004, s->value_span,
      fmt::format("pciPassthru.64bitMMIOSizeGB = {} is below the {} GB the passthrough BARs "
                  "need{}",
                  *value, req->result.size_gb, req->estimated ? " (KB 323402 estimate)" : ""));
  add_mmio_notes(ctx, *req, d);
  d.fix = set_key_fix(ctx, s->key, std::to_string(req->result.size_gb),
                      fmt::format("Set it to {}", req->result.size_gb), FixSafety::safe);
}

}  // namespace mmio004

extern const Check kMMIO004{
    .id = "MMIO004",
    .name = "mmio-size-too-small",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::safe,
    .summary = "A 64bitMMIOSizeGB too small for the passthrough BARs",
    .doc = mmio004::kDoc,
    .check = &mmio004::check,
};

}  // namespace vmxkit::checks
