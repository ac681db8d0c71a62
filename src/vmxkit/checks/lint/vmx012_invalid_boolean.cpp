// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/known_keys.h"

namespace vmxkit::checks {
namespace vmx012 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a boolean passthrough or memory key (`pciPassthru.allowP2P`, `pciPassthruN.present`,
`sched.mem.pin`, `hypervisor.cpuid.v0`...) whose value is not a boolean VMware reads: `TRUE`,
`FALSE` (any case), `1`, `0`, `yes`, `no`.

## Why is this bad?
A value such as `enabled`, `TRUE ` (with a space inside the quotes) or `on` is not read as true:
the setting is off, silently.

## Example
```
pciPassthru.allowP2P = "enabled"
```
Use instead:
```
pciPassthru.allowP2P = "TRUE"
```

## Fix safety
No automatic fix: what the value meant cannot be known for sure.

## References
- VMware's writer writes booleans as `"TRUE"` / `"FALSE"`; libvirt reads only `true`/`false`
  (`src/util/virconf.c`).
)md";

void check(const Context& ctx, Sink& sink) {
  for (const Setting& s : ctx.config().settings) {
    if (known_type(s.key) != ValueType::boolean) continue;
    if (parse_bool(s.value)) continue;
    if (s.value.starts_with("\xE2\x80")) continue;  // curly quotes: VMX004 reports them
    sink.report(
        kVMX012, s.value_span,
        fmt::format(R"('{}' is not a boolean for '{}': write "TRUE" or "FALSE")", s.value, s.key));
  }
}

}  // namespace vmx012

extern const Check kVMX012{
    .id = "VMX012",
    .name = "invalid-boolean",
    .severity = Severity::error,
    .summary = "A boolean key whose value is not TRUE or FALSE",
    .doc = vmx012::kDoc,
    .check = &vmx012::check,
};

}  // namespace vmxkit::checks
