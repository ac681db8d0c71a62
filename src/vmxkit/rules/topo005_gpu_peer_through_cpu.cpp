// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/rules/rules.h"
#include "vmxkit/rules/topology_pairs.h"

namespace vmxkit::rules {
namespace {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a GPU and a NIC of the VM that share no PCIe switch and
meet only at a host bridge of one socket (`PHB` or `NODE` in `nvidia-smi topo -m`), or whose
path cannot be told for lack of NUMA facts.

## Why is this bad?
Peer traffic then goes through the CPU: it works, but peer-to-peer reads are slow, and NCCL's
default GPUDirect level (PXB) will not use the pair, so RDMA runs through host memory.

## Example
A GPU and a NIC under different root ports of the same socket.

## Fix safety
No automatic fix: pick a NIC under the GPU's switch (`vmxkit topo HOST`).

## References
- NVIDIA GPUDirect RDMA documentation ("single CPU/IOH ... worse performance")
- NCCL `docs/env.rst` (`NCCL_NET_GDR_LEVEL`), `src/graph/paths.cc`
)md";

void check(const Context& ctx, Sink& sink) {
  for (const PeerPair& p : peer_pairs(ctx)) {
    if (p.peer->cls != DeviceClass::nic) continue;  // GPU<->NIC: GPUDirect RDMA
    const pci::PathClass cls = p.verdict.path.cls;
    if (cls != pci::PathClass::phb && cls != pci::PathClass::node &&
        cls != pci::PathClass::unknown) {
      continue;
    }
    report_pair(ctx, sink, kTOPO005, p,
                cls == pci::PathClass::unknown
                    ? fmt::format("path between {} and {} cannot be classified: {}", p.gpu->label,
                                  p.peer->label, p.verdict.path.detail)
                    : fmt::format("{} and {} meet only at the CPU ({}): {}", p.gpu->label,
                                  p.peer->label, pci::to_string(cls), p.verdict.path.detail));
  }
}

}  // namespace

extern const Rule kTOPO005{
    .id = "TOPO005",
    .name = "gpu-peer-through-cpu",
    .severity = Severity::warning,
    .summary = "A GPU and its P2P peer that meet only at the CPU (PHB/NODE)",
    .doc = kDoc,
    .check = &check,
    .needs_host = true,
};

}  // namespace vmxkit::rules
