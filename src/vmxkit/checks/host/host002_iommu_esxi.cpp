// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host002 {

constexpr std::string_view kDoc = R"md(
## What it does
Notes that a kernel command line was given (`--cmdline`) for an ESXi host, where the IOMMU is
not set on a command line.

## Why is this bad?
ESXi has no GRUB: its IOMMU (Intel VT-d, AMD-Vi) is a setting of the server firmware, and the
kernel command line of another system says nothing about it. `esxcli hardware pci list`'s
`Passthru Capable` shows whether the IOMMU lets a device be passed through.

## Example
`vmxkit host-check esxcli-pci.txt --cmdline /proc/cmdline`

## Fix safety
Nothing to fix; enable VT-d / AMD-Vi in the server's firmware setup if `Passthru Capable` is
false (HOST005).

## References
- VMware vSphere documentation, "Enable Passthrough for a Network Device on a Host" (DirectPath
  I/O needs Intel VT-d or AMD-Vi enabled in the BIOS)
- `esxcli hardware pci list` (`Passthru Capable`)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  if (!ctx.cmdline() || !ctx.esxi()) return;
  sink.report(kHOST002, ctx.cmdline()->path,
              "the host is ESXi (esxcli capture): its IOMMU is not set on a kernel command "
              "line but in the server firmware (Intel VT-d, AMD-Vi); esxcli's Passthru "
              "Capable shows whether it is on");
}

}  // namespace host002

extern const Check kHOST002{
    .id = "HOST002",
    .name = "iommu-esxi",
    .kind = Kind::host,
    .severity = Severity::info,
    .summary = "a kernel command line given for an ESXi host, whose IOMMU is a firmware setting",
    .doc = host002::kDoc,
    .check_host = &host002::check,
};

}  // namespace vmxkit::checks
