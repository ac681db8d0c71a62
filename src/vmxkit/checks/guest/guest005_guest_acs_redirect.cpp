// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest005 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags each virtual bridge on the path between a GPU and an RDMA NIC of the guest whose ACS
control redirects peer-to-peer traffic (`ReqRedir+`, `CmpltRedir+` or `EgressCtrl+` in
`ACSCtl`), for each GPU-NIC pair whose path it is on. Without `lspci -vvv` it is reported as not
checked (GUEST012).

## Why is this bad?
The guest kernel treats peer DMA through such a bridge as going through the host bridge and
refuses P2P mappings. The host's ACS is a separate matter (leave it on in a VM; see HOST012).

## Example
`ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-` on
the guest's root port 00:16.0 above the NIC:
`0000:00:16.0: warning: virtual bridge 0000:00:16.0 on the path between 0000:03:00.0 and
0000:0b:00.0 redirects peer traffic (...): the guest kernel refuses P2P DMA through it`

## Fix safety
No automatic fix; in the guest: `setpci -s BDF ECAP_ACS+0x6.w=0000` (not persistent), or
`pci=disable_acs_redir=BDF` on the kernel command line.

## References
- Linux `drivers/pci/p2pdma.c` (`pci_bridge_has_acs_redir`)
- pciutils `ls-ecaps.c` (`cap_acs`)
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  if (ctx.gpus().empty() || ctx.nics().empty()) return;
  if (!ctx.guest().has_lspci_verbose()) {
    sink.not_checked(kGUEST005, "ACS on the virtual bridges", "`lspci -vvv` as root in the guest");
    return;
  }
  const pci::Host& h = ctx.pci();
  for (const std::size_t gi : ctx.gpus()) {
    for (const std::size_t ni : ctx.nics()) {
      const pci::Path path = pci::classify(h, gi, ni);
      for (const std::size_t br : path.acs_redirect) {
        const std::string bdf = h.at(br).bdf.to_string();
        sink.report(kGUEST005, bdf,
                    fmt::format("virtual bridge {} on the path between {} and {} redirects peer "
                                "traffic ({}): the guest kernel refuses P2P DMA through it",
                                bdf, h.at(gi).bdf.to_string(), h.at(ni).bdf.to_string(),
                                h.at(br).acs->ctl_text()),
                    fmt::format("in the guest: setpci -s {} ECAP_ACS+0x6.w=0000 (or the kernel "
                                "parameter pci=disable_acs_redir={}); the host's ACS stays as it "
                                "is",
                                bdf, bdf),
                    ctx.origin_of(br));
      }
    }
  }
}

}  // namespace guest005

extern const Check kGUEST005{
    .id = "GUEST005",
    .name = "guest-acs-redirect",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary =
        "a virtual bridge on a GPU-NIC path redirects peer traffic (ACSCtl ReqRedir/"
        "CmpltRedir/EgressCtrl)",
    .doc = guest005::kDoc,
    .check_guest = &guest005::check,
};

}  // namespace vmxkit::checks
