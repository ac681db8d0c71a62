// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/rules/rules.h"

namespace vmxkit::rules {
namespace {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a line that VMware's `.vmx` reader cannot read: a key without `=`, a key with whitespace
in it, a line starting with `=`, a `"` inside an unquoted value, or text after the value that is
not a `#` comment.

## Why is this bad?
VMware's reader (open-vm-tools `lib/dict/dictll.c`) returns such a line as unparsable, and users
report that Workstation and ESXi then call the VM "corrupted" and refuse to open or power it on.
Lines like these usually come from pasting documentation (`pciPassthru.use64bitMMIO TRUE` from a
settings table), from a template engine, or from a backslash "escape" (`"a\"b"`) that `.vmx` does
not have.

## Example
```
pciPassthru.use64bitMMIO TRUE
```
Use instead:
```
pciPassthru.use64bitMMIO = "TRUE"
```

## Fix safety
No automatic fix: what the line meant cannot be known. vmxkit keeps the line byte for byte.

## References
- open-vm-tools `lib/dict/dictll.c` (`DictLL_UnmarshalLine`)
- NVIDIA cloud-native-docs `openshift/nvaie-with-ocp.rst` (settings written as `key VALUE`)
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.document() == nullptr) return;
  for (Diagnostic& d : ctx.document()->diagnostics()) {
    if (d.rule_id != kVMX001.id) continue;
    sink.report(kVMX001, d.begin, d.end, std::move(d.message));
  }
}

}  // namespace

extern const Rule kVMX001{
    .id = "VMX001",
    .name = "malformed-line",
    .severity = Severity::error,
    .summary = "A line VMware's reader cannot parse",
    .doc = kDoc,
    .check = &check,
};

}  // namespace vmxkit::rules
