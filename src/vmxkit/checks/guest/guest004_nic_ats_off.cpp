// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest004 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a passthrough RDMA NIC (or the PF of a VF) whose ATS capability is off in the guest's
`lspci -vvv` (`ATSCtl: Enable-`). A NIC whose capabilities lspci could not read (not run as
root), or a guest without `lspci -vvv`, is reported as not checked (GUEST012); a hypervisor that
does not expose the ATS capability shows none, and nothing is reported.

## Why is this bad?
In a VM, ACS stays on, and without ATS the NIC's peer reads and writes of GPU memory are routed
through the root complex: GPUDirect RDMA is slow or fails.

## Example
`ATSCtl: Enable-, Smallest Translation Unit` under the ConnectX-7's `Address Translation
Service (ATS)` capability:
`0000:0b:00.0 (ConnectX-7): warning: ATS is off (ATSCtl Enable-): in a VM, where ACS stays on,
the NIC's peer reads and writes of GPU memory go through the root complex`

## Fix safety
No automatic fix; on the host: `mlxconfig -d <host BDF> set ATS_ENABLED=true`, reboot the host,
then check that the guest's `lspci -vvv` shows `ATSCtl: Enable+`.

## References
- NCCL troubleshooting, "PCI Access Control Services (ACS)" ("To run with maximum performance
  inside virtual machines, ATS needs to be enabled in network adapters")
- NVIDIA AI Enterprise, VM configuration appendix (ATS via `mlxconfig ATS_ENABLED`, verify
  `Enable+`)
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  if (ctx.nics().empty()) return;
  if (!ctx.guest().has_lspci_verbose()) {
    sink.not_checked(kGUEST004, "ATS on the NIC", "`lspci -vvv` as root in the guest");
    return;
  }
  const pci::Host& h = ctx.pci();
  for (const std::size_t i : ctx.nics()) {
    const pci::Device& d = h.at(i);
    const pci::Device& owner = d.physfn ? h.at(*d.physfn) : d;
    if (owner.ats_present && owner.ats_enabled == false) {
      sink.report(kGUEST004, ctx.describe(i),
                  "ATS is off (ATSCtl Enable-): in a VM, where ACS stays on, the NIC's peer reads "
                  "and writes of GPU memory go through the root complex",
                  "on the host: mlxconfig -d <host BDF of this NIC> set ATS_ENABLED=true, reboot "
                  "the host, then check `lspci -vvv` in the guest shows ATSCtl: Enable+",
                  ctx.origin_of(i));
    } else if (!owner.ats_present && owner.port_type == pci::PortType::unknown) {
      sink.not_checked(kGUEST004, fmt::format("ATS on {}", d.bdf.to_string()),
                       "`lspci -vvv` run as root (its capabilities)");
    }
  }
}

}  // namespace guest004

extern const Check kGUEST004{
    .id = "GUEST004",
    .name = "nic-ats-off",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "ATS is off on a passthrough NIC (ATSCtl Enable-)",
    .doc = guest004::kDoc,
    .check_guest = &guest004::check,
};

}  // namespace vmxkit::checks
