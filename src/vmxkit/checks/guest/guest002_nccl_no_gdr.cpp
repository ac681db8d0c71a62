// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/checks/path_detail.h"

namespace vmxkit::checks {
namespace guest002 {

constexpr std::string_view kDoc = R"md(
## What it does
For each GPU, takes the nearest RDMA NIC (smallest NCCL path class, then PCI order) as NCCL's
view has it (docs/guest-check.md, "What NCCL sees in a VM") and warns when the pair is at PHB or
SYS, so that NCCL at its default `NCCL_NET_GDR_LEVEL` (PXB) will not use GPUDirect RDMA for it.
Nothing is said where the guest already gives PIX or PXB. The class comes from the guest's
`lspci` tree (nvidia-smi's NODE is PHB for NCCL; root buses with no NUMA node are one CPU node),
else from `nvidia-smi topo -m`; with `--nccl-topo FILE`, from the tree NCCL builds from that
file and the guest. Where a capture shows an `NCCL_TOPO_FILE` that was not given, or the inputs
place no pair, it is reported as not checked (GUEST012).

## Why is this bad?
NCCL uses GPUDirect RDMA between a GPU and a NIC only when their path is within
`NCCL_NET_GDR_LEVEL`, PXB by default (`ncclTopoCheckGdr`); beyond it every transfer is staged
through host memory. An ESXi guest puts every passthrough device behind its own virtual PCIe
root port, and a KVM guest with one root port per device does the same, so GPU and NIC meet only
at the virtual host bridge: PHB for NCCL, whatever the host's real path is (nccl-tests #256:
all-reduce at about 27 GB/s instead of about 476 GB/s until a topology file was set).

## Example
An ESXi guest with an H100 on 03:00.0 and a ConnectX-7 on 0b:00.0:
`0000:03:00.0 (H100 SXM5 80GB): warning: NCCL sees PHB to the nearest NIC, 0000:0b:00.0
(mlx5_0): an ESXi guest puts every passthrough device on its own virtual PCIe root port, so GPU
and NIC meet only at the virtual host bridge; ...`

## Fix safety
No automatic fix; one of:
- an NCCL topology file with the host's real tree and the guest's bus ids:
  `vmxkit nccl-topo --host HOST --vm VM.vmx --guest GUEST... -o nccl-topo.xml`, then
  `NCCL_TOPO_FILE=nccl-topo.xml`;
- `NCCL_NET_GDR_LEVEL=PHB`. Risk: NCCL then uses GPUDirect RDMA for every pair up to PHB,
  including pairs whose real host path crosses the CPU root complex or (with SYS) the socket
  interconnect, where P2P is slow or unsupported; the guest cannot tell those from pairs that
  share a switch. Check on the host with `vmxkit topo` that each GPU and its NIC share a switch.

## References
- NCCL `src/graph/paths.cc` (`ncclTopoCheckGdr`, `ncclTopoSetPaths`), `src/graph/xml.cc`
  (`ncclTopoGetXmlFromSys`), NCCL 2.30.7 (github NVIDIA/nccl commit 5067397c)
- NCCL `docs/userguide/source/env.rst` (`NCCL_NET_GDR_LEVEL`)
- github NVIDIA/nccl-tests issue #256; NVIDIA/nccl issues #1843 and #1303
)md";

bool is_vmware_guest(const pci::Host& h) {
  return std::any_of(h.devices().begin(), h.devices().end(), [](const pci::Device& d) {
    return d.vendor_id == 0x15ad || d.name.rfind("VMware", 0) == 0;
  });
}

// Why the pair is where it is, as the message says it.
std::string why(const GuestContext& ctx, const guest::NcclPair& p) {
  if (p.from_nccl_topo) {
    return fmt::format("with the topology file {} (see GUEST015)", ctx.nccl_topo()->path);
  }
  if (p.from_smi_topo) return "as nvidia-smi topo -m shows it";
  if (is_vmware_guest(ctx.pci())) {
    return "an ESXi guest puts every passthrough device on its own virtual PCIe root port, so "
           "GPU and NIC meet only at the virtual host bridge";
  }
  if (p.gpu_index && p.nic_index) {
    return path_detail(ctx.pci(), pci::classify(ctx.pci(), *p.gpu_index, *p.nic_index));
  }
  return {};
}

void pair(const GuestContext& ctx, FindingSink& sink, const guest::NcclPair& p) {
  const std::string gpu = p.gpu_index ? ctx.describe(*p.gpu_index) : p.gpu_label;
  const std::string nic = (p.nic_index ? ctx.pci().at(*p.nic_index).bdf.to_string() : p.nic_label) +
                          (p.nic_name.empty() ? "" : " (" + p.nic_name + ")");
  if (p.cls == pci::PathClass::unknown) {
    sink.not_checked(kGUEST002, fmt::format("NCCL's path class for {} and {}", gpu, nic),
                     "the whole `lspci -vvv` (or `lspci -tv`) so every bridge is placed, or "
                     "`nvidia-smi topo -m`");
    return;
  }
  if (p.gdr) return;  // PIX or PXB: NCCL uses GPUDirect RDMA at its defaults
  sink.report(
      kGUEST002, gpu,
      fmt::format("NCCL sees {} to the nearest NIC, {}: {}; at its default NCCL_NET_GDR_LEVEL "
                  "(PXB) NCCL will not use GPUDirect RDMA for this pair and stages the data "
                  "through host memory, whatever the host's real PCIe path is",
                  to_string(p.cls), nic, why(ctx, p)),
      fmt::format("give NCCL the host's real tree: `vmxkit nccl-topo --host HOST --vm VM.vmx "
                  "--guest GUEST... -o nccl-topo.xml`, then run with "
                  "NCCL_TOPO_FILE=nccl-topo.xml; or set NCCL_NET_GDR_LEVEL={} (risk: NCCL then "
                  "uses GPUDirect RDMA even where the host's path crosses the CPU or sockets, "
                  "which the guest cannot see; check with `vmxkit topo` on the host that GPU and "
                  "NIC share a switch)",
                  p.cls == pci::PathClass::sys ? "SYS" : "PHB"));
}

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (ctx.nccl_topo() == nullptr && g.nccl_topo_file()) {
    const guest::Fact& f = *g.nccl_topo_file();
    sink.not_checked(kGUEST002,
                     fmt::format("NCCL's path class per GPU and NIC with NCCL_TOPO_FILE={} ({})",
                                 f.value, f.where.to_string()),
                     fmt::format("`--nccl-topo {}`: NCCL builds its tree from that file", f.value));
    return;
  }
  const std::vector<guest::NcclPair>& pairs = ctx.nccl_view();
  if (pairs.empty()) {
    if (!ctx.gpus().empty() && !ctx.nics().empty()) return;  // cannot be: each GPU has a pair
    if (!g.has_full_lspci() && !g.smi_topo()) {
      sink.not_checked(kGUEST002, "NCCL's path class per GPU and NIC",
                       "a full `lspci -vvv` or `nvidia-smi topo -m`");
    }
    return;
  }
  for (const guest::NcclPair& p : pairs) pair(ctx, sink, p);
}

}  // namespace guest002

extern const Check kGUEST002{
    .id = "GUEST002",
    .name = "nccl-no-gdr",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "NCCL will not use GPUDirect RDMA between a GPU and its nearest NIC at its defaults",
    .doc = guest002::kDoc,
    .check_guest = &guest002::check,
};

}  // namespace vmxkit::checks
