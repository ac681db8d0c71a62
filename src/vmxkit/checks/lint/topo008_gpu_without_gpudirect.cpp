// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo008 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a GPU in a P2P VM (GPU with a NIC or another GPU) whose model has no
GPUDirect RDMA / P2P support: GeForce cards.

## Why is this bad?
The driver refuses peer mappings on these GPUs (`nvidia-smi topo -p2p` shows `GNS`, GPU not
supported): GPUDirect RDMA cannot work whatever the `.vmx` says.

## Example
A GeForce RTX 3090 passed through with a ConnectX-7.

## Fix safety
No automatic fix: use a data-center or professional GPU.

## References
- NVIDIA GPUDirect RDMA documentation ("available on both Tesla and Quadro GPUs")
- `nvidia-smi topo -p2p` legend (GNS)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const PeerPair& p : peer_pairs(ctx)) {
    for (const pci::Reason* r : reasons_of(p, pci::ReasonKind::gpu_no_gdr)) {
      const pci::Device& gpu = ctx.host()->at(*r->subject);  // the pair's GPU without it
      Diagnostic& d = sink.report(
          kTOPO008, id_span(ctx, *p.gpu),
          fmt::format("{} is passed with {} for P2P: {} ({}) has no GPUDirect RDMA/P2P support",
                      p.gpu->label, p.peer->label, gpu.bdf.to_string(), gpu.model->model));
      d.fix = Fix{"use a data-center or professional GPU", FixSafety::display_only, {}};
      return;  // once per VM is enough
    }
  }
}

}  // namespace topo008

extern const Check kTOPO008{
    .id = "TOPO008",
    .name = "gpu-without-gpudirect",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "A GPU without GPUDirect support in a P2P VM",
    .doc = topo008::kDoc,
    .check = &topo008::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
