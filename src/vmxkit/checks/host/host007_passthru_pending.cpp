// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host/owner_common.h"

namespace vmxkit::checks {
namespace host007 {

constexpr std::string_view kDoc = R"md(
## What it does
With an `esxcli hardware pci list` capture, flags a GPU or RDMA NIC that is enabled for
passthrough (`Configured Owner: VM Passthru`) but still owned by the VMkernel
(`Current Owner`) because the change has not been applied.

## Why is this bad?
Until the host applies the change (a reboot before ESXi 7.0, `-a` with esxcli on 7.0 and
later), a VM that gets the device will not power on.

## Example
`Configured Owner: VM Passthru`, `Current Owner: VMkernel`.

## Fix safety
No automatic fix: reboot the host, or `esxcli hardware pci pcipassthru set -d BDF -e true -a`
(ESXi 7.0 and later).

## References
- `esxcli hardware pci list` fields (`Configured Owner`, `Current Owner`, `Passthru Capable`)
- `esxcli hardware pci pcipassthru list` and `set -d BDF -e true|false -a` (ESXi 7.0 and later)
- VMware vSphere documentation, "Enable Passthrough for a Network Device on a Host"
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  report_owner_problems(ctx, sink, kHOST007, pci::OwnerProblem::pending);
}

}  // namespace host007

extern const Check kHOST007{
    .id = "HOST007",
    .name = "passthru-pending",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "passthrough is enabled for a device but not applied until the host reboots",
    .doc = host007::kDoc,
    .check_host = &host007::check,
};

}  // namespace vmxkit::checks
