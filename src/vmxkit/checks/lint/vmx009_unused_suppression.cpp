// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace vmx009 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `# vmxkit: disable=ID` (or `disable-file=ID`) comment that suppresses nothing, or that
names a rule that does not exist.

## Why is this bad?
A suppression that no longer matches a finding hides nothing today but will hide a real finding
tomorrow, and a misspelled rule id suppresses nothing at all while looking as if it does.

## Example
```
# vmxkit: disable=P2P001
pciPassthru.allowP2P = "TRUE"
```

## Fix safety
Safe when the comment is a line of its own that names only this rule: the line is removed.

## References
- ruff `RUF100` (unused `noqa`), shellcheck `# shellcheck disable=`
)md";

}  // namespace vmx009

// Reported by the engine after suppressions are applied, so there is no check function.
extern const Check kVMX009{
    .id = "VMX009",
    .name = "unused-suppression",
    .severity = Severity::warning,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::safe,
    .summary = "A suppression comment that suppresses nothing",
    .doc = vmx009::kDoc,
    .check = nullptr,
};

}  // namespace vmxkit::checks
