// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest009 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a guest whose `lspci` shows an RDMA NIC but whose `lsmod` lacks `mlx5_core` or `mlx5_ib`,
or whose `ibv_devinfo` finds no device. Without `lsmod` or `ibv_devinfo` it is reported as not
checked (GUEST012).

## Why is this bad?
Without the RDMA driver the NIC has no verbs device: NCCL finds no IB device and falls back to
sockets, with no GPUDirect RDMA.

## Example
`ibv_devinfo` printing `No IB devices found` beside an `lspci` with a ConnectX-7:
`ibv_devinfo: error: ibv_devinfo finds no RDMA device although lspci shows the NIC: NCCL will
fall back to sockets`

## Fix safety
No automatic fix. `modprobe mlx5_core mlx5_ib` (install rdma-core, or MLNX_OFED/DOCA-OFED), then
check `ibv_devinfo`.

## References
- rdma-core libibverbs (`ibv_devinfo`), https://github.com/linux-rdma/rdma-core
- NVIDIA MLNX_OFED/DOCA-OFED documentation (the mlx5 drivers)
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  if (ctx.nics().empty()) return;
  const guest::Guest& g = ctx.guest();
  const auto core = g.module_loaded("mlx5_core");
  const auto ib = g.module_loaded("mlx5_ib");
  if (g.ib_devices() && g.ib_devices()->empty()) {
    sink.report(kGUEST009, "ibv_devinfo",
                "ibv_devinfo finds no RDMA device although lspci shows the NIC: NCCL will fall "
                "back to sockets",
                "modprobe mlx5_ib (install rdma-core, or MLNX_OFED/DOCA-OFED), then `ibv_devinfo`");
  } else if (core == false || ib == false) {
    const char* module = core == false ? "mlx5_core" : "mlx5_ib";
    sink.report(kGUEST009, module,
                fmt::format("{} is not loaded: the NIC has no RDMA verbs device", module),
                "modprobe mlx5_core mlx5_ib (install rdma-core, or MLNX_OFED/DOCA-OFED)");
  } else if (!g.ib_devices() && (!core || !ib)) {
    sink.not_checked(kGUEST009, "RDMA driver and verbs device", "`lsmod` or `ibv_devinfo`");
  }
}

}  // namespace guest009

extern const Check kGUEST009{
    .id = "GUEST009",
    .name = "rdma-driver",
    .kind = Kind::guest,
    .severity = Severity::error,
    .summary = "an RDMA NIC has no RDMA driver (mlx5_core/mlx5_ib) or no verbs device",
    .doc = guest009::kDoc,
    .check_guest = &guest009::check,
};

}  // namespace vmxkit::checks
