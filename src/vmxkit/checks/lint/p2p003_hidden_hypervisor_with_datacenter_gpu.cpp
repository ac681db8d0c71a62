// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/devices/catalog.h"

namespace vmxkit::checks {
namespace p2p003 {

constexpr std::string_view kDoc = R"md(
## What it does
Notes `hypervisor.cpuid.v0 = "FALSE"` in a VM whose passthrough GPUs are data-center or
professional models (or vGPUs).

## Why is this bad?
Hiding the hypervisor is a workaround for consumer GeForce drivers ("code 43"). Data-center GPUs
do not need it, and one report says it left the GPU disabled on vSphere 7. It also hides the
hypervisor from the guest's own tuning.

## Example
```
hypervisor.cpuid.v0 = "FALSE"
```
Remove the line unless a consumer GPU needs it.

## Fix safety
Display only: whether the guest driver needs it is not visible from the file.

## References
- thegnome.nchar.com vcenter-links/gpu-passthrough (the consumer-GPU workaround)
- t2.re/archives/1199 (GPU disabled with the key set on 7.x)
)md";

void check(const Context& ctx, Sink& sink) {
  const Setting* s = ctx.config().find("hypervisor.cpuid.v0");
  if (s == nullptr || parse_bool(s->value) != false) return;
  for (const VmDevice& v : ctx.devices()) {
    if (v.cls != DeviceClass::gpu) continue;
    const bool datacenter = v.entry->kind() == PassthroughKind::vgpu ||
                            (v.model != nullptr && v.model->gdr == pci::GdrSupport::yes);
    if (!datacenter) continue;
    Diagnostic& d = sink.report(
        kP2P003, s->whole,
        fmt::format("hypervisor.cpuid.v0 = FALSE is a consumer-GPU workaround; {} does not "
                    "need it",
                    v.label));
    d.fix = Fix{
        "Remove hypervisor.cpuid.v0 unless the guest driver needs it", FixSafety::display_only, {}};
    return;
  }
}

}  // namespace p2p003

extern const Check kP2P003{
    .id = "P2P003",
    .name = "hidden-hypervisor-with-datacenter-gpu",
    .severity = Severity::info,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "hypervisor.cpuid.v0 = FALSE with a data-center GPU",
    .doc = p2p003::kDoc,
    .check = &p2p003::check,
};

}  // namespace vmxkit::checks
