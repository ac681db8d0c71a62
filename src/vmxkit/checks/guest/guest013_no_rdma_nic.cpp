// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest013 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a guest whose full `lspci` shows no RDMA NIC (a ConnectX or BlueField, or a VF of one)
while `ibv_devinfo` shows no device either. A filtered `lspci` proves no absence: without a full
`lspci` it is reported as not checked (GUEST012) unless `ibv_devinfo` shows a device (an
`ibv_devinfo` that finds none is also what a NIC without its RDMA driver gives).

## Why is this bad?
GPUDirect RDMA moves data between a GPU and an RDMA NIC: without a NIC in the VM there is
nothing for it to talk to, and NCCL falls back to sockets between nodes.

## Example
A guest `lspci -vvv -nn` with an H100 and VMware's emulated devices only:
`warning: the guest's lspci shows no RDMA NIC (ConnectX/BlueField or a VF of one): GPUDirect
RDMA has no NIC to talk to`

## Fix safety
No automatic fix. Pass a ConnectX port or an SR-IOV VF of one through to the VM
(`vmxkit generate --nic auto`).

## References
- The guest's `lspci`: Mellanox's (NVIDIA Networking's) PCI vendor id is 15b3 (pci.ids,
  https://pci-ids.ucw.cz/)
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (g.has_full_lspci()) {
    if (ctx.nics().empty() && !(g.ib_devices() && !g.ib_devices()->empty())) {
      sink.report(kGUEST013, {},
                  "the guest's lspci shows no RDMA NIC (ConnectX/BlueField or a VF of one): "
                  "GPUDirect RDMA has no NIC to talk to",
                  "pass a ConnectX port or SR-IOV VF through to the VM (`vmxkit generate --nic "
                  "auto`)");
    }
  } else if (!g.ib_devices()) {
    sink.not_checked(kGUEST013, "RDMA NIC present", "a full `lspci -nn` or `ibv_devinfo`");
  } else if (g.ib_devices()->empty()) {
    // "No IB devices found" is also what a NIC without its RDMA driver gives.
    sink.not_checked(kGUEST013, "RDMA NIC present",
                     "a full `lspci -nn` (ibv_devinfo finds no device, as without the driver)");
  }
}

}  // namespace guest013

extern const Check kGUEST013{
    .id = "GUEST013",
    .name = "no-rdma-nic",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "no RDMA NIC (ConnectX/BlueField, or a VF of one) in the guest",
    .doc = guest013::kDoc,
    .check_guest = &guest013::check,
};

}  // namespace vmxkit::checks
