// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "vmxkit/checks/all.h"
#include "vmxkit/devices/vgpu.h"
#include "vmxkit/model/host.h"

namespace vmxkit::checks {
namespace topo012 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a vGPU whose type (from vmxkit's vGPU table) no GPU of the host offers:
the boards that offer it (by PCI device id) are not among the host's GPUs. The message lists the
types of the same series the host's GPUs do offer.

## Why is this bad?
ESXi places a vGPU only on a GPU whose vGPU manager offers the type: on a host with other GPUs
(an A100 profile on an H100 host) the VM does not power on there.

## Example
`pciPassthru0.vgpu = "grid_a100-40c"` linted against a host with H100 PCIe GPUs only.

## Fix safety
No automatic fix: choose a type the host offers (`vmxkit generate --host HOST --vgpu ...`).

## References
- NVIDIA vGPU host driver's `vgpuConfig.xml` (`pgpu` entries: the types each board offers)
- vSphere API `HostConfigInfo.sharedGpuCapabilities`
)md";

void check(const Context& ctx, Sink& sink) {
  const pci::Host& host = *ctx.host();
  std::set<std::uint16_t> gpu_ids;
  bool unnamed_gpu = false;
  for (const pci::Device& d : host.devices()) {
    if (d.role != pci::Role::gpu) continue;
    if (d.vendor_id == 0x10de && d.device_id) {
      gpu_ids.insert(*d.device_id);
    } else {
      unnamed_gpu = true;  // lspci -tv without ids: its board is not known
    }
  }
  if (unnamed_gpu) return;
  const devices::VgpuTable& table = devices::VgpuTable::builtin();
  for (const VmDevice& v : ctx.devices()) {
    const Setting* s = ctx.device_setting(*v.entry, "vgpu");
    if (s == nullptr) continue;
    const devices::VgpuLookup found = table.lookup(s->value);
    if (found.match != devices::VgpuMatch::known) continue;
    const auto& ids = found.type->device_ids;
    if (std::any_of(ids.begin(), ids.end(), [&](std::uint16_t id) { return gpu_ids.count(id); })) {
      continue;
    }
    std::vector<std::string> offered;
    for (const devices::VgpuType* t :
         table.offered({gpu_ids.begin(), gpu_ids.end()}, found.type->series)) {
      offered.push_back(t->profile);
    }
    sink.report(kTOPO012, s->value_span,
                fmt::format("vGPU type {} ({} board) is offered by no GPU of the host; the host's "
                            "GPUs offer: {}",
                            found.type->profile, found.type->board,
                            offered.empty() ? std::string("none in vmxkit's vGPU table")
                                            : fmt::format("{}", fmt::join(offered, ", "))));
  }
}

}  // namespace topo012

extern const Check kTOPO012{
    .id = "TOPO012",
    .name = "vgpu-board-not-on-host",
    .severity = Severity::error,
    .summary = "A vGPU type that no GPU of the host offers",
    .doc = topo012::kDoc,
    .check = &topo012::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
