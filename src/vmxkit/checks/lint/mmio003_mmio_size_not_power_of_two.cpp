// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/mmio_requirement.h"
#include "vmxkit/checks/util.h"

namespace vmxkit::checks {
namespace mmio003 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `pciPassthru.64bitMMIOSizeGB` that is not a positive power of two (`96`, `160`, `0`,
`128GB`).

## Why is this bad?
Broadcom KB 323402: the value must be a power of two. VMware's own vhpc-toolkit refuses other
values. The VM fails to power on or gets a different window than you asked for.

## Example
```
pciPassthru.64bitMMIOSizeGB = "160"
```
Use instead:
```
pciPassthru.64bitMMIOSizeGB = "256"
```

## Fix safety
Safe: the fix rounds up to the next power of two, or to the size the devices need when that is
larger, so the window only grows.

## References
- Broadcom KB 323402
- vmware-archive/vhpc-toolkit `config_objs.py` (rejects non-powers of two)
)md";

void check(const Context& ctx, Sink& sink) {
  const Setting* s = ctx.config().find(kMmioSizeGb);
  if (s == nullptr) return;
  const auto value = parse_int(s->value);
  if (value && *value > 0 && (*value & (*value - 1)) == 0) return;
  std::uint64_t target =
      value && *value > 0 ? pci::next_pow2(static_cast<std::uint64_t>(*value)) : 0;
  if (const auto req = mmio_requirement(ctx))
    target = std::max<std::uint64_t>(target, req->result.size_gb);
  Diagnostic& d = sink.report(
      kMMIO003, s->value_span,
      fmt::format("pciPassthru.64bitMMIOSizeGB = '{}' is not a power of two in GB", s->value));
  if (target > 0) {
    d.fix = set_key_fix(ctx, s->key, std::to_string(target), fmt::format("Set it to {}", target),
                        FixSafety::safe);
  }
}

}  // namespace mmio003

extern const Check kMMIO003{
    .id = "MMIO003",
    .name = "mmio-size-not-power-of-two",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::safe,
    .summary = "A 64bitMMIOSizeGB that is not a power of two",
    .doc = mmio003::kDoc,
    .check = &mmio003::check,
};

}  // namespace vmxkit::checks
