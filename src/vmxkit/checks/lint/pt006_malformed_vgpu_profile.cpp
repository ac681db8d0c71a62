// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::checks {
namespace pt006 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `pciPassthruN.vgpu` profile name that is not in the form NVIDIA's vGPU manager reports:
`grid_<board>-<framebuffer GB><series>` or `nvidia_<board>-...`, lower case, optionally with a
MIG slice count (`grid_a100-40c`, `nvidia_l40s-48q`, `grid_a100-3-20c`). Whether a name in this
form is one a board offers is PT013's question.

## Why is this bad?
The profile must equal one of the host's `sharedGpuCapabilities` names; a profile in another case,
with spaces or without the `grid_` prefix (`A100-40C`) matches none and the VM does not power on.

## Example
```
pciPassthru0.vgpu = "A100-40C"
```
Use instead:
```
pciPassthru0.vgpu = "grid_a100-40c"
```

## Fix safety
No automatic fix: check the names the host offers (`HostConfigInfo.sharedGpuCapabilities`).

## References
- ansible-collections/community.vmware `vmware_guest_vgpu.py` (checks against the host's list)
- NVIDIA Virtual GPU Software User Guide (profile names)
)md";

// ": did you mean nvidia_h100-80c?" for `grid_H100-80C`, from the vGPU table.
std::string nearest_text(std::string_view value) {
  const devices::VgpuLookup found = devices::VgpuTable::builtin().lookup(value);
  if (found.nearest.empty()) return {};
  return fmt::format("; did you mean {}?", fmt::join(found.nearest, " or "));
}

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    const Setting* s = ctx.device_setting(*v.entry, "vgpu");
    if (s == nullptr || devices::parse_vgpu_profile(s->value)) continue;
    sink.report(kPT006, s->value_span,
                fmt::format("vGPU profile '{}' is not of the form grid_<board>-<GB><series> "
                            "(such as grid_a100-40c){}",
                            s->value, nearest_text(s->value)));
  }
}

}  // namespace pt006

extern const Check kPT006{
    .id = "PT006",
    .name = "malformed-vgpu-profile",
    .severity = Severity::warning,
    .summary = "A vGPU profile name not in NVIDIA's form",
    .doc = pt006::kDoc,
    .check = &pt006::check,
};

}  // namespace vmxkit::checks
