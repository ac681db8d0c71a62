// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host009 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a NIC whose SR-IOV capability shows more VFs enabled (`Number of VFs`) than the device
offers (`Total VFs`).

## Why is this bad?
The capture contradicts the PCI specification's limit (NumVFs may not exceed TotalVFs): the
VFs past `Total VFs` do not exist, and a VM given one of them will not power on. It usually
means the capture was edited or mixes two devices.

## Example
`Total VFs: 8, Number of VFs: 16`.

## Fix safety
No automatic fix: set `sriov_numvfs` to 0, then to at most `Total VFs`.

## References
- PCI Express Base Specification, SR-IOV Extended Capability (TotalVFs, NumVFs)
- Linux `Documentation/PCI/pci-iov-howto.rst` (`sriov_numvfs`, `sriov_totalvfs`)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  for (const pci::Device& d : ctx.host().devices()) {
    if (d.role != pci::Role::rdma_nic && d.role != pci::Role::nic) continue;
    if (!d.sriov || !d.sriov->total_vfs || !d.sriov->num_vfs) continue;
    const unsigned total = *d.sriov->total_vfs;
    const unsigned num = *d.sriov->num_vfs;
    if (num <= total) continue;
    const std::string bdf = d.bdf.to_string();
    sink.report(kHOST009, bdf,
                fmt::format("SR-IOV: Number of VFs {} is above Total VFs {}", num, total),
                fmt::format("echo 0 > /sys/bus/pci/devices/{0}/sriov_numvfs; echo {1} > "
                            "/sys/bus/pci/devices/{0}/sriov_numvfs",
                            bdf, total));
  }
}

}  // namespace host009

extern const Check kHOST009{
    .id = "HOST009",
    .name = "sriov-too-many-vfs",
    .kind = Kind::host,
    .severity = Severity::error,
    .summary = "a NIC shows more SR-IOV VFs enabled than it has (Number of VFs > Total VFs)",
    .doc = host009::kDoc,
    .check_host = &host009::check,
};

}  // namespace vmxkit::checks
