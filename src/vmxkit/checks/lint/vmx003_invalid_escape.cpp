// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/formats/vmx/escape.h"

namespace vmxkit::checks {
namespace vmx003 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `|` in a value that is not followed by two hex digits.

## Why is this bad?
In a `.vmx`, `|` starts an escape: `|22` is `"`, `|0A` a newline, `|7C` a `|` itself. VMware's
reader keeps a `|` without two hex digits as it is, but other readers (libvirt's, for one) reject
the value, and a value like `a|41` does not say `a|41` to VMware: it says `aA`. A literal `|`
should be written `|7C`, as VMware's own writer does.

## Example
```
annotation = "GPU|NIC pair"
```
Use instead:
```
annotation = "GPU|7CNIC pair"
```

## Fix safety
Safe: VMware reads `|7C` as exactly the `|` it read before.

## References
- open-vm-tools `lib/misc/escape.c` (`Escape_Undo`, `Escape_Do`)
- libvirt `src/vmx/vmx.c` (`virVMXUnescapeHex` rejects a lone `|`)
)md";

void check(const Context& ctx, Sink& sink) {
  const vmx::Document* doc = ctx.document();
  if (doc == nullptr) return;
  for (const vmx::Line& line : doc->lines()) {
    if (!line.is_entry()) continue;
    const std::string_view raw = doc->raw_value(line);
    std::vector<TextEdit> edits;
    std::size_t first = std::string_view::npos;
    for (std::size_t at = vmx::escape::find_invalid_escape(raw); at != std::string_view::npos;
         at = vmx::escape::find_invalid_escape(raw, at + 1)) {
      if (first == std::string_view::npos) first = at;
      const std::size_t offset = line.value_begin + at;
      edits.push_back({offset, offset + 1, "|7C"});
    }
    if (edits.empty()) continue;
    const std::size_t begin = line.value_begin + first;
    Diagnostic& d = sink.report(
        kVMX003, begin, begin + 1,
        fmt::format("'|' in the value of '{}' does not start a |XX escape", doc->key(line)));
    d.fix = Fix{"Write the '|' as |7C", FixSafety::safe, std::move(edits)};
  }
}

}  // namespace vmx003

extern const Check kVMX003{
    .id = "VMX003",
    .name = "invalid-escape",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::safe,
    .summary = "A '|' that does not start a |XX escape",
    .doc = vmx003::kDoc,
    .check = &vmx003::check,
};

}  // namespace vmxkit::checks
