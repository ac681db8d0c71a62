// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host/iommu_common.h"

namespace vmxkit::checks {
namespace host003 {

constexpr std::string_view kDoc = R"md(
## What it does
With a kernel command line (`--cmdline /proc/cmdline` or `/etc/default/grub`), flags a Linux
host whose IOMMU is turned off (`intel_iommu=off`, `amd_iommu=off`, `iommu=off`) or not turned
on (`intel_iommu=on` missing on an Intel host). An error on a KVM host; a warning on a host of
unknown kind, saying it matters on a KVM host; not checked on bare metal.

## Why is this bad?
KVM assigns a device to a VM through VFIO, which needs the IOMMU: without it neither a GPU nor
an SR-IOV VF can be given to a VM. AMD hosts have the IOMMU on unless it is turned off; Intel
hosts need `intel_iommu=on` (on most distributions' kernels).

## Example
`GRUB_CMDLINE_LINUX_DEFAULT="quiet"` on an Intel KVM host.

## Fix safety
No automatic fix: the finding gives the GRUB line (`intel_iommu=on iommu=pt` or
`amd_iommu=on iommu=pt`), then `update-grub` and a reboot.

## References
- Linux `Documentation/admin-guide/kernel-parameters.txt` (`intel_iommu`, `amd_iommu`, `iommu`)
- Linux `Documentation/driver-api/vfio.rst` (VFIO needs an IOMMU)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  if (!ctx.cmdline() || ctx.esxi() || ctx.kind() == pci::HostKind::bare_metal) return;
  const pci::CpuVendor cpu = pci::cpu_vendor(ctx.host());
  const pci::IommuArgs args = pci::iommu_args(*ctx.cmdline(), cpu);
  if (args.on && !args.off) return;
  const bool unknown = ctx.kind() == pci::HostKind::unknown;
  const std::string for_kvm =
      unknown ? " (needed on a KVM host; `--host-kind bare-metal` if it runs no VMs)" : "";
  const std::string message =
      args.off ? "the IOMMU is turned off on the kernel command line: devices and SR-IOV VFs "
                 "cannot be assigned to VMs" +
                     for_kvm
               : fmt::format("the kernel command line does not turn the IOMMU on ({}){}",
                             args.on_arg, for_kvm);
  Finding& f = sink.report(kHOST003, cmdline_where(*ctx.cmdline()), message, iommu_grub_fix(cpu));
  if (unknown) f.severity = Severity::warning;
}

}  // namespace host003

extern const Check kHOST003{
    .id = "HOST003",
    .name = "iommu-off",
    .kind = Kind::host,
    .severity = Severity::error,
    .summary = "the kernel command line leaves the IOMMU off: no device can be assigned to a VM",
    .doc = host003::kDoc,
    .check_host = &host003::check,
};

}  // namespace vmxkit::checks
