// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <set>
#include <string>

#include "vmxkit/analysis/nccl_log.h"
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest017 {

constexpr std::string_view kDoc = R"md(
## What it does
Reports each NIC for which NCCL found no GPUDirect RDMA support at all, whatever the path: NCCL's
log line `NET/IB : GPU Direct RDMA Disabled for HCA N 'mlx5_0'` (with ` (no module)` before
2.13), or `gdr="0"` on a `<net>` of NCCL's topology dump (`NCCL_TOPO_DUMP_FILE`); and each GPU
the dump marks `<gpu ... gdr="0">`. For a NIC it says what the guest's other inputs show of the
peer-memory module: `nvidia_peermem` loaded (then NCCL could not see it: it tests the file
`/sys/module/nvidia_peermem/version`, which a container may not have), not loaded (GUEST001), or
not known (which input would tell).

## Why is this bad?
NCCL's IB plugin offers GPU memory to the NIC only with a peer-memory module
(`/sys/kernel/mm/memory_peers/nv_mem/version`, `.../nv_mem_nc/version` or
`/sys/module/nvidia_peermem/version`) or with DMA-BUF (`ibv_reg_dmabuf_mr` works: Linux 5.12+,
the open GPU kernel module, NCCL 2.13+). Without either, every transfer of that NIC is staged
through host memory, on every path, and NCCL says so only at INFO. A GPU without
`cudaDevAttrGPUDirectRDMASupported` is never used with GPUDirect RDMA.

## Example
`mlx5_0: warning: NCCL found no GPUDirect RDMA support for HCA 0 'mlx5_0' (no peer-memory module
and no DMA-BUF): ...; the guest's inputs show nvidia_peermem not loaded (GUEST001)`

## Fix safety
No automatic fix: `modprobe nvidia_peermem` (and, in a container, make the host's
`/sys/module` visible), or use DMA-BUF (the open GPU kernel module on Linux 5.12 or later, NCCL
2.13 or later). Safe: it changes no path, only lets NCCL register GPU memory with the NIC.

## References
- NCCL `src/transport/net_ib/gdr.cc` (`ncclIbGdrSupport`, `ncclIbDmaBufSupport`),
  `src/transport/net_ib/init.cc` (`ncclIbGetProperties`: `NCCL_PTR_CUDA`, `NCCL_PTR_DMABUF`),
  `src/graph/topo.cc` (`ncclTopoProcessNet`: "NET/%s : GPU Direct RDMA %s for HCA %d '%s'", the
  `<net gdr>` attribute; `ncclTopoAddGpu`: `<gpu gdr>`), `src/plugin/net.cc`
  (`ncclGpuGdrSupport`), NCCL 2.30.7 (github NVIDIA/nccl commit 5067397c); `src/transport/
  net_ib.cc` "(no module)" in 2.5-2.12
- github NVIDIA/nccl issues #1537 and #1939 ("GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" with
  nvidia_peermem in lsmod)
)md";

std::string peermem(const GuestContext& ctx) {
  const guest::Guest& g = ctx.guest();
  const auto loaded = g.module_loaded("nvidia_peermem");
  if (!loaded) {
    return "; whether nvidia_peermem is loaded is not known (give `lsmod` or `grep . "
           "/sys/module/*/version`)";
  }
  if (!*loaded) return "; the guest's inputs show nvidia_peermem not loaded (GUEST001)";
  return "; the guest's inputs show nvidia_peermem loaded, yet NCCL did not see it: NCCL tests "
         "the file /sys/module/nvidia_peermem/version, which a container without the host's "
         "/sys/module lacks, or the module was loaded after NCCL started";
}

constexpr std::string_view kFix =
    "load the peer-memory module (`modprobe nvidia_peermem`; in a container, make "
    "/sys/module/nvidia_peermem visible), or use DMA-BUF: the open GPU kernel module on Linux 5.12 "
    "or later with NCCL 2.13 or later";

void nic(const GuestContext& ctx, FindingSink& sink, const std::string& name,
         const std::string& said, const pci::Origin& where) {
  sink.report(kGUEST017, name.empty() ? "NCCL" : name,
              fmt::format("NCCL found no GPUDirect RDMA support for {} (no peer-memory module and "
                          "no DMA-BUF): every transfer of this NIC is staged through host "
                          "memory, whatever the path{}",
                          said, peermem(ctx)),
              std::string(kFix), origin(where));
}

void from_dump(const GuestContext& ctx, FindingSink& sink, std::set<std::string>& seen) {
  const guest::NcclTopoInput& dump = *ctx.nccl_dump();
  for (const guest::NcclTopoNode& n : dump.tree.nodes) {
    for (const guest::NcclTopoNet& net : n.nets) {
      if (!net.gdr || *net.gdr || !seen.insert(net.name).second) continue;
      nic(ctx, sink, net.name,
          fmt::format("{}, whose `<net>` below {} in NCCL's topology dump has gdr=\"0\"", net.name,
                      n.busid),
          pci::Origin{dump.path, net.line});
    }
    if (n.gpu_gdr && !*n.gpu_gdr) {
      const auto b = parse_bdf(n.busid);
      const auto i = b ? ctx.pci().index_of(*b) : std::nullopt;
      sink.report(kGUEST017, i ? ctx.describe(*i) : n.busid,
                  "NCCL's topology dump marks this GPU `<gpu ... gdr=\"0\">`: CUDA reports no "
                  "GPUDirect RDMA support for it (cudaDevAttrGPUDirectRDMASupported), so NCCL "
                  "never uses GPUDirect RDMA with it",
                  "use a GPU and driver that support GPUDirect RDMA (data-center GPUs; check "
                  "`nvidia-smi -q` and the driver's release notes)",
                  FindingOrigin{dump.path, n.line});
    }
  }
}

void check(const GuestContext& ctx, FindingSink& sink) {
  std::set<std::string> seen;
  if (const auto& log = ctx.guest().nccl_log()) {
    for (const guest::NcclHcaGdrLine& l : log->hca_gdr) {
      if (l.enabled || !seen.insert(l.name).second) continue;
      nic(ctx, sink, l.name, fmt::format("HCA {} '{}'", l.index, l.name), l.where);
    }
  }
  if (ctx.nccl_dump() != nullptr) from_dump(ctx, sink, seen);
}

}  // namespace guest017

extern const Check kGUEST017{
    .id = "GUEST017",
    .name = "nccl-gdr-unsupported",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary =
        "NCCL found no GPUDirect RDMA support for a NIC (no peer-memory module, no "
        "DMA-BUF) or a GPU, per its log or its topology dump",
    .doc = guest017::kDoc,
    .check_guest = &guest017::check,
};

}  // namespace vmxkit::checks
