// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/parse_problems.h"

namespace vmxkit::checks {
namespace vmx002 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a quoted value whose closing `"` is missing on its line.

## Why is this bad?
A `.vmx` value cannot span lines, so VMware's reader rejects the line and the VM is reported as
corrupted. It happens when an editor or a broken conversion truncates a line (for example a
multi-byte character cut in half that swallowed the closing quote), or when a value was meant to
contain a newline: write that as `|0A`.

## Example
```
sharedFolder0.hostPath = "D:\Virtual Machines\shared
```
Use instead:
```
sharedFolder0.hostPath = "D:\Virtual Machines\shared"
```

## Fix safety
No automatic fix: where the value was meant to end cannot be known.

## References
- open-vm-tools `lib/dict/dictll.c` (quoted values end at the next `"`)
)md";

// The parser finds the line (vmx::Document::problems()); rule_for() says it is this rule's.
void check(const Context& ctx, Sink& sink) { report_line_problems(kVMX002, ctx, sink); }

}  // namespace vmx002

extern const Check kVMX002{
    .id = "VMX002",
    .name = "unterminated-quote",
    .severity = Severity::error,
    .summary = "A quoted value without its closing quote",
    .doc = vmx002::kDoc,
    .check = &vmx002::check,
};

}  // namespace vmxkit::checks
