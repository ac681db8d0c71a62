// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <string>
#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest001 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a guest with neither kernel path for GPUDirect RDMA: `nvidia_peermem` (or the older
`nv_peer_mem`) is not loaded, and DMA-BUF is not possible. DMA-BUF needs the open GPU kernel
module (`/proc/driver/nvidia/version` says "Open Kernel Module"; `modinfo nvidia` says
`license: Dual MIT/GPL`) and Linux 5.12 or later (RDMA dma-buf memory regions); it also needs a
user space whose verbs have `ibv_reg_dmabuf_mr` (rdma-core 34 or later, or a matching
MLNX_OFED/DOCA-OFED), which these inputs do not show. Without `lsmod`, or, for DMA-BUF, without
the module flavour and `uname -r`, it is reported as not checked (GUEST012).

## Why is this bad?
NCCL's IB transport looks for `/sys/kernel/mm/memory_peers/nv_mem/version`,
`.../nv_mem_nc/version` or `/sys/module/nvidia_peermem/version`, then tries DMA-BUF
(`src/transport/net_ib/gdr.cc`); with neither, it reports GPU Direct RDMA disabled and stages
every transfer through host memory.

## Example
`lsmod` without `nvidia_peermem`, `/proc/driver/nvidia/version` naming the proprietary module
and `uname -r` printing `4.18.0-513.5.1.el8_9.x86_64`:
`nvidia_peermem: error: no GPUDirect RDMA kernel path: nvidia_peermem is not loaded and DMA-BUF
is not possible: the NVIDIA kernel module is the proprietary one (guest.txt:13); kernel
4.18.0-513.5.1.el8_9.x86_64 is older than 5.12 (guest.txt:2); ...`

## Fix safety
No automatic fix. `modprobe nvidia-peermem` and
`echo nvidia-peermem > /etc/modules-load.d/nvidia-peermem.conf` (nvidia-peermem needs the
peer-memory support of MLNX_OFED/DOCA-OFED), or install the open GPU kernel module on Linux
5.12+ for DMA-BUF.

## References
- NVIDIA GPUDirect RDMA guide, "Using nvidia-peermem"
  (https://docs.nvidia.com/cuda/gpudirect-rdma/; nvidia-peermem ships with R470 and later)
- NVIDIA GPU Operator, "GPUDirect RDMA"
  (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html:
  "NVIDIA recommends using the DMA-BUF rather than using the nvidia-peermem kernel module")
- NVIDIA driver installation guide, kernel modules
  (https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/; open modules since R515,
  default since R560)
- NCCL `src/transport/net_ib/gdr.cc` (the peer-memory and DMA-BUF probes), NCCL 2.30.7
)md";

// Why DMA-BUF is not possible (`why_not`), and the inputs that would say (`unknown`).
void dma_buf(const guest::Guest& g, std::vector<std::string>& why_not,
             std::vector<std::string>& unknown) {
  // DMA-BUF: the open GPU kernel module, Linux 5.12 or later (RDMA dma-buf MRs).
  const auto& open = g.open_kernel_module();
  if (!open) {
    unknown.emplace_back("/proc/driver/nvidia/version or `modinfo nvidia` (kernel module flavour)");
  } else if (open->value != "open") {
    why_not.push_back(fmt::format("the NVIDIA kernel module is the proprietary one ({})",
                                  open->where.to_string()));
  }
  const auto& k = g.kernel();
  if (!k) {
    unknown.emplace_back("`uname -r`");
  } else if (k->major < 5 || (k->major == 5 && k->minor < 12)) {
    why_not.push_back(
        fmt::format("kernel {} is older than 5.12 ({})", k->text, k->where.to_string()));
  }
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(separator)) + s;
  return out;
}

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  const auto peermem = g.module_loaded("nvidia_peermem");
  const auto legacy = g.module_loaded("nv_peer_mem");
  if (peermem == true || legacy == true) return;
  std::vector<std::string> why_not;
  std::vector<std::string> unknown;
  dma_buf(g, why_not, unknown);
  const bool peermem_known_off = peermem == false;
  if (!peermem_known_off) {
    unknown.insert(unknown.begin(), "`lsmod` or /proc/modules (nvidia_peermem)");
  }
  if (peermem_known_off && !why_not.empty()) {
    const bool installed = g.modinfo().count("nvidia_peermem") != 0;
    sink.report(
        kGUEST001, "nvidia_peermem",
        fmt::format("no GPUDirect RDMA kernel path: nvidia_peermem is not loaded{} and "
                    "DMA-BUF is not possible: {}; NCCL will report GPU Direct RDMA "
                    "disabled and stage every transfer through host memory",
                    installed ? " (modinfo shows it installed)" : "", joined(why_not, "; ")),
        "modprobe nvidia-peermem && echo nvidia-peermem > "
        "/etc/modules-load.d/nvidia-peermem.conf (needs MLNX_OFED/DOCA-OFED's "
        "peer-memory support; or install the open GPU kernel module on kernel 5.12+ for "
        "DMA-BUF)",
        g.modules() && !g.modules()->empty() ? origin(g.modules()->front().where)
                                             : FindingOrigin{});
    return;
  }
  if (unknown.empty()) return;  // nvidia_peermem is not loaded, and DMA-BUF is possible
  sink.not_checked(kGUEST001, "GPUDirect RDMA kernel path (nvidia_peermem or DMA-BUF)",
                   joined(unknown, ", "));
}

}  // namespace guest001

extern const Check kGUEST001{
    .id = "GUEST001",
    .name = "gdr-kernel-path",
    .kind = Kind::guest,
    .severity = Severity::error,
    .summary =
        "no GPUDirect RDMA kernel path: nvidia_peermem is not loaded and DMA-BUF is not possible",
    .doc = guest001::kDoc,
    .check_guest = &guest001::check,
};

}  // namespace vmxkit::checks
