// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <string>

#include "vmxkit/analysis/nccl_log.h"
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest020 {

constexpr std::string_view kDoc = R"md(
## What it does
Warns when NCCL's log shows it moving data between nodes over sockets (`Using network Socket`,
or channels `via NET/Socket/N`) although the guest has an RDMA NIC (a ConnectX/BlueField or a
VF of one in `lspci`, or a device in `ibv_devinfo`), and says why where the log does:
`NCCL_IB_DISABLE=1` or `NCCL_NET=...` set by environment, or `NET/IB : No device found.` (NCCL's
IB plugin opened no verbs device: `mlx5_ib` not loaded, rdma-core's libibverbs missing, or
`/dev/infiniband` not in the container). A log whose `NET/IB : Using` line lists the devices and
whose channels run over `NET/IB` is clean. Where no input shows whether the guest has an RDMA
NIC it is reported as not checked (GUEST012); a guest without one is GUEST013's.

## Why is this bad?
NCCL's socket transport copies every message through the kernel's TCP stack and host memory:
a few GB/s where the RDMA NIC gives tens, and no GPUDirect RDMA at all. NCCL falls back to it
silently, at INFO.

## Example
`` NCCL: warning: NCCL moves data over sockets (`Using network Socket`) although the guest has
an RDMA NIC, 0000:0b:00.0 (ConnectX-7): NCCL's IB plugin found no device (`NET/IB : No device
found.`, log.txt:5): no verbs device NCCL could open ... ``

## Fix safety
No automatic fix: unset `NCCL_IB_DISABLE`/`NCCL_NET` where the log shows them; load `mlx5_ib`,
install rdma-core (libibverbs, the mlx5 provider), pass `/dev/infiniband` into a container; check
with `ibv_devinfo` that a port is `PORT_ACTIVE` (GUEST009, GUEST010).

## References
- NCCL `src/transport/net_ib/init.cc` (`ncclIbInit`: "NET/IB : No device found.", "NET/IB :
  Using%s %s; OOB %s:%s"), `src/transport/net_socket.cc` ("NET/Socket : Using%s"), `src/init.cc`
  ("Using network %s"), `src/misc/param.cc` ("%s set by environment to %lld."), NCCL 2.30.7
  (github NVIDIA/nccl commit 5067397c)
- github NVIDIA/nccl issues #952 ("NET/IB : No device found") and #676 (`NCCL_NET=Socket`,
  "Using network Socket")
)md";

bool uses_socket(const guest::NcclLog& log) {
  if (log.network) return log.network->value == "Socket";
  return !guest::nccl_net_use(log).socket.empty();
}

// Why NCCL took sockets, as far as its log says.
std::string why(const guest::NcclLog& log) {
  std::string out;
  for (const char* name : {"NCCL_IB_DISABLE", "NCCL_NET"}) {
    const auto it = log.env.find(name);
    if (it == log.env.end()) continue;
    out += fmt::format("{}{}={} was set ({})", out.empty() ? "" : "; ", name, it->second.value,
                       it->second.where.to_string());
  }
  if (log.ib_no_device) {
    out += fmt::format(
        "{}NCCL's IB plugin found no device (`NET/IB : No device found.`, {}): no verbs device "
        "NCCL could open (mlx5_ib not loaded, rdma-core's libibverbs or its mlx5 provider "
        "missing, or /dev/infiniband not in the container)",
        out.empty() ? "" : "; ", log.ib_no_device->to_string());
  }
  return out.empty() ? "the log does not say why (give it from the start of the run, with its "
                       "NET/IB lines)"
                     : out;
}

// The guest's RDMA NIC, as text, or empty when no input shows one.
std::string rdma_nic(const GuestContext& ctx) {
  if (!ctx.nics().empty()) return ctx.describe(ctx.nics().front());
  const auto& ib = ctx.guest().ib_devices();
  if (ib && !ib->empty()) return fmt::format("{} (ibv_devinfo)", ib->front().name);
  return {};
}

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (!g.nccl_log() || !uses_socket(*g.nccl_log())) return;
  const guest::NcclLog& log = *g.nccl_log();
  const std::string nic = rdma_nic(ctx);
  if (nic.empty()) {
    if (!g.has_full_lspci() && !g.ib_devices()) {
      sink.not_checked(kGUEST020,
                       "whether the guest has an RDMA NIC NCCL could use instead of "
                       "sockets",
                       "the whole `lspci -vvv`, or `ibv_devinfo`");
    }
    return;
  }
  const pci::Origin& where = log.network        ? log.network->where
                             : log.socket_using ? log.socket_using->where
                                                : guest::nccl_net_use(log).socket.front()->where;
  sink.report(kGUEST020, "NCCL",
              fmt::format("NCCL moves data over sockets ({}) although the guest has an RDMA NIC, "
                          "{}: {}; every message goes through the TCP stack and host memory, "
                          "without GPUDirect RDMA",
                          log.network ? "`Using network Socket`" : "channels via NET/Socket", nic,
                          why(log)),
              "unset NCCL_IB_DISABLE and NCCL_NET where set; load mlx5_ib, install rdma-core "
              "(libibverbs and its mlx5 provider), pass /dev/infiniband into a container; check "
              "with `ibv_devinfo` that a port is PORT_ACTIVE",
              origin(where));
}

}  // namespace guest020

extern const Check kGUEST020{
    .id = "GUEST020",
    .name = "nccl-socket-transport",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "NCCL's log shows it moving data over sockets although the guest has an RDMA NIC",
    .doc = guest020::kDoc,
    .check_guest = &guest020::check,
};

}  // namespace vmxkit::checks
