// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::checks {
namespace p2p004 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM with two or more vGPUs and `pciPassthru.allowP2P = "TRUE"`, where peer-to-peer
between the vGPUs is expected: a warning for each MIG-backed vGPU (which gets no P2P at all),
else one info saying what P2P between vGPUs needs.

## Why is this bad?
NVIDIA: for vGPUs, "P2P transfers over PCIe are not supported"; P2P works only over NVLink,
between time-sliced vGPUs that each use all of the framebuffer of a physical GPU with NVLink.
MIG-backed vGPUs are not supported for it. So a PCIe switch shared by two physical GPUs does
not give their vGPUs P2P: NCCL falls back to copies through host memory.

## Example
```
pciPassthru0.vgpu = "grid_a100-3-20c"
pciPassthru1.vgpu = "grid_a100-3-20c"
pciPassthru.allowP2P = "TRUE"
```

## Fix safety
No automatic fix: for P2P use time-sliced profiles of the whole framebuffer on NVLink-connected
GPUs (`grid_a100dx-80c` on HGX A100 80GB), or full GPU passthrough.

## References
- NVIDIA AI Enterprise documentation, vGPU features: peer-to-peer CUDA transfers
- NVIDIA AI Enterprise documentation, vGPU features: NVSwitch ("Only time-sliced vGPUs are
  supported. MIG-backed vGPUs are not supported")
)md";

void check(const Context& ctx, Sink& sink) {
  const auto allow = ctx.config().get_bool("pciPassthru.allowP2P");
  if (!allow.value_or(false)) return;
  std::vector<std::pair<const Setting*, devices::VgpuProfile>> vgpus;
  for (const VmDevice& v : ctx.devices()) {
    const Setting* s = ctx.device_setting(*v.entry, "vgpu");
    if (s == nullptr) continue;
    if (const auto p = devices::parse_vgpu_profile(s->value)) vgpus.emplace_back(s, *p);
  }
  if (vgpus.size() < 2) return;
  bool any_mig = false;
  for (const auto& [s, p] : vgpus) {
    if (!p.mig()) continue;
    any_mig = true;
    sink.report(kP2P004, s->value_span,
                fmt::format("vGPU '{}' is MIG-backed: it gets no peer-to-peer transfers with the "
                            "VM's other vGPUs",
                            s->value));
  }
  if (any_mig) return;
  const Setting* allow_setting = ctx.config().find("pciPassthru.allowP2P");
  Diagnostic& d = sink.report(
      kP2P004, allow_setting->value_span,
      "P2P between vGPUs goes only over NVLink, and only between time-sliced vGPUs that each use a "
      "whole GPU's framebuffer: NVIDIA does not support vGPU P2P over PCIe");
  d.severity = Severity::info;
}

}  // namespace p2p004

extern const Check kP2P004{
    .id = "P2P004",
    .name = "vgpu-p2p-unsupported",
    .severity = Severity::warning,
    .summary = "P2P expected between vGPUs, which NVIDIA supports over NVLink only",
    .doc = p2p004::kDoc,
    .check = &p2p004::check,
};

}  // namespace vmxkit::checks
