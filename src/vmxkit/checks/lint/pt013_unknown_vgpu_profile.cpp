// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::checks {
namespace pt013 {

constexpr std::string_view kDoc = R"md(
## What it does
Checks each `pciPassthruN.vgpu` profile in NVIDIA's form against vmxkit's table of NVIDIA vGPU
types (`src/vmxkit/devices/vgpu_types.tsv`, the table `generate --vgpu` reads too): an error for
a type the named board does not offer (`grid_a100-99c`) or a name with the other prefix than the
one NVIDIA's type name gives (`grid_l40s-48q` for `NVIDIA L40S-48Q`, which ESXi lists as
`nvidia_l40s-48q`), with the nearest real names; an info for a board the table does not know,
saying that the name was not checked.

## Why is this bad?
ESXi gives a VM only the vGPU types its host's vGPU manager offers, by exact name: a name no
board offers leaves the VM unable to power on. Where the table does not know the prefix of a
board family's names (the A800 boards, some Hopper boards), both `grid_` and `nvidia_` are
accepted.

## Example
```
pciPassthru0.vgpu = "grid_h100-99c"
```
Use one of the types the board offers, such as `nvidia_h100-80c`.

## Fix safety
No automatic fix: the profile decides the VM's device. `vmxkit generate --vgpu` lists the types
the host's GPUs offer when it refuses a name.

## References
- NVIDIA AI Enterprise release 6, appendix "NVIDIA AI Enterprise and NVIDIA vGPU (C-Series)"
  (C-series types per board)
- NVIDIA vGPU host driver's `vgpuConfig.xml` (vGPU 17.x): type names, framebuffer, CUDA
- vSphere API `HostConfigInfo.sharedGpuCapabilities` (the names a host offers)
)md";

void check(const Context& ctx, Sink& sink) {
  const devices::VgpuTable& table = devices::VgpuTable::builtin();
  for (const VmDevice& v : ctx.devices()) {
    const Setting* s = ctx.device_setting(*v.entry, "vgpu");
    if (s == nullptr) continue;
    const devices::VgpuLookup found = table.lookup(s->value);
    switch (found.match) {
      case devices::VgpuMatch::known:
      case devices::VgpuMatch::malformed:  // PT006
        break;
      case devices::VgpuMatch::wrong_prefix:
        sink.report(kPT013, s->value_span,
                    fmt::format("vGPU profile '{}': ESXi names NVIDIA's type {} '{}'", s->value,
                                found.type->type_name, found.type->profile));
        break;
      case devices::VgpuMatch::unknown_type:
        sink.report(kPT013, s->value_span,
                    fmt::format("vGPU profile '{}': the {} board offers no such type; nearest: {}",
                                s->value, found.parts->board, fmt::join(found.nearest, ", ")));
        break;
      case devices::VgpuMatch::unknown_board: {
        Diagnostic& d = sink.report(
            kPT013, s->value_span,
            fmt::format("vGPU profile '{}': vmxkit's vGPU table knows no board '{}', so the name "
                        "and its framebuffer are not checked (docs/devices.md)",
                        s->value, found.parts->board));
        d.severity = Severity::info;
        break;
      }
    }
  }
}

}  // namespace pt013

extern const Check kPT013{
    .id = "PT013",
    .name = "unknown-vgpu-profile",
    .severity = Severity::error,
    .summary = "A vGPU profile no board of NVIDIA's vGPU tables offers",
    .doc = pt013::kDoc,
    .check = &pt013::check,
};

}  // namespace vmxkit::checks
