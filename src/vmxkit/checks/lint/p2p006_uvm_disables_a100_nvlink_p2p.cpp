// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/core/text.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::checks {
namespace p2p006 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags `pciPassthruN.cfg.enable_uvm = "1"` (unified memory) on an A100 vGPU of a VM with two or
more A100 vGPUs that could use NVLink P2P: time-sliced types whose NVLink P2P support NVIDIA's
tables do not deny (the boards `a100`, `a100x`, `a100d`, `a100dx`).

## Why is this bad?
NVIDIA: "On NVIDIA A100 (Ampere) GPUs, P2P over NVLink and NVSwitch is disabled when Unified
Virtual Memory (UVM) is enabled on a multi-vGPU VM." The guest's `nvidia-smi topo -m` then shows
PIX (PCIe) instead of NV12, and since NVIDIA supports no vGPU P2P over PCIe, NCCL copies through
host memory without saying so. The restriction is specific to the A100; Hopper and newer are
not affected.

## Example
```
pciPassthru0.vgpu = "grid_a100dx-80c"
pciPassthru0.cfg.enable_uvm = "1"
pciPassthru1.vgpu = "grid_a100dx-80c"
pciPassthru1.cfg.enable_uvm = "1"
pciPassthru.allowP2P = "TRUE"
```

## Fix safety
No automatic fix: CUDA applications that use unified memory (`cudaMallocManaged`) need UVM.
Choose: NVLink P2P (set `pciPassthruN.cfg.enable_uvm = "0"` on every vGPU, as NVIDIA advises)
or UVM.

## References
- NVIDIA AI Enterprise documentation, vGPU for Compute features, "Peer-To-Peer (P2P) CUDA
  Transfers", section "Peer-to-Peer CUDA Transfers Known Issues and Limitations", warning on
  A100 and UVM (https://docs.nvidia.com/ai-enterprise/release-8/8.1/infra-software/vgpu/features/p2p.html;
  the same text in release 9)
- NVIDIA AI Enterprise documentation, "Unified Virtual Memory (UVM)": `pciPassthruN.cfg.enable_uvm`
  is the vSphere setting
)md";

constexpr std::string_view kUvmField = "cfg.enable_uvm";

// A time-sliced A100 type that NVIDIA's tables do not rule out of NVLink P2P.
bool a100_nvlink_candidate(const devices::VgpuType& t) {
  return istarts_with(t.board, "a100") && t.mig_slices == 0 && t.nvlink_p2p != devices::Tri::no;
}

void check(const Context& ctx, Sink& sink) {
  std::vector<const VmDevice*> a100;
  for (const VmDevice& v : ctx.devices()) {
    if (!v.entry->vgpu) continue;
    const auto found = devices::VgpuTable::builtin().lookup(*v.entry->vgpu);
    if (found.type != nullptr && a100_nvlink_candidate(*found.type)) a100.push_back(&v);
  }
  if (a100.size() < 2) return;
  for (const VmDevice* v : a100) {
    const Setting* uvm = ctx.device_setting(*v->entry, kUvmField);
    if (uvm == nullptr || !parse_bool(uvm->value).value_or(false)) continue;
    sink.report(kP2P006, uvm->value_span,
                fmt::format("unified memory is on for {}: on A100, NVIDIA disables NVLink and "
                            "NVSwitch P2P between the VM's vGPUs when UVM is enabled, so NCCL "
                            "copies through host memory (the guest's nvidia-smi topo -m shows PIX, "
                            "not NV12)",
                            v->label));
  }
}

}  // namespace p2p006

extern const Check kP2P006{
    .id = "P2P006",
    .name = "uvm-disables-a100-nvlink-p2p",
    .severity = Severity::warning,
    .summary = "Unified memory on A100 vGPUs, which turns their NVLink P2P off",
    .doc = p2p006::kDoc,
    .check = &p2p006::check,
};

}  // namespace vmxkit::checks
