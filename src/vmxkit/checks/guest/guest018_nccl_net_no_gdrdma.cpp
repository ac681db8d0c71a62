// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <map>
#include <string>

#include "vmxkit/analysis/nccl_log.h"
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest018 {

constexpr std::string_view kDoc = R"md(
## What it does
Reads the channels of NCCL's log (`Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0` and
`... via NET/IB/0/GDRDMA`) and, for each GPU whose network channels run without `/GDRDMA`,
compares with what vmxkit expects from the guest's `lspci` (NCCL's view, GUEST002): where the
GPU and its nearest NIC are at PIX or PXB, NCCL should have used GPUDirect RDMA, and the check
warns, with the reason the log gives (a decision of GUEST016, an HCA without support of
GUEST017, `NCCL_NET_GDR_LEVEL` or `NCCL_NET_GDR_READ` set) or the input that would tell. Where
vmxkit expects no GPUDirect RDMA either (PHB, SYS) it says nothing: GUEST002 reports that. The
GPU of a channel is found through the log's `Init` lines (rank, nvmlDev, busId) or, before NCCL
2.18.3, the bus id the channel line prints; without either, or without `lspci`, it is reported
as not checked (GUEST012).

## Why is this bad?
A channel without `/GDRDMA` copies every message through host memory. NCCL 2.30 logs its
per-pair GPU Direct RDMA decision only in TRACE builds, so the channels are the one place its
INFO log shows the outcome.

## Example
`0000:03:00.0 (H100 SXM5 80GB): warning: NCCL's network channels of this GPU run without
GPUDirect RDMA (2 of 2, first: NET/IB/0 at log.txt:7) although the guest's lspci puts it at PIX
to 0000:04:00.0 (mlx5_0), where NCCL uses GPUDirect RDMA at its defaults; NCCL_NET_GDR_LEVEL=LOC
was set (log.txt:6)`

## Fix safety
No automatic fix: remove the override the message names, or fix what GUEST016/GUEST017 report;
then run again and look for `/GDRDMA` in the channel lines.

## References
- NCCL `src/transport/net.cc` (`sendSetup`, `recvSetup`: "Channel %02d/%d : %d[%d] -> %d[%d]
  [send] via NET/%s/%d%s%s%s", `/GDRDMA` when `useGdr`), `src/init.cc` (`Init START`), NCCL
  2.30.7 (github NVIDIA/nccl commit 5067397c); `%d[%lx]` (bus id) before v2.18.3-1, `Channel
  %02d` without `/%d` before v2.12.7-1, `Ring %02d` before v2.7.3-1
- github NVIDIA/nccl-tests issue #224 and NVIDIA/nccl issue #660 (channel lines with and
  without GDRDMA)
)md";

struct GpuChannels {
  std::size_t without = 0;
  std::size_t total = 0;
  const guest::NcclChannelLine* first = nullptr;
};

// The reasons the log and the other inputs give for NET without GPUDirect RDMA.
std::string reasons(const GuestContext& ctx, std::size_t gpu) {
  const guest::Guest& g = ctx.guest();
  const guest::NcclLog& log = *g.nccl_log();
  std::string out;
  for (const guest::NcclGdrDecision& d : guest::nccl_gdr_decisions(g)) {
    if (!d.line->enabled && d.gpu_index == gpu) {
      out +=
          fmt::format("; NCCL disabled it for this GPU ({}, GUEST016)", d.line->where.to_string());
      break;
    }
  }
  for (const guest::NcclHcaGdrLine& h : log.hca_gdr) {
    if (!h.enabled) {
      out += fmt::format("; NCCL found no GPUDirect RDMA support for {} (GUEST017)", h.name);
      break;
    }
  }
  for (const char* name : {"NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ"}) {
    const auto it = log.env.find(name);
    if (it != log.env.end()) {
      out +=
          fmt::format("; {}={} was set ({})", name, it->second.value, it->second.where.to_string());
    }
  }
  if (out.empty()) {
    out =
        "; the log does not say why: run with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH "
        "(NCCL before 2.30 then logs its decision per GPU and HCA), and give `lsmod`";
  }
  return out;
}

void judge(const GuestContext& ctx, FindingSink& sink, std::size_t gpu, const GpuChannels& c) {
  const guest::NcclPair* pair = nullptr;
  for (const guest::NcclPair& p : ctx.nccl_view()) {
    if (p.gpu_index == gpu) pair = &p;
  }
  if (pair == nullptr || pair->cls == pci::PathClass::unknown) {
    sink.not_checked(kGUEST018,
                     fmt::format("whether {} should use GPUDirect RDMA (its NET channels run "
                                 "without it)",
                                 ctx.describe(gpu)),
                     "the whole `lspci -vvv` (or `lspci -tv`) of the guest");
    return;
  }
  if (!pair->gdr) return;  // PHB or SYS: no GPUDirect RDMA expected at NCCL's defaults (GUEST002)
  const std::string nic =
      (pair->nic_index ? ctx.pci().at(*pair->nic_index).bdf.to_string() : pair->nic_label) +
      (pair->nic_name.empty() ? "" : " (" + pair->nic_name + ")");
  sink.report(kGUEST018, ctx.describe(gpu),
              fmt::format("NCCL's network channels of this GPU run without GPUDirect RDMA ({} of "
                          "{}, first: {} at {}) although the guest's lspci puts it at {} to {}, "
                          "where NCCL uses GPUDirect RDMA at its defaults{}",
                          c.without, c.total, c.first->via, c.first->where.to_string(),
                          pci::to_string(pair->cls), nic, reasons(ctx, gpu)),
              "remove the override named, or fix what GUEST016/GUEST017 report; then look for "
              "`/GDRDMA` in NCCL's channel lines",
              origin(c.first->where));
}

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (!g.nccl_log()) return;
  std::map<std::size_t, GpuChannels> per_gpu;
  std::size_t unplaced = 0;
  for (const guest::NcclChannelLine& c : g.nccl_log()->channels) {
    if (c.net.empty() || c.net == "Socket") continue;
    const auto gpu = guest::nccl_channel_gpu(g, c);
    if (!gpu) {
      unplaced += !c.gdr;
      continue;
    }
    GpuChannels& s = per_gpu[*gpu];
    ++s.total;
    if (c.gdr) continue;
    if (s.without++ == 0) s.first = &c;
  }
  for (const auto& [gpu, c] : per_gpu) {
    if (c.without > 0) judge(ctx, sink, gpu, c);
  }
  if (unplaced > 0) {
    sink.not_checked(
        kGUEST018,
        fmt::format("which GPU {} NET channel(s) without GPUDirect RDMA belong to", unplaced),
        "NCCL's log with its `Init START` lines (rank, nvmlDev, busId: NCCL_DEBUG=INFO "
        "from the start of the run) and the guest's `lspci -vvv`");
  }
}

}  // namespace guest018

extern const Check kGUEST018{
    .id = "GUEST018",
    .name = "nccl-net-no-gdrdma",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary =
        "NCCL's network channels of a GPU run without GPUDirect RDMA (no /GDRDMA) where "
        "the guest's PCI tree gives NCCL PIX or PXB to its NIC",
    .doc = guest018::kDoc,
    .check_guest = &guest018::check,
};

}  // namespace vmxkit::checks
