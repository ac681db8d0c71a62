// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest008 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a guest with a GPU whose `lsmod` shows no `nvidia` module while no `nvidia-smi` output was
given (nvidia-smi runs only with the driver loaded). Without `lsmod`, `lspci -k` (a GPU bound to
`nvidia`) or `nvidia-smi` it is reported as not checked (GUEST012).

## Why is this bad?
Without the NVIDIA kernel module CUDA and NCCL cannot use the GPU at all.

## Example
`lsmod` listing `mlx5_ib` and `mlx5_core` but no `nvidia`:
`nvidia: error: the nvidia kernel module is not loaded: CUDA and NCCL cannot use the GPU`

## Fix safety
No automatic fix. Install the NVIDIA data-center driver for the running kernel, then
`modprobe nvidia`; `dmesg | grep -i nvrm` says why it did not load.

## References
- NVIDIA driver installation guide, kernel modules
  (https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/)
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (ctx.gpus().empty() && g.smi_gpus().empty()) return;
  // The GPU driver: lsmod, lspci -k, or nvidia-smi (which runs only with the driver).
  const bool smi_ran =
      g.has(guest::InputKind::nvidia_smi) || g.has(guest::InputKind::nvidia_smi_query);
  if (smi_ran) return;
  const auto nvidia = g.module_loaded("nvidia");
  if (nvidia == false) {
    sink.report(kGUEST008, "nvidia",
                "the nvidia kernel module is not loaded: CUDA and NCCL cannot use the GPU",
                "install the NVIDIA data-center driver for this kernel, then `modprobe nvidia`; "
                "`dmesg | grep -i nvrm` says why it did not load");
    return;
  }
  if (nvidia) return;
  bool bound = false;
  for (const std::size_t i : ctx.gpus()) bound |= ctx.pci().at(i).driver == "nvidia";
  if (!bound) {
    sink.not_checked(kGUEST008, "NVIDIA driver loaded", "`lsmod`, `lspci -k` or `nvidia-smi`");
  }
}

}  // namespace guest008

extern const Check kGUEST008{
    .id = "GUEST008",
    .name = "gpu-driver",
    .kind = Kind::guest,
    .severity = Severity::error,
    .summary = "the NVIDIA driver is not loaded for a GPU",
    .doc = guest008::kDoc,
    .check_guest = &guest008::check,
};

}  // namespace vmxkit::checks
