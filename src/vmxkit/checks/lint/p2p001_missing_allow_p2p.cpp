// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/util.h"

namespace vmxkit::checks {
namespace p2p001 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM that passes a GPU together with a NIC or another GPU (DirectPath, vGPU or SR-IOV VF)
without `pciPassthru.allowP2P = "TRUE"`. Two vGPUs without a NIC are not flagged: NVIDIA
supports no vGPU P2P over PCIe (see P2P004).

## Why is this bad?
Without it the hypervisor does not let passthrough devices DMA to each other, so GPUDirect RDMA
between the GPU and the NIC (and GPU-to-GPU P2P) falls back to bouncing through host memory:
slower, and silent. For a vGPU with a NIC no VMware or NVIDIA page found says whether the key
is needed (NVIDIA's vGPU pages list GPUDirect RDMA as supported on some vGPUs, without VM
settings); the rule applies the passthrough guidance to it, and says so here rather than guess
that it is not needed.

## Example
```
pciPassthru0.vendorId = "0x10de"
pciPassthru1.vendorId = "0x15b3"
```
Add:
```
pciPassthru.allowP2P = "TRUE"
```

## Fix safety
Unsafe: it changes what the guest's devices may do, and P2P only helps when the devices share a
PCIe switch or root complex (check with `vmxkit lint --host`).

## References
- NVIDIA cloud-native-docs `gpu-operator/gpu-operator-rdma.rst` (required VM options for
  GPUDirect RDMA on vSphere)
- NVIDIA AI Enterprise with OpenShift on vSphere (`pciPassthru.allowP2P = true`)
)md";

void check(const Context& ctx, Sink& sink) {
  if (!ctx.wants_p2p() || ctx.config().get_bool(kAllowP2P).value_or(false)) return;
  const Setting* existing = ctx.config().find(kAllowP2P);
  const SourceSpan where = existing != nullptr ? existing->value_span : anchor_for_missing_key(ctx);
  Diagnostic& d = sink.report(
      kP2P001, where,
      fmt::format("{} GPU(s) and {} NIC(s) passed through, but pciPassthru.allowP2P is not TRUE",
                  ctx.count(DeviceClass::gpu), ctx.count(DeviceClass::nic)));
  d.fix =
      set_key_fix(ctx, kAllowP2P, "TRUE", "Set pciPassthru.allowP2P = \"TRUE\"", FixSafety::unsafe);
}

}  // namespace p2p001

extern const Check kP2P001{
    .id = "P2P001",
    .name = "missing-allow-p2p",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::unsafe,
    .summary = "GPU with a NIC or GPU but pciPassthru.allowP2P not TRUE",
    .doc = p2p001::kDoc,
    .check = &p2p001::check,
};

}  // namespace vmxkit::checks
