// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo006 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a GPU and its peer whose path has a bridge with ACS P2P redirect enabled
(`ReqRedir+`, `CmpltRedir+` or `EgressCtrl+` in `ACSCtl`), unless the redirect is bypassed:
every redirecting bridge on the path has Direct Translated P2P on (`DirectTrans+`) and the
device that starts the transfers has ATS on (the NIC of a GPU and a NIC, both GPUs of a pair).

## Why is this bad?
ACS redirect sends peer requests up to the root complex instead of across the switch both
devices share: GPUDirect traffic is slow, and on some platforms hangs. `RelaxACSforP2P` in the
VM does not change the host's bridges. In a VM ACS stays on (it keeps the devices' DMA under
the IOMMU), so the way through is the combination NVIDIA's VM configuration uses: ATS on the
ConnectX, which asks the IOMMU for translations and then sends translated requests, and
`DirectTrans+` on the bridges, which lets translated requests go peer to peer past the
redirect (PCIe ACS Direct Translated P2P). NVIDIA's recipe runs with `ReqRedir+ CmpltRedir+
UpstreamFwd+ EgressCtrl- DirectTrans+` and ATS on the NIC; that path is not flagged.

A GPU pair that a `nvidia-smi topo -m` given with `--host` joins by NVLink (`NV#`) is not
flagged either: its P2P goes over NVLink, which NCCL prefers to any PCIe path (`PATH_NVL`),
not through the redirecting bridge.

## Example
`ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+` on the switch port above the NIC.

## Fix safety
No automatic fix. On bare metal, clear ACS on the path (`setpci -s BDF ECAP_ACS+0x6.w=0000`, or
firmware settings); in a VM keep ACS, enable ATS on the NIC (TOPO007) and `DirectTrans` on the
bridges.

## References
- NCCL troubleshooting, "PCI Access Control Services (ACS)"
- NVIDIA AI Enterprise, optimizing VM configuration for AI inference, appendix "ATS and ACS
  configuration": for maximum GPUDirect RDMA performance in a VM "ATS must be enabled on the
  NIC", and ACS on switches and root ports "configured to allow ATS to work"
- NVIDIA's VM configuration as quoted in nccl-tests issue #380 (`ReqRedir+ CmpltRedir+
  UpstreamFwd+ EgressCtrl- DirectTrans+`, ATS on the ConnectX)
- Linux `drivers/pci/p2pdma.c` (ACS redirect makes P2P go through the root complex)
- NCCL `src/graph/paths.cc` (`ncclTopoSetPaths`: the better path type wins; `PATH_NVL` is below
  every PCIe type in `src/graph/topo.h`)
)md";

// The finding: the pair, each redirecting bridge with its ACSCtl, and the settings that clear
// the redirect (on bare metal) or let translated requests past it (in a VM).
void report_redirect(const Context& ctx, Sink& sink, const PeerPair& p) {
  const pci::Host& host = *ctx.host();
  const std::vector<std::size_t>& bridges = p.verdict.path.acs_redirect;
  std::vector<std::string> bits;
  bits.reserve(bridges.size());
  for (const std::size_t br : bridges) {
    bits.push_back(
        fmt::format("{} ({})", host.at(br).bdf.to_string(), host.at(br).acs->ctl_text()));
  }
  report_pair(ctx, sink, kTOPO006, p,
              fmt::format("{} <-> {}: ACS redirects P2P to the root complex on {}", p.gpu->label,
                          p.peer->label, fmt::join(bits, ", ")),
              fmt::format("on bare metal: setpci -s {} ECAP_ACS+0x6.w=0000 (or disable ACS/IOMMU "
                          "in firmware); in a VM keep ACS, enable ATS on the NIC and DirectTrans "
                          "on the bridge (NVIDIA's VM configuration: ReqRedir+ CmpltRedir+ "
                          "UpstreamFwd+ EgressCtrl- DirectTrans+)",
                          host.at(bridges.front()).bdf.to_string()));
}

void check(const Context& ctx, Sink& sink) {
  for (const PeerPair& p : peer_pairs(ctx)) {
    if (!reasons_of(p, pci::ReasonKind::acs_redirect).empty()) report_redirect(ctx, sink, p);
  }
}

}  // namespace topo006

extern const Check kTOPO006{
    .id = "TOPO006",
    .name = "acs-redirect-on-path",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "ACS P2P redirect on a bridge between a GPU and its peer",
    .doc = topo006::kDoc,
    .check = &topo006::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
