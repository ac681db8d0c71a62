// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/path_detail.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo004 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a GPU and a NIC of the VM whose path crosses the SMP
interconnect between CPU sockets: `SYS` in `nvidia-smi topo -m`.

Each GPU is judged against its nearest NICs in the VM only, as NCCL gives a GPU its local
NICs (`ncclTopoGetLocalNet`): a NIC on the other socket is an error only when the GPU has no
NIC on its own. A full node with a NIC per socket, or per switch, is clean.

## Why is this bad?
NVIDIA: GPUDirect RDMA across "CPU/IOH <-> QPI/HT <-> CPU/IOH" "may be extremely
performance-limited or even not work reliably", and NCCL does not use it. The P2P keys in the
`.vmx` cannot create a path the platform cannot route.

## Example
A GPU on NUMA node 0 with a ConnectX port on node 1.

## Fix safety
No automatic fix: choose a NIC on the GPU's socket, best under the same PCIe switch
(`vmxkit topo HOST` shows the best NIC per GPU; `vmxkit generate` picks it).

## References
- NVIDIA GPUDirect RDMA documentation, "Supported Systems"
- NCCL `src/graph/paths.cc` (`ncclTopoCheckGdr`, default level PXB), `src/graph/search.cc`
  (`ncclTopoGetLocalNet`: a GPU's NICs are those with the best path to it)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const PeerPair& p : peer_pairs(ctx)) {
    if (p.peer->cls != DeviceClass::nic) continue;  // GPU<->NIC: GPUDirect RDMA
    if (p.verdict.path.cls != pci::PathClass::sys) continue;
    report_pair(ctx, sink, kTOPO004, p,
                fmt::format("{} and {}, its nearest NIC in the VM, are on different CPU sockets "
                            "(SYS): {}",
                            p.gpu->label, p.peer->label, path_detail(*ctx.host(), p.verdict.path)));
  }
}

}  // namespace topo004

extern const Check kTOPO004{
    .id = "TOPO004",
    .name = "gpu-peer-across-sockets",
    .severity = Severity::error,
    .summary = "A GPU and its P2P peer on different CPU sockets (SYS)",
    .doc = topo004::kDoc,
    .check = &topo004::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
