// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/path_detail.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo005 {

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

Each GPU is judged against its nearest NICs in the VM only, as NCCL gives a GPU its local
NICs (`ncclTopoGetLocalNet`): a rail-aligned VM, where every GPU has a NIC under its own
switch, is clean. A warning when the host has a NIC nearer to the GPU than any in the VM; an
info when no NIC of the host is nearer (the best the host allows: NCCL will not use GPUDirect
RDMA for it unless `NCCL_NET_GDR_LEVEL` is raised to PHB or SYS).

## Fix safety
No automatic fix: pick a NIC under the GPU's switch (`vmxkit topo HOST`).

## References
- NVIDIA GPUDirect RDMA documentation ("single CPU/IOH ... worse performance")
- NCCL `docs/env.rst` (`NCCL_NET_GDR_LEVEL`), `src/graph/paths.cc` (`ncclTopoCheckGdr`),
  `src/graph/search.cc` (`ncclTopoGetLocalNet`: a GPU's NICs are those with the best path)
)md";

// The host's nearest RDMA NIC to the GPU when it is nearer than `cls`, else nullopt.
std::optional<HostNic> better_host_nic(const Context& ctx, const VmDevice& gpu,
                                       pci::PathClass cls) {
  const auto nic = nearest_host_nic(ctx, gpu);
  if (!nic || nic->cls >= cls) return std::nullopt;
  return nic;
}

void check(const Context& ctx, Sink& sink) {
  for (const PeerPair& p : peer_pairs(ctx)) {
    if (p.peer->cls != DeviceClass::nic) continue;  // GPU<->NIC: GPUDirect RDMA
    const pci::PathClass cls = p.verdict.path.cls;
    if (cls != pci::PathClass::phb && cls != pci::PathClass::node &&
        cls != pci::PathClass::unknown) {
      continue;
    }
    const auto better =
        cls == pci::PathClass::unknown ? std::nullopt : better_host_nic(ctx, *p.gpu, cls);
    std::string message =
        cls == pci::PathClass::unknown
            ? fmt::format("path between {} and {} cannot be classified: {}", p.gpu->label,
                          p.peer->label, path_detail(*ctx.host(), p.verdict.path))
            : fmt::format("{} and {} meet only at the CPU ({}): {}", p.gpu->label, p.peer->label,
                          pci::to_string(cls), path_detail(*ctx.host(), p.verdict.path));
    if (better) {
      message += fmt::format("; the host's NIC {} is nearer ({})",
                             ctx.host()->devices()[better->index].bdf.to_string(),
                             pci::to_string(better->cls));
    } else if (cls != pci::PathClass::unknown) {
      message += "; no NIC of the host is nearer";
    }
    Diagnostic& d = sink.report(kTOPO005, id_span(ctx, *p.peer), std::move(message));
    const SourceSpan gpu = id_span(ctx, *p.gpu);
    d.notes.push_back({gpu.begin, gpu.end, p.gpu->label + " is here"});
    // The best the host allows is a fact to know (NCCL will not use GPUDirect RDMA here by
    // default), not a mistake in the VM.
    if (!better && cls != pci::PathClass::unknown) d.severity = Severity::info;
  }
}

}  // namespace topo005

extern const Check kTOPO005{
    .id = "TOPO005",
    .name = "gpu-peer-through-cpu",
    .severity = Severity::warning,
    .summary = "A GPU and its P2P peer that meet only at the CPU (PHB/NODE)",
    .doc = topo005::kDoc,
    .check = &topo005::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
