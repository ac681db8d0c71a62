// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "vmxkit/analysis/nccl_log.h"
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest019 {

constexpr std::string_view kDoc = R"md(
## What it does
Compares the path type NCCL itself computed between each GPU and its nearest NIC with the one
vmxkit computes from the guest's `lspci` (NCCL's view, GUEST002), and warns where they differ,
naming both. NCCL's type comes from its topology dump (`NCCL_TOPO_DUMP_FILE`: the tree NCCL
built, whose paths vmxkit computes as NCCL's `ncclTopoSetPaths` does) or from the distance of
its log's `GPU Direct RDMA ... (distance D > L)` line (named by the log's NCCL version). The
reason given: an `NCCL_TOPO_FILE` NCCL ran with (its tree replaces the guest's, GUEST015), NUMA
nodes (NCCL reads each device's `numa_node` from the guest's `/sys`; a device without one is on
its CPU node -1), or captures that do not show the same guest. A log's HCA is the guest's NIC
of that name (its `NET/IB : Using` list against `ibv_devinfo`), else the NIC of that index among
the guest's RDMA NICs in PCI order. A decision whose numbers the log gives no version to name,
or whose GPU it does not let be told, is left out.

## Why is this bad?
vmxkit's advice (GUEST002, `vmxkit nccl-topo`) rests on the path type it computes; where NCCL
sees another one, NCCL's GPUDirect RDMA decision differs from the advice, and a topology file
written from the capture may not give NCCL the tree it was meant to.

## Example
`0000:04:00.0 (H100 PCIe): warning: NCCL computes SYS between this GPU and 0000:0c:00.0
(NCCL_TOPO_DUMP_FILE dump.xml:12) where vmxkit computes PHB from the guest's lspci: ...`

## Fix safety
No automatic fix: take `lspci -vvv`, the NCCL log and the dump in one boot of the guest; where
NCCL ran with a topology file, write it again from this capture (`vmxkit nccl-topo`); where
NUMA nodes differ, give the VM a NUMA layout (`numa.nodeAffinity`, vNUMA) that puts GPU and
NIC on one node.

## References
- NCCL `src/graph/topo.cc` (`ncclTopoGetSystem`, the dump: `NCCL_TOPO_DUMP_FILE`,
  `ncclTopoDumpXmlToFile`), `src/graph/xml.cc` (`ncclTopoGetXmlFromSys`: `numa_node`),
  `src/graph/paths.cc` (`ncclTopoSetPaths`, `ncclTopoCheckGdr`), NCCL 2.30.7 (github
  NVIDIA/nccl commit 5067397c)
- github NVIDIA/nccl issue #246 (NCCL's types and `nvidia-smi topo -m` disagree) and issue
  #1502 (PHB where NODE was expected)
)md";

std::string why(const GuestContext& ctx, const guest::NcclPathDiff& d) {
  const guest::Guest& g = ctx.guest();
  if (const auto& f = g.nccl_topo_file()) {
    return fmt::format(
        "NCCL ran with NCCL_TOPO_FILE={} ({}), whose tree replaces the guest's for "
        "the devices it names (GUEST015)",
        f->value, f->where.to_string());
  }
  if (d.nccl == guest::NcclPathType::sys) {
    return "NCCL puts the two on different NUMA nodes of the guest (it reads each device's "
           "numa_node from /sys when it starts; a device without one is on its CPU node -1), "
           "the lspci capture on one";
  }
  if (d.vmxkit == pci::PathClass::sys) {
    return "the lspci capture puts the two on different NUMA nodes (its NUMA node lines), NCCL "
           "on one (it reads each device's numa_node from the guest's /sys when it starts)";
  }
  return "NCCL reads the guest's /sys when it starts, vmxkit the lspci capture: were both taken "
         "in the same boot, with the same devices?";
}

void report(const GuestContext& ctx, FindingSink& sink, const guest::NcclPathDiff& d) {
  const pci::Device& nic = ctx.pci().at(d.nic_index);
  std::string nic_text = nic.bdf.to_string();
  for (const guest::NcclPair& p : ctx.nccl_view()) {
    if (p.nic_index == d.nic_index && !p.nic_name.empty()) nic_text += " (" + p.nic_name + ")";
    if (p.nic_index == d.nic_index) break;
  }
  sink.report(kGUEST019, ctx.describe(d.gpu_index),
              fmt::format("NCCL computes {} between this GPU and {} ({} {}) where vmxkit computes "
                          "{} from the guest's lspci: {}",
                          guest::to_string(d.nccl), nic_text,
                          d.from_dump ? "NCCL_TOPO_DUMP_FILE" : "NCCL's log,", d.where.to_string(),
                          pci::to_string(d.vmxkit), why(ctx, d)),
              "capture `lspci -vvv`, NCCL's log and its NCCL_TOPO_DUMP_FILE in one boot of the "
              "guest; write a topology file again from that capture (`vmxkit nccl-topo`)",
              origin(d.where));
}

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  const std::vector<guest::NcclGdrDecision> decisions = guest::nccl_gdr_decisions(g);
  if (decisions.empty() && ctx.nccl_dump() == nullptr) return;  // nothing of NCCL's to compare
  const std::vector<guest::NcclPair>& view = ctx.nccl_view();
  if (view.empty()) {
    if (!g.has_full_lspci()) {
      sink.not_checked(kGUEST019, "NCCL's path types against the guest's PCI tree",
                       "the whole `lspci -vvv` (or `lspci -tv`) of the guest");
    }
    return;
  }
  std::vector<guest::NcclPathDiff> diffs;
  if (ctx.nccl_dump() != nullptr) diffs = guest::nccl_dump_path_diffs(g, *ctx.nccl_dump(), view);
  for (const guest::NcclPathDiff& d : guest::nccl_log_path_diffs(g, decisions, view)) {
    const bool known = std::any_of(diffs.begin(), diffs.end(), [&](const guest::NcclPathDiff& x) {
      return x.gpu_index == d.gpu_index && x.nic_index == d.nic_index;
    });
    if (!known) diffs.push_back(d);
  }
  for (const guest::NcclPathDiff& d : diffs) report(ctx, sink, d);
}

}  // namespace guest019

extern const Check kGUEST019{
    .id = "GUEST019",
    .name = "nccl-path-differs",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary =
        "the path type NCCL computed between a GPU and its NIC (its log or topology "
        "dump) is not the one vmxkit computes from the guest's lspci",
    .doc = guest019::kDoc,
    .check_guest = &guest019::check,
};

}  // namespace vmxkit::checks
