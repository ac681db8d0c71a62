// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::checks {
namespace pt012 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM with several vGPUs whose profiles are for different boards (`grid_a100-40c` with
`nvidia_a16-8q`) or of different series (`nvidia_a40-48c` with `nvidia_a40-48q`).

## Why is this bad?
NVIDIA supports several vGPUs in one VM "provided the board type and the series of all the vGPUs
are the same" (NVIDIA AI Enterprise, multi-vGPU support). A VM that mixes them is a
configuration the vGPU manager does not support.

## Example
```
pciPassthru0.vgpu = "grid_a100-40c"
pciPassthru1.vgpu = "nvidia_a16-16q"
```

## Fix safety
No automatic fix: choose profiles of one board and one series (`vmxkit generate --vgpu`).

## References
- NVIDIA AI Enterprise documentation, vGPU features: multiple vGPUs in one VM
)md";

void check(const Context& ctx, Sink& sink) {
  const Setting* first = nullptr;
  std::optional<devices::VgpuProfile> first_profile;
  for (const VmDevice& v : ctx.devices()) {
    const Setting* s = ctx.device_setting(*v.entry, "vgpu");
    if (s == nullptr) continue;
    const auto p = devices::parse_vgpu_profile(s->value);
    if (!p) continue;
    if (!first_profile) {
      first = s;
      first_profile = p;
      continue;
    }
    const bool board = p->board != first_profile->board;
    const bool series = p->series != first_profile->series;
    if (!board && !series) continue;
    Diagnostic& d = sink.report(
        kPT012, s->value_span,
        fmt::format("vGPU profile '{}' is {} than '{}': NVIDIA supports several vGPUs in one VM "
                    "only of one board type and one series",
                    s->value,
                    board && series ? "for another board, and of another series,"
                    : board         ? "for another board"
                                    : "of another series",
                    first->value));
    d.notes.push_back({first->value_span.begin, first->value_span.end, "the first vGPU is here"});
  }
}

}  // namespace pt012

extern const Check kPT012{
    .id = "PT012",
    .name = "mixed-vgpu-profiles",
    .severity = Severity::error,
    .summary = "vGPUs of different boards or series in one VM",
    .doc = pt012::kDoc,
    .check = &pt012::check,
};

}  // namespace vmxkit::checks
