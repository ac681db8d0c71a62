// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest010 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags each port `ibv_devinfo` shows in a state other than `PORT_ACTIVE`. A guest with an RDMA
NIC and no `ibv_devinfo` is reported as not checked (GUEST012).

## Why is this bad?
No traffic flows on a port that is not active: NCCL cannot use that NIC.

## Example
`state: PORT_DOWN (1)` and `link_layer: Ethernet` under `mlx5_0`'s port 1:
`mlx5_0 port 1: warning: port state is PORT_DOWN (Ethernet): no traffic can flow on it`

## Fix safety
No automatic fix. For Ethernet (RoCE) bring the netdev up (`ip link set DEV up`) and check the
cable and the switch port; for InfiniBand check the cable, the switch port and the subnet
manager (opensm; `ibstat` should show `State: Active`).

## References
- rdma-core `libibverbs/examples/devinfo.c` (port state), https://github.com/linux-rdma/rdma-core
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  const auto& devices = ctx.guest().ib_devices();
  if (!devices) {
    if (!ctx.nics().empty()) sink.not_checked(kGUEST010, "RDMA port state", "`ibv_devinfo`");
    return;
  }
  for (const guest::IbDevice& d : *devices) {
    for (const guest::IbPort& p : d.ports) {
      if (p.state == "PORT_ACTIVE") continue;
      sink.report(kGUEST010, fmt::format("{} port {}", d.name, p.number),
                  fmt::format("port state is {}{}: no traffic can flow on it",
                              p.state.empty() ? "unknown" : p.state,
                              p.link_layer.empty() ? "" : " (" + p.link_layer + ")"),
                  p.link_layer == "Ethernet"
                      ? "bring the netdev up (`ip link set DEV up`), check the cable and the "
                        "switch port; `ibv_devinfo` should show PORT_ACTIVE"
                      : "check the cable, the switch port and the subnet manager (opensm); "
                        "`ibstat` should show State: Active",
                  origin(p.where));
    }
  }
}

}  // namespace guest010

extern const Check kGUEST010{
    .id = "GUEST010",
    .name = "rdma-port-down",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "an RDMA port is not PORT_ACTIVE",
    .doc = guest010::kDoc,
    .check_guest = &guest010::check,
};

}  // namespace vmxkit::checks
