// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo003 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, notes a GPU or NIC in the VM whose vendor:device id is not in vmxkit's device
catalogue, so its GPUDirect support and BAR sizes come only from the capture, if at all.

## Why is this bad?
It is not wrong in itself, but the P2P verdicts for it cannot say whether the device supports
GPUDirect RDMA, and without `lspci -vvv` BAR sizes the MMIO window is a KB 323402 estimate.

## Example
A GPU newer than the catalogue, or a NIC from another vendor.

## Fix safety
No fix: add the model with `--catalog FILE` (the catalogue format is documented in
`src/vmxkit/devices/catalog.tsv`).

## References
- pci.ids (pciutils/pciids), NVIDIA GPUDirect RDMA documentation
)md";

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    if (v.cls == DeviceClass::other) continue;
    const auto index = host_device(ctx, v);
    if (!index) continue;
    const pci::Device& dev = ctx.host()->at(*index);
    if (dev.model != nullptr) continue;
    sink.report(kTOPO003, id_span(ctx, v),
                fmt::format("{} is not in the device catalogue: its GPUDirect support is not known",
                            ctx.host()->describe(*index)));
  }
}

}  // namespace topo003

extern const Check kTOPO003{
    .id = "TOPO003",
    .name = "unknown-device-model",
    .severity = Severity::info,
    .summary = "A passthrough device the catalogue does not know",
    .doc = topo003::kDoc,
    .check = &topo003::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
