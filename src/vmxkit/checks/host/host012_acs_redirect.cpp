// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host012 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags each PCI bridge on the path between a GPU and a NIC (or two GPUs) whose ACS control
redirects peer-to-peer traffic (`ReqRedir+`, `CmpltRedir+` or `EgressCtrl+` in `ACSCtl`), once
per bridge: on the path of every pair, or on a host too large for that, of each GPU and its
nearest peers. A bridge whose redirect no pair is stopped by, because it has `DirectTrans+` and
the device that starts the transfers has ATS on, is noted as an info.

## Why is this bad?
A redirecting bridge sends peer traffic up to the root complex: P2P between GPU and NIC then
crosses the CPU, or fails. In a VM ACS stays on, and GPUDirect RDMA works only as NVIDIA's VM
configuration has it: `DirectTrans+` on the bridges and ATS on the NIC, so translated requests
go peer to peer.

## Example
`ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-` on a
switch downstream port above a GPU and a ConnectX.

## Fix safety
No automatic fix. Bare metal: `setpci -s BDF ECAP_ACS+0x6.w=0000` (not persistent) or
`pci=disable_acs_redir=BDF` on the kernel command line. For VMs: keep ACS, enable ATS on the NIC
(`mlxconfig ATS_ENABLED=true`) and DirectTrans on the bridges.

## References
- Linux `drivers/pci/p2pdma.c` (`pci_bridge_has_acs_redir`)
- NCCL troubleshooting, "PCI Access Control Services (ACS)"
- NVIDIA AI Enterprise, VM configuration appendix "ATS and ACS configuration"
- NVIDIA's VM configuration as quoted in nccl-tests issue #380 (`ReqRedir+ CmpltRedir+
  UpstreamFwd+ EgressCtrl- DirectTrans+`, ATS on the ConnectX)
)md";

class AcsReport {
 public:
  AcsReport(const pci::Host& host, FindingSink& sink) : host_(host), sink_(sink) {}

  void pair(std::size_t a, std::size_t b, const pci::Path& path) {
    const bool bypassed = pci::acs_redirect_bypassed(host_, a, b, path);
    for (const std::size_t br : path.acs_redirect) {
      if (bypassed) {
        bypassed_.emplace(br, std::pair(a, b));
      } else if (reported_.insert(br).second) {
        warn(br, a, b);
      }
    }
  }

  // A bridge whose redirect no pair is stopped by: said, not warned about.
  void finish() {
    for (const auto& [br, pair] : bypassed_) {
      if (reported_.count(br) != 0) continue;
      const pci::Device& d = host_.at(br);
      Finding& f = sink_.report(
          kHOST012, d.bdf.to_string(),
          fmt::format("ACS on bridge {} redirects peer traffic ({}), but DirectTrans+ lets the "
                      "translated requests of devices with ATS on go peer to peer (on the path "
                      "{} <-> {}), as NVIDIA's VM configuration has it",
                      d.bdf.to_string(), d.acs->ctl_text(), host_.at(pair.first).bdf.to_string(),
                      host_.at(pair.second).bdf.to_string()));
      f.severity = Severity::info;
    }
  }

 private:
  void warn(std::size_t br, std::size_t a, std::size_t b) {
    const pci::Device& d = host_.at(br);
    const std::string bdf = d.bdf.to_string();
    sink_.report(
        kHOST012, bdf,
        fmt::format("ACS on bridge {} redirects peer traffic to the root complex ({}), on the path "
                    "{} <-> {}; in a VM ACS stays on, and GPUDirect needs ATS on the NIC and "
                    "DirectTrans on the bridge (NVIDIA's VM configuration)",
                    bdf, d.acs->ctl_text(), host_.at(a).bdf.to_string(),
                    host_.at(b).bdf.to_string()),
        fmt::format("bare metal: setpci -s {} ECAP_ACS+0x6.w=0000 (not persistent), or "
                    "pci=disable_acs_redir={} on the kernel command line",
                    bdf, bdf));
  }

  const pci::Host& host_;
  FindingSink& sink_;
  std::set<std::size_t> reported_;
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> bypassed_;  // bridge -> a pair
};

void check(const HostContext& ctx, FindingSink& sink) {
  const pci::Host& host = ctx.host();
  const pci::Topology& topo = ctx.topology();
  AcsReport report(host, sink);
  for (const pci::PairVerdict& v : topo.pairs) report.pair(v.a, v.b, v.path);
  for (std::size_t i = 0; i < topo.nearest.size(); ++i) {
    const std::size_t g = topo.gpus[i];
    for (const pci::Peer& p : topo.nearest[i].gpus) {
      report.pair(g, topo.gpus[p.index], pci::classify(host, g, topo.gpus[p.index]));
    }
    for (const pci::Peer& p : topo.nearest[i].nics) {
      report.pair(g, topo.nics[p.index], pci::classify(host, g, topo.nics[p.index]));
    }
  }
  report.finish();
}

}  // namespace host012

extern const Check kHOST012{
    .id = "HOST012",
    .name = "acs-redirect",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "a bridge between a GPU and a NIC redirects peer traffic to the root complex (ACS)",
    .doc = host012::kDoc,
    .check_host = &host012::check,
};

}  // namespace vmxkit::checks
