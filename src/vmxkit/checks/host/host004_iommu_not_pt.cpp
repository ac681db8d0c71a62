// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host/iommu_common.h"

namespace vmxkit::checks {
namespace host004 {

constexpr std::string_view kDoc = R"md(
## What it does
With a kernel command line, flags a Linux host that is (or may be) bare metal whose IOMMU is on
and translates DMA (no `iommu=pt`).

## Why is this bad?
NVIDIA's GPUDirect RDMA guide asks for the IOMMU to be off or in pass-through (1:1) mode on bare
metal: with translation on, peer-to-peer transactions between a GPU and a NIC are remapped and
fail or go through the root complex. A KVM host assigns devices either way, so this is not
flagged there.

## Example
`GRUB_CMDLINE_LINUX_DEFAULT="intel_iommu=on"` on a host that runs NCCL jobs on bare metal.

## Fix safety
No automatic fix: add `iommu=pt` to `GRUB_CMDLINE_LINUX_DEFAULT`, run `update-grub`, reboot.

## References
- NVIDIA GPUDirect RDMA guide, "Supported Systems" (IOMMU)
- NCCL troubleshooting, "IOMMU" (`iommu=pt`)
- Linux `Documentation/admin-guide/kernel-parameters.txt` (`iommu=pt`)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  if (!ctx.cmdline() || ctx.esxi() || ctx.kind() == pci::HostKind::kvm) return;
  const pci::IommuArgs args = pci::iommu_args(*ctx.cmdline(), pci::cpu_vendor(ctx.host()));
  if (!args.on || args.off || args.pt) return;
  std::string message =
      "the IOMMU translates DMA (no iommu=pt): bare-metal GPUDirect RDMA needs 1:1 "
      "(pass-through) translation";
  if (ctx.kind() == pci::HostKind::unknown) {
    message += " (on bare metal; a KVM host assigns devices either way)";
  }
  sink.report(kHOST004, cmdline_where(*ctx.cmdline()), std::move(message),
              "add iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run "
              "update-grub and reboot");
}

}  // namespace host004

extern const Check kHOST004{
    .id = "HOST004",
    .name = "iommu-not-pt",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "the IOMMU translates DMA on a bare-metal host: GPUDirect RDMA needs iommu=pt",
    .doc = host004::kDoc,
    .check_host = &host004::check,
};

}  // namespace vmxkit::checks
