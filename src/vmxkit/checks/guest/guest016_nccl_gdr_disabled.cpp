// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "vmxkit/analysis/nccl_log.h"
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest016 {

constexpr std::string_view kDoc = R"md(
## What it does
Reads NCCL's log (`NCCL_DEBUG=INFO`) for the lines where NCCL decided against GPUDirect RDMA
for a GPU and a NIC, `GPU Direct RDMA Disabled for GPU G / HCA H (distance D > L)`, and reports
each pair once: the GPU (the guest's device when the log's bus id or its `Init` lines tell),
the HCA (named by the log's `NET/IB : Using [0]mlx5_0:1/IB ...` list), the distance and the
level as path types (the numbers depend on NCCL's version, which the log's `NCCL version` line
gives; without it the numbers are reported as printed), and why: an `NCCL_NET_GDR_LEVEL` the log
says was set, the guest's virtual root ports that put GPU and NIC at PHB (as GUEST002 explains),
NUMA nodes (SYS) or a path through another GPU (PXN).

## Why is this bad?
NCCL then stages every transfer between that GPU and the network through host memory: twice
the PCIe traffic and a CPU memory copy per message, and, in a VM whose host has GPU and NIC
under one switch, the bandwidth the hardware was bought for is lost without an error. NCCL logs
the decision at INFO only (from 2.30, at TRACE only: then GUEST018 reads the outcome from the
channels).

## Example
`0000:03:00.0 (H100 PCIe): warning: NCCL disabled GPUDirect RDMA between this GPU and HCA 0
(mlx5_0): distance 6 (PHB) > 4 (PXB), NCCL 2.19.3 ...; the guest's PCI tree puts GPU and NIC
at PHB: an ESXi guest puts every passthrough device on its own virtual PCIe root port ...`

## Fix safety
No automatic fix; as GUEST002: give NCCL the host's real tree (`vmxkit nccl-topo ... -o
nccl-topo.xml`, `NCCL_TOPO_FILE=nccl-topo.xml`), or set `NCCL_NET_GDR_LEVEL` to the distance
(risk: NCCL then uses GPUDirect RDMA for every pair up to that distance, including pairs whose
real host path crosses the CPU; check with `vmxkit topo` on the host). Where the log shows an
`NCCL_NET_GDR_LEVEL` below NCCL's default, remove it.

## References
- NCCL `src/graph/paths.cc` (`ncclTopoCheckGdr`: the line's format, `GPU %lx` 2.6-2.23, `GPU %d`
  (rank) 2.24-2.28, `GPU/S-L (rank R) - NET/S-L` 2.29, TRACE only from 2.30; `ncclGetLevel`:
  "NCCL_NET_GDR_LEVEL set by environment to"), `topoPathTypeStr` per tag v2.6.4-1, v2.8.3-1,
  v2.12.7-1, v2.26.2-1, v2.27.3-1, v2.27.5-1, github NVIDIA/nccl (to 2.30.7, commit 5067397c)
- NCCL `src/init.cc` (`Init START` lines: rank, nvmlDev, busId), `src/misc/utils.cc`
  (`int64ToBusId`)
- github NVIDIA/nccl issue #1151 ("GPU Direct RDMA Disabled for GPU ca000 / HCA 0 (distance 7
  > 4)"), issue #1464 (a Proxmox VM: GPU Direct RDMA disabled by the VM's topology)
)md";

bool is_vmware_guest(const pci::Host& h) {
  return std::any_of(h.devices().begin(), h.devices().end(), [](const pci::Device& d) {
    return d.vendor_id == 0x15ad || d.name.rfind("VMware", 0) == 0;
  });
}

// "distance 6 (PHB) > 4 (PXB)" or the numbers alone, with what is missing to name them.
std::string numbers(const guest::NcclGdrDecision& d, const guest::NcclLog& log) {
  if (d.distance && d.level) {
    return fmt::format("distance {} ({}) > {} ({}), NCCL {}", d.line->distance,
                       guest::to_string(*d.distance), d.line->level, guest::to_string(*d.level),
                       log.version->value);
  }
  return fmt::format(
      "distance {} > {} (NCCL's path type numbers; the log has no `NCCL version` line, and NCCL "
      "renumbered its types in 2.8.3, 2.12.7, 2.26 and 2.27, so they are not named here)",
      d.line->distance, d.line->level);
}

std::string why(const GuestContext& ctx, const guest::NcclGdrDecision& d) {
  std::string out;
  const bool default_level = d.level ? *d.level == guest::kNcclDefaultGdrLevel : !d.level_override;
  if (d.level_override && !default_level) {
    out = fmt::format("; the level is not NCCL's default (PXB): NCCL_NET_GDR_LEVEL={} was set ({})",
                      d.level_override->value, d.level_override->where.to_string());
  }
  if (!d.distance) return out;
  switch (*d.distance) {
    case guest::NcclPathType::phb:
      return out + (is_vmware_guest(ctx.pci())
                        ? "; the guest's PCI tree puts GPU and NIC at PHB: an ESXi guest puts "
                          "every passthrough device on its own virtual PCIe root port, so they "
                          "meet only at the virtual host bridge, whatever the host's real path "
                          "(GUEST002)"
                        : "; the guest's PCI tree puts GPU and NIC at PHB: they meet only at the "
                          "(virtual) host bridge (GUEST002)");
    case guest::NcclPathType::sys:
      return out +
             "; NCCL puts GPU and NIC on different NUMA nodes of the guest (a device whose "
             "NUMA node the guest kernel does not report is on NCCL's CPU node -1)";
    case guest::NcclPathType::pxn:
      return out + "; NCCL reaches the NIC through another GPU (PXN) and judges that GPU's path";
    default:
      return out;
  }
}

void decision(const GuestContext& ctx, FindingSink& sink, const guest::NcclGdrDecision& d) {
  const guest::NcclLog& log = *ctx.guest().nccl_log();
  const std::string gpu = d.gpu_index ? ctx.describe(*d.gpu_index)
                                      : fmt::format("GPU {} (as NCCL's log names it)", d.line->gpu);
  const std::string hca =
      fmt::format("HCA {}{}", d.line->hca, d.nic_name.empty() ? "" : " (" + d.nic_name + ")");
  sink.report(
      kGUEST016, gpu,
      fmt::format("NCCL disabled GPUDirect RDMA between this GPU and {}: {}{}; NCCL stages every "
                  "transfer between them through host memory",
                  hca, numbers(d, log), why(ctx, d)),
      d.level_override ? "remove NCCL_NET_GDR_LEVEL or set it to the distance NCCL reports; "
                         "better, give NCCL the host's real tree: `vmxkit nccl-topo --host HOST "
                         "--vm VM.vmx --guest GUEST... -o nccl-topo.xml`, then "
                         "NCCL_TOPO_FILE=nccl-topo.xml"
                       : "give NCCL the host's real tree: `vmxkit nccl-topo --host HOST --vm "
                         "VM.vmx --guest GUEST... -o nccl-topo.xml`, then "
                         "NCCL_TOPO_FILE=nccl-topo.xml; or set NCCL_NET_GDR_LEVEL to the "
                         "distance (risk: GPUDirect RDMA also where the host's path crosses the "
                         "CPU; check with `vmxkit topo` on the host)",
      origin(d.line->where));
}

void check(const GuestContext& ctx, FindingSink& sink) {
  if (!ctx.guest().nccl_log()) return;
  for (const guest::NcclGdrDecision& d : guest::nccl_gdr_decisions(ctx.guest())) {
    if (!d.line->enabled) decision(ctx, sink, d);
  }
}

}  // namespace guest016

extern const Check kGUEST016{
    .id = "GUEST016",
    .name = "nccl-gdr-disabled",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary =
        "NCCL's log shows it disabled GPUDirect RDMA for a GPU and a NIC (distance beyond "
        "NCCL_NET_GDR_LEVEL), with the path types and why",
    .doc = guest016::kDoc,
    .check_guest = &guest016::check,
};

}  // namespace vmxkit::checks
