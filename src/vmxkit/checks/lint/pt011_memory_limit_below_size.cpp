// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/formats/vmx/edit.h"

namespace vmxkit::checks {
namespace pt011 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM with present passthrough, vGPU or SR-IOV VF devices whose memory limit
(`sched.mem.max`, MB; the ConfigSpec's `memoryAllocation.limit`) is below its memory size
(`memsize`). A limit of -1 is no limit.

## Why is this bad?
Passthrough needs all guest memory reserved (PT008: KB 309986), and vSphere requires a
configured limit to be "greater than or equal to the reservation" (vSphere API,
`ResourceAllocationInfo`). A limit below the memory size therefore cannot hold together with
the full reservation: leave the memory limit unlimited for passthrough VMs.

## Example
```
memsize = "65536"
sched.mem.min = "65536"
sched.mem.max = "32768"
```

## Fix safety
Unsafe: the fix removes `sched.mem.max` (unlimited), which changes the VM's resource policy.

## References
- vSphere Web Services API, `ResourceAllocationInfo` (limit >= reservation; -1 is no limit)
- Broadcom KB 309986 (full memory reservation for DirectPath I/O)
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.devices().empty()) return;
  const auto mem = ctx.config().memory_mb();
  const Setting* limit_setting = ctx.config().find("sched.mem.max");
  const auto limit = ctx.config().get_int("sched.mem.max");
  if (!mem || limit_setting == nullptr || !limit || *limit < 0 || *limit >= *mem) return;
  Diagnostic& d = sink.report(
      kPT011, limit_setting->value_span,
      fmt::format("memory limit {} MB is below the {} MB of guest memory, which passthrough "
                  "devices need reserved (a limit must be at least the reservation)",
                  *limit, *mem));
  if (ctx.document() != nullptr) {
    Fix fix{"Remove the memory limit (sched.mem.max)", FixSafety::unsafe,
            vmx::unset(*ctx.document(), limit_setting->key)};
    if (!fix.edits.empty()) d.fix = std::move(fix);
  }
}

}  // namespace pt011

extern const Check kPT011{
    .id = "PT011",
    .name = "memory-limit-below-size",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::unsafe,
    .summary = "A memory limit below the memory size of a VM with passthrough devices",
    .doc = pt011::kDoc,
    .check = &pt011::check,
};

}  // namespace vmxkit::checks
