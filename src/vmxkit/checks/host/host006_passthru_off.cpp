// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host/owner_common.h"

namespace vmxkit::checks {
namespace host006 {

constexpr std::string_view kDoc = R"md(
## What it does
With an ESXi capture (`esxcli hardware pci list`, or `esxcli hardware pci pcipassthru list`),
notes each GPU or RDMA NIC that is not enabled for passthrough (`Configured Owner: VMkernel`).

## Why is this bad?
It depends on the use: right for vGPU (the vGPU manager owns the GPU) and for the PF of SR-IOV
VFs (the VMkernel driver makes the VFs), but a VM that gets the device through DirectPath I/O
will not power on. host-check does not know the use, so this is an info; `lint --host` (TOPO009)
and `generate` judge it for the VM's use.

## Example
`Configured Owner: VMkernel` on a GPU meant for DirectPath I/O.

## Fix safety
No automatic fix: `esxcli hardware pci pcipassthru set -d BDF -e true -a` (ESXi 7.0 and later),
or Configure > PCI Devices in the vSphere Client, and a reboot on older releases.

## References
- `esxcli hardware pci list` fields (`Configured Owner`, `Current Owner`, `Passthru Capable`)
- `esxcli hardware pci pcipassthru list` and `set -d BDF -e true|false -a` (ESXi 7.0 and later)
- VMware vSphere documentation, "Enable Passthrough for a Network Device on a Host"
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  report_owner_problems(ctx, sink, kHOST006, pci::OwnerProblem::not_enabled);
}

}  // namespace host006

extern const Check kHOST006{
    .id = "HOST006",
    .name = "passthru-off",
    .kind = Kind::host,
    .severity = Severity::info,
    .summary = "a GPU or RDMA NIC is not enabled for passthrough (right for vGPU and SR-IOV PFs)",
    .doc = host006::kDoc,
    .check_host = &host006::check,
};

}  // namespace vmxkit::checks
