// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host008 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags an RDMA NIC whose SR-IOV capability shows no virtual functions: none created (`Number of
VFs: 0` with a nonzero `Total VFs`), or SR-IOV off in the ConnectX firmware (`Total VFs: 0` on a
Mellanox/NVIDIA device).

## Why is this bad?
A VM that is to get an SR-IOV VF of the NIC (`generate --sriov`, a `pciPassthruN.pfId` entry)
has none to get: it does not power on, or gets no RDMA NIC.

## Example
`Initial VFs: 16, Total VFs: 16, Number of VFs: 0` in the NIC's `lspci -vvv` SR-IOV capability.

## Fix safety
No automatic fix. Linux: `echo N > /sys/bus/pci/devices/BDF/sriov_numvfs` (not kept across
reboots; set it in a udev rule or the driver's options). ESXi: `esxcli system module parameters
set -m nmlx5_core -p max_vfs=N` and a reboot. Firmware: `mlxconfig -d BDF set SRIOV_EN=1
NUM_OF_VFS=N` and a reboot.

## References
- Linux `Documentation/PCI/pci-iov-howto.rst` (`sriov_numvfs`)
- NVIDIA MLNX_OFED documentation, "Single Root IO Virtualization (SR-IOV)" (`mlxconfig SRIOV_EN`,
  `NUM_OF_VFS`)
- VMware KB "Configure SR-IOV on ConnectX adapters" (`nmlx5_core max_vfs`)
)md";

void check_device(const HostContext& ctx, const pci::Device& d, FindingSink& sink) {
  const std::string bdf = d.bdf.to_string();
  if (d.sriov && d.sriov->total_vfs && d.sriov->num_vfs) {
    const unsigned total = *d.sriov->total_vfs;
    if (*d.sriov->num_vfs != 0 || d.role != pci::Role::rdma_nic) return;
    const unsigned some = std::min(total, 8U);
    sink.report(kHOST008, bdf,
                fmt::format("SR-IOV: no VFs created (Number of VFs: 0, Total VFs: {})", total),
                ctx.esxi() ? fmt::format("esxcli system module parameters set -m nmlx5_core -p "
                                         "max_vfs={}, then reboot the host (VFs of ConnectX "
                                         "adapters; or Configure > PCI Devices > SR-IOV)",
                                         some)
                           : fmt::format("echo {} > /sys/bus/pci/devices/{}/sriov_numvfs (not "
                                         "kept across reboots: set it in a udev rule or the "
                                         "driver's options)",
                                         some, bdf));
  } else if (d.sriov && d.sriov->total_vfs == 0U && d.vendor_id == 0x15b3) {
    sink.report(kHOST008, bdf, "SR-IOV is off in the NIC firmware (Total VFs: 0)",
                fmt::format("mlxconfig -d {} set SRIOV_EN=1 NUM_OF_VFS=8, then reboot", bdf));
  }
}

void check(const HostContext& ctx, FindingSink& sink) {
  for (const pci::Device& d : ctx.host().devices()) {
    if (d.role == pci::Role::rdma_nic || d.role == pci::Role::nic) check_device(ctx, d, sink);
  }
}

}  // namespace host008

extern const Check kHOST008{
    .id = "HOST008",
    .name = "sriov-no-vfs",
    .kind = Kind::host,
    .severity = Severity::warning,
    .summary = "an RDMA NIC has no SR-IOV virtual functions (none created, or off in firmware)",
    .doc = host008::kDoc,
    .check_host = &host008::check,
};

}  // namespace vmxkit::checks
