// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/parse_problems.h"

namespace vmxkit::checks {
namespace vmx001 {

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

void check(const Context& ctx, Sink& sink) { report_line_problems(kVMX001, ctx, sink); }

}  // namespace vmx001

const Check& rule_for(vmx::Problem kind) {
  // VMX002 has the line cut short; VMX001 every other line VMware's reader rejects.
  return kind == vmx::Problem::unterminated_quote ? kVMX002 : kVMX001;
}

void report_line_problems(const Check& rule, const Context& ctx, Sink& sink) {
  if (ctx.document() == nullptr) return;
  for (vmx::LineProblem& p : ctx.document()->problems()) {
    if (&rule_for(p.kind) == &rule) sink.report(rule, p.begin, p.end, std::move(p.message));
  }
}

std::vector<Diagnostic> line_diagnostics(std::span<const vmx::LineProblem> problems) {
  Sink sink;
  for (const vmx::LineProblem& p : problems) {
    sink.report(rule_for(p.kind), p.begin, p.end, p.message);
  }
  return std::move(sink.diagnostics());
}

extern const Check kVMX001{
    .id = "VMX001",
    .name = "malformed-line",
    .severity = Severity::error,
    .summary = "A line VMware's reader cannot parse",
    .doc = vmx001::kDoc,
    .check = &vmx001::check,
};

}  // namespace vmxkit::checks
