// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/util.h"
#include "vmxkit/formats/vmx/edit.h"

namespace vmxkit::checks {
namespace pt008 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM with present passthrough, vGPU or SR-IOV VF devices whose memory is not all reserved:
`sched.mem.min` (or `sched.mem.minSize`) below `memsize`, and `sched.mem.pin` not true.

## Why is this bad?
A device doing DMA into guest memory needs that memory pinned. "When the device is assigned, the
virtual machine must have a memory reservation for the full configured memory size" (KB 309986);
NVIDIA requires "reserve all guest memory (all locked)" for vGPU, and SR-IOV and PVRDMA need it
too. Without it the VM does not power on.

## Example
```
memsize = "262144"
sched.mem.min = "131072"
```
Use instead:
```
memsize = "262144"
sched.mem.min = "262144"
sched.mem.pin = "TRUE"
```

## Fix safety
Unsafe: a full reservation can fail admission control on a host without that much free memory.
The fix sets `sched.mem.min` to `memsize` and `sched.mem.pin = "TRUE"` (the `.vmx` side of
"Reserve all guest memory (All locked)").

## References
- Broadcom KB 309986 (full memory reservation for DirectPath I/O)
- NVIDIA Virtual GPU Software User Guide (all memory locked for vGPU VMs)
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.devices().empty() || ctx.config().memory_fully_reserved()) return;
  const auto mem = ctx.config().memory_mb();
  const auto min = ctx.config().memory_reservation_mb();
  const Setting* min_setting = ctx.config().find("sched.mem.min");
  if (min_setting == nullptr) min_setting = ctx.config().find("sched.mem.minSize");
  const SourceSpan where =
      min_setting != nullptr ? min_setting->value_span : anchor_for_missing_key(ctx);
  const std::string message =
      mem ? fmt::format(
                "{} MB of {} MB guest memory reserved, but passthrough devices need all "
                "of it reserved",
                min.value_or(0), *mem)
          : std::string(
                "passthrough devices need all guest memory reserved, and memsize is not "
                "set");
  Diagnostic& d = sink.report(kPT008, where, message);
  if (mem && ctx.document() != nullptr) {
    Fix fix{"Reserve all guest memory (sched.mem.min = memsize, sched.mem.pin = TRUE)",
            FixSafety::unsafe,
            {}};
    const vmx::Document& doc = *ctx.document();
    const std::string mem_text = std::to_string(*mem);
    const std::string_view min_key = min_setting != nullptr ? std::string_view(min_setting->key)
                                                            : std::string_view("sched.mem.min");
    // Both keys are edited on the original document; two insertions at one place keep order.
    for (TextEdit& e : vmx::set(doc, min_key, mem_text)) fix.edits.push_back(std::move(e));
    for (TextEdit& e : vmx::set(doc, "sched.mem.pin", "TRUE")) fix.edits.push_back(std::move(e));
    if (edits_are_disjoint(fix.edits)) d.fix = std::move(fix);
  }
}

}  // namespace pt008

extern const Check kPT008{
    .id = "PT008",
    .name = "memory-not-fully-reserved",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::unsafe,
    .summary = "Passthrough devices without all guest memory reserved",
    .doc = pt008::kDoc,
    .check = &pt008::check,
};

}  // namespace vmxkit::checks
