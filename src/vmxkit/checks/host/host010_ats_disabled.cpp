// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host010 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags an RDMA NIC (ConnectX/BlueField) whose Address Translation Service capability is present
but disabled (`ATSCtl: Enable-`).

## Why is this bad?
In a VM, ACS stays on, and "to run with maximum performance inside virtual machines, ATS needs
to be enabled in network adapters" (NCCL): without ATS the NIC's peer reads and writes of GPU
memory go through the root complex.

## Example
`ATSCtl: Enable-, Smallest Translation Unit: 00` on the NIC.

## Fix safety
No automatic fix: `mlxconfig -d BDF set ATS_ENABLED=true` on the host, then reboot the host.

## References
- NCCL troubleshooting, "PCI Access Control Services (ACS)" (ATS in virtual machines)
- NVIDIA AI Enterprise, optimizing VM configuration for AI inference, appendix "ATS and ACS
  configuration" ("ATS must be enabled on the NIC"; `mlxconfig ATS_ENABLED`)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  for (const pci::Device& d : ctx.host().devices()) {
    if (d.role != pci::Role::rdma_nic || !d.ats_present || d.ats_enabled != false) continue;
    const std::string bdf = d.bdf.to_string();
    sink.report(kHOST010, bdf,
                "ATS is off (ATSCtl Enable-): in a VM, where ACS stays on, GPUDirect RDMA "
                "goes through the root complex",
                fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host", bdf));
  }
}

}  // namespace host010

extern const Check kHOST010{
    .id = "HOST010",
    .name = "ats-disabled",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "ATS is off on an RDMA NIC: in a VM, GPUDirect RDMA goes through the root complex",
    .doc = host010::kDoc,
    .check_host = &host010::check,
};

}  // namespace vmxkit::checks
