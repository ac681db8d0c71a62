// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"
#include "vmxkit/core/pci_address.h"

namespace vmxkit::checks {
namespace topo001 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a DirectPath or SR-IOV entry whose address (`id`, or `pfId`) names no
device in the host capture.

## Why is this bad?
The VM was configured for another host, or the device moved (a card in another slot, a BIOS
setting that renumbered buses). ESXi cannot find the device and the VM fails to power on
("AH No device hints found").

## Example
`pciPassthru0.id = "00000:119:00.0"` while the host has no device at `0000:77:00.0`.

## Fix safety
No automatic fix: pick the device from `vmxkit topo HOST` (or let `vmxkit generate` write it).

## References
- govmomi `cli/device/pci/add.go` (checks the address against the host's ConfigTarget)
- Broadcom KB 309986
)md";

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    const PassthroughKind kind = v.entry->kind();
    if (kind != PassthroughKind::directpath && kind != PassthroughKind::sriov_vf) continue;
    const std::optional<std::string>& address = v.entry->id ? v.entry->id : v.entry->pf_id;
    if (!address) continue;
    auto bdf = parse_vmx_bdf(*address);
    if (!bdf) bdf = parse_bdf(*address);
    if (!bdf || host_device(ctx, v)) continue;  // PT002 reports ids that are no address
    sink.report(kTOPO001, id_span(ctx, v),
                fmt::format("pciPassthru{} names host device {}, which the host capture does "
                            "not have",
                            v.entry->index, bdf->to_string()));
  }
}

}  // namespace topo001

extern const Check kTOPO001{
    .id = "TOPO001",
    .name = "passthrough-device-not-on-host",
    .severity = Severity::error,
    .summary = "A passthrough address the host does not have",
    .doc = topo001::kDoc,
    .check = &topo001::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
