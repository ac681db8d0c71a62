// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/known_keys.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace vmx011 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a passthrough, P2P or MMIO key written in another letter case than VMware's
(`pciPassthru.use64BitMMIO`, `pciPassthru0.deviceID`).

## Why is this bad?
VMware compares keys ignoring case, so the VM works. But tools that compare exactly (Terraform's
`extra_config`, scripts that `grep` the file, vCenter automation that looks a key up in
`config.extraConfig`) do not find it, and the next tool that adds the key in VMware's spelling
creates a duplicate that makes the VM refuse to start.

## Example
```
pciPassthru.use64BitMMIO = "TRUE"
```
Use instead:
```
pciPassthru.use64bitMMIO = "TRUE"
```

## Fix safety
Safe: VMware reads the same key either way.

## References
- hashicorp/packer issues #608, #1596, #2574 (case handling of `.vmx` keys)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const Setting& s : ctx.config().settings) {
    if (!iequals(s.key.substr(0, std::min<std::size_t>(s.key.size(), 11)), "pciPassthru")) {
      continue;
    }
    const auto canonical = canonical_key(s.key);
    if (!canonical || *canonical == s.key) continue;
    Diagnostic& d = sink.report(kVMX011, s.key_span,
                                fmt::format("'{}' is spelled '{}' by VMware", s.key, *canonical));
    if (ctx.document() != nullptr) {
      d.fix = Fix{fmt::format("Write '{}'", *canonical),
                  FixSafety::safe,
                  {{s.key_span.begin, s.key_span.end, *canonical}}};
    }
  }
}

}  // namespace vmx011

extern const Check kVMX011{
    .id = "VMX011",
    .name = "miscased-passthrough-key",
    .severity = Severity::style,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::safe,
    .summary = "A passthrough key in another letter case than VMware's",
    .doc = vmx011::kDoc,
    .check = &vmx011::check,
};

}  // namespace vmxkit::checks
