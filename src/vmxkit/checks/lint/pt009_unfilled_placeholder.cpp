// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace pt009 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a value that is still a placeholder written by `vmxkit generate` (`<fill in: ...>`): the
host address of a device generated from a catalogue model without `--host`, or the host's
system UUID (`esxcli system uuid get`) without `--system-id`.

## Why is this bad?
The VM cannot power on with a placeholder for a device address or system id: ESXi finds no
device and reports an invalid configuration.

## Example
```
pciPassthru0.id = "<fill in: host address of the H100 PCIe in .vmx form SSSSS:BBB:DD.F>"
```
Run `vmxkit generate --host HOST --system-id UUID` instead, or fill the value in.

## Fix safety
No automatic fix: the value comes from the host.

## References
- `vmxkit generate` (placeholders for host-specific values)
)md";

constexpr std::string_view kMark = "<fill in:";

void check(const Context& ctx, Sink& sink) {
  for (const Setting& s : ctx.config().settings) {
    if (s.value.find(kMark) == std::string::npos) continue;
    sink.report(kPT009, s.value_span,
                fmt::format("'{}' is a placeholder to fill in: {}", s.key, s.value));
  }
}

}  // namespace pt009

extern const Check kPT009{
    .id = "PT009",
    .name = "unfilled-placeholder",
    .severity = Severity::error,
    .summary = "A generated placeholder left in a value",
    .doc = pt009::kDoc,
    .check = &pt009::check,
};

}  // namespace vmxkit::checks
