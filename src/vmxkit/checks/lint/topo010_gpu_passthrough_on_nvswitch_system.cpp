// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo010 {

constexpr std::string_view kDoc = R"md(
## What it does
With a `--host` capture that shows NVSwitch devices (`10de:1af1` on HGX A100 baseboards,
`10de:22a3` on HGX H100/H200), flags every GPU the VM takes by passthrough (DirectPath I/O or
Dynamic DirectPath I/O). vGPU entries are not flagged.

## Why is this bad?
NVIDIA does not support it: "GPU passthrough is not supported on NVIDIA Systems that include
NVSwitch when using VMware vSphere". On those systems the GPUs reach each other through the
NVSwitches, which the hypervisor's vGPU manager (the VMkernel's NVIDIA driver) has to manage; a
VM owning a GPU outright leaves the NVLink fabric unmanaged. NVIDIA's supported way is
time-sliced vGPU, with all vGPUs that talk peer-to-peer in one VM.

## Example
```
pciPassthru0.id = "00000:024:00.0"
```
where the host's `lspci -vvv` also lists `Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch]`.

## Fix safety
No automatic fix: use a time-sliced vGPU profile of the whole GPU
(`pciPassthru0.vgpu = "nvidia_h100xm-80c"`; `vmxkit generate --vgpu nvidia_h100xm-80c`) in place of the
passthrough entry, with the host's GPUs left to the NVIDIA vGPU manager.

## References
- NVIDIA AI Enterprise documentation, vGPU features, NVSwitch: "GPU passthrough is not supported
  on NVIDIA Systems that include NVSwitch when using VMware vSphere"; "Only time-sliced vGPUs are
  supported"; platforms HGX A100/H100/H800/H200/B200/B300 8-GPU
- pci.ids: 10de:1af1 "GA100 [A100 NVSwitch]", 10de:22a3 "GH100 [H100 NVSwitch]"
)md";

void check(const Context& ctx, Sink& sink) {
  const pci::Host& host = *ctx.host();
  const std::vector<std::size_t> found = pci::nvswitches(host);
  if (found.empty()) return;
  const std::size_t count = found.size();
  const pci::Device* nvswitch = &host.at(found.front());
  for (const VmDevice& v : ctx.devices()) {
    if (v.cls != DeviceClass::gpu || v.entry->kind() == PassthroughKind::vgpu) continue;
    Diagnostic& d = sink.report(
        kTOPO010, id_span(ctx, v),
        fmt::format("{}: GPU passthrough on a host with NVSwitch ({} NVSwitch device{}, the "
                    "first {}): NVIDIA supports only time-sliced vGPU on NVSwitch systems "
                    "with vSphere",
                    v.label, count, count == 1 ? "" : "s", nvswitch->bdf.to_string()));
    d.fix =
        Fix{"use a time-sliced vGPU profile of the whole GPU (pciPassthruN.vgpu, e.g. "
            "\"nvidia_h100xm-80c\" on HGX H100) in place of the passthrough entry",
            FixSafety::display_only,
            {}};
  }
}

}  // namespace topo010

extern const Check kTOPO010{
    .id = "TOPO010",
    .name = "gpu-passthrough-on-nvswitch-system",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "GPU passthrough on an NVSwitch system, which NVIDIA does not support on vSphere",
    .doc = topo010::kDoc,
    .check = &topo010::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
