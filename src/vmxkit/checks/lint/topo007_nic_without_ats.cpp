// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <string>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo007 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a ConnectX/BlueField NIC paired with a GPU in the VM whose Address
Translation Service is present but disabled (`ATSCtl: Enable-`).

## Why is this bad?
In a VM, ACS stays on, and "to run with maximum performance inside virtual machines, ATS needs
to be enabled in network adapters" (NCCL). Without ATS, GPUDirect RDMA traffic goes through the
root complex.

## Example
`ATSCtl: Enable-, Smallest Translation Unit: 00` on the NIC.

## Fix safety
No automatic fix: `mlxconfig -d <dev> set ATS_ENABLED=true` on the host, then reboot the host
(a VM reboot is not enough).

## References
- NVIDIA AI Enterprise "Optimizing VM configuration for AI inference", appendix (ATS_ENABLED)
- NCCL troubleshooting, ACS and ATS in virtual machines
)md";

void check(const Context& ctx, Sink& sink) {
  for (const PeerPair& p : peer_pairs(ctx)) {
    if (p.peer->cls != DeviceClass::nic) continue;
    for (const pci::Reason* r : reasons_of(p, pci::ReasonKind::ats_disabled)) {
      const std::string nic = ctx.host()->at(*r->subject).bdf.to_string();  // or the VF's PF
      report_pair(ctx, sink, kTOPO007, p,
                  fmt::format("ATS is off on {} (ATSCtl Enable-): in a VM, where ACS stays on, "
                              "P2P goes through the root complex",
                              nic),
                  fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host", nic));
    }
  }
}

}  // namespace topo007

extern const Check kTOPO007{
    .id = "TOPO007",
    .name = "nic-without-ats",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "An RDMA NIC paired with a GPU whose ATS is off",
    .doc = topo007::kDoc,
    .check = &topo007::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
