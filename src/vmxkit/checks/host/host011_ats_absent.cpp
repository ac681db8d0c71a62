// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host011 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a Mellanox/NVIDIA NIC whose capabilities `lspci -vvv` read (its PCI Express capability is
there) but that has no ATS capability at all.

## Why is this bad?
ConnectX firmware with ATS disabled hides the capability. In a VM, where ACS stays on, the NIC
then sends its peer traffic to GPU memory through the root complex (see HOST010).

## Example
A ConnectX-7 PF in `lspci -vvv` (run as root) with `Express (v2) Endpoint` and no `Address
Translation Service (ATS)` capability.

## Fix safety
No automatic fix: `mlxconfig -d BDF set ATS_ENABLED=true`, then reboot the host.

## References
- NCCL troubleshooting, "PCI Access Control Services (ACS)"
- NVIDIA AI Enterprise, VM configuration appendix (`mlxconfig ATS_ENABLED`)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  for (const pci::Device& d : ctx.host().devices()) {
    if (d.role != pci::Role::rdma_nic || d.ats_present || d.vendor_id != 0x15b3) continue;
    if (d.port_type == pci::PortType::unknown || d.port_type_inferred) continue;
    const std::string bdf = d.bdf.to_string();
    sink.report(kHOST011, bdf,
                "no ATS capability in lspci -vvv: the NIC firmware has ATS disabled (needed for "
                "GPUDirect RDMA in a VM)",
                fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host", bdf));
  }
}

}  // namespace host011

extern const Check kHOST011{
    .id = "HOST011",
    .name = "ats-absent",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "an RDMA NIC shows no ATS capability: its firmware has ATS disabled",
    .doc = host011::kDoc,
    .check_host = &host011::check,
};

}  // namespace vmxkit::checks
