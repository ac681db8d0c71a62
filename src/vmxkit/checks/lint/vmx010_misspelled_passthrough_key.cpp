// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/known_keys.h"

namespace vmxkit::checks {
namespace vmx010 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a key that is almost one of the VM-wide passthrough keys (`pciPassthru.allowP2P`,
`pciPassthru.RelaxACSforP2P`, `pciPassthru.use64bitMMIO`, `pciPassthru.64bitMMIOSizeGB`): known
misspellings from published guides (`pciPassthru.set.usebitMMIO`, `pciPassthru.RelaxACSCheck`), a
VM-wide key written with a device index (`pciPassthru0.use64bitMMIO`), or a near miss of the
prefix or name (`pciPassthrough.allowP2P`, `pciPassthru.use64bitMIMO`).

## Why is this bad?
VMware ignores keys it does not know, without a word: the VM powers on without the setting you
meant, and the failure shows up later as a GPU whose BARs do not fit or RDMA that runs through
host memory.

## Example
```
pciPassthru.set.usebitMMIO = "TRUE"
```
Use instead:
```
pciPassthru.use64bitMMIO = "TRUE"
```

## Fix safety
Safe when the intended key is not in the file yet: the key is renamed and its value kept. When the
intended key is already there, no fix is offered (remove the misspelled line yourself).

## References
- Frank Denneman, vSphere ML Accelerator Spectrum Deep Dive (table with `pciPassthru.set.usebitMMIO`)
- NVIDIA cloud-native-docs `gpu-operator/gpu-operator-rdma.rst` (the real keys)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const Setting& s : ctx.config().settings) {
    const auto meant = likely_meant(s.key);
    if (!meant) continue;
    Diagnostic& d = sink.report(
        kVMX010, s.key_span,
        fmt::format("unknown key '{}', probably meant '{}': VMware ignores unknown keys", s.key,
                    *meant));
    if (const Setting* real = ctx.config().find(*meant)) {
      d.notes.push_back({real->key_span.begin, real->key_span.end, "the real key is set here"});
    } else if (ctx.document() != nullptr) {
      d.fix = Fix{fmt::format("Rename to '{}'", *meant),
                  FixSafety::safe,
                  {{s.key_span.begin, s.key_span.end, *meant}}};
    }
  }
}

}  // namespace vmx010

extern const Check kVMX010{
    .id = "VMX010",
    .name = "misspelled-passthrough-key",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::safe,
    .summary = "A misspelled P2P or 64-bit MMIO key that VMware ignores",
    .doc = vmx010::kDoc,
    .check = &vmx010::check,
};

}  // namespace vmxkit::checks
