// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host/owner_common.h"

namespace vmxkit::checks {
namespace host005 {

constexpr std::string_view kDoc = R"md(
## What it does
With an `esxcli hardware pci list` capture, flags a GPU or RDMA NIC that ESXi says cannot be
passed through (`Passthru Capable: false`).

## Why is this bad?
A VM cannot get the device through DirectPath I/O. The usual causes are the IOMMU (VT-d,
AMD-Vi) or SR-IOV turned off in the server's firmware, or a device whose firmware does not
allow it. vGPU and SR-IOV VFs do not need the PF itself passed through, so this is a warning.

## Example
`Passthru Capable: false` in the device's `esxcli hardware pci list` block.

## Fix safety
No automatic fix: check the device's firmware and the host's BIOS (VT-d/AMD-Vi, SR-IOV)
settings, or use another device.

## References
- `esxcli hardware pci list` fields (`Configured Owner`, `Current Owner`, `Passthru Capable`)
- `esxcli hardware pci pcipassthru list` and `set -d BDF -e true|false -a` (ESXi 7.0 and later)
- VMware vSphere documentation, "Enable Passthrough for a Network Device on a Host"
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  report_owner_problems(ctx, sink, kHOST005, pci::OwnerProblem::incapable);
}

}  // namespace host005

extern const Check kHOST005{
    .id = "HOST005",
    .name = "passthru-incapable",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "ESXi says a GPU or RDMA NIC cannot be passed through (Passthru Capable: false)",
    .doc = host005::kDoc,
    .check_host = &host005::check,
};

}  // namespace vmxkit::checks
