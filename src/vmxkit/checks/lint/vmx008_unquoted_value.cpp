// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace vmx008 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a value written without quotes (`sata0.present = TRUE`, `pciPassthru.64bitMMIOSizeGB=128`,
`key =`).

## Why is this bad?
VMware's writer always quotes values, and while the low-level reader accepts an unquoted value,
users report ESXi rejecting files that Workstation accepts because of unquoted values
(DrDonk/OC4VM #104). An unquoted value also ends at the first space or `#`, which surprises.

## Example
```
pciPassthru.64bitMMIOSizeGB=128
```
Use instead:
```
pciPassthru.64bitMMIOSizeGB="128"
```

`scsiN:M.virtualSSD` is left alone: Packer writes it unquoted on purpose (hashicorp/packer
PR #2707), and whether VMware minds is not documented.

## Fix safety
Safe: quoting does not change the value VMware reads.

## References
- open-vm-tools `lib/dict/dictll.c` (`DictLL_MarshalLine` writes `name = "value"`)
- DrDonk/OC4VM issue #104
)md";

bool ends_with_folded(std::string_view key, std::string_view suffix) {
  return key.size() >= suffix.size() && iequals(key.substr(key.size() - suffix.size()), suffix);
}

void check(const Context& ctx, Sink& sink) {
  const vmx::Document* doc = ctx.document();
  if (doc == nullptr) return;
  for (const vmx::Line& line : doc->lines()) {
    if (!line.is_entry() || line.quoted) continue;
    const std::string_view raw = doc->raw_value(line);
    if (raw.starts_with("\xE2\x80")) continue;  // curly quotes: VMX004 says what is wrong
    if (ends_with_folded(doc->key(line), ".virtualSSD")) continue;  // unquoted on purpose
    Diagnostic& d = sink.report(
        kVMX008, line.value_begin, line.value_end,
        raw.empty() ? fmt::format("empty value of '{}' is not written as \"\"", doc->key(line))
                    : fmt::format("value of '{}' is not quoted", doc->key(line)));
    std::string quoted = fmt::format("\"{}\"", raw);
    if (raw.empty() && line.comment_begin < line.end && line.value_begin == line.comment_begin) {
      quoted.push_back(' ');
    }
    d.fix = Fix{"Quote the value", FixSafety::safe, {{line.value_begin, line.value_end, quoted}}};
  }
}

}  // namespace vmx008

extern const Check kVMX008{
    .id = "VMX008",
    .name = "unquoted-value",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::safe,
    .summary = "A value written without quotes",
    .doc = vmx008::kDoc,
    .check = &vmx008::check,
};

}  // namespace vmxkit::checks
