// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/mmio_requirement.h"
#include "vmxkit/checks/util.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace mmio005 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM that passes a GPU (DirectPath or vGPU) with large BARs (64-bit MMIO enabled, or BARs
beyond 16 GB) with `firmware` other than `efi` (or no `firmware`, which means BIOS).

## Why is this bad?
GPU BARs of 16 GB and more are mapped above 4 GB, which a BIOS guest cannot do: the VM fails to
power on or the guest driver finds "BAR1 is 0M". VMware's own guides require an EFI guest for
large-BAR passthrough.

## Example
```
firmware = "bios"
```
Use `firmware = "efi"` for a new VM.

## Fix safety
Display only: switching an installed guest from BIOS to EFI makes it unbootable, because its
disk has no EFI boot partition. Create the VM with EFI and install the guest, or convert the
guest's disk to GPT with an EFI system partition first (for example with `mbr2gpt` on Windows),
then change the setting.

## References
- VMware blog "How to enable compute accelerators on vSphere 6.5" (EFI for large BARs)
- VMware blog "How to enable NVIDIA V100 GPU in passthrough mode on vSphere"
- Terraform vSphere provider `firmware = "efi"`
- NVIDIA AI Enterprise, "Optimizing VM configuration for AI inference", appendix (VMware): a vGPU
  VM with 32 GB or more of memory needs "64-bit MMIO and EFI boot"
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.count(DeviceClass::gpu) == 0) return;
  // Only large BARs need EFI: 64-bit MMIO asked for, or needed by the devices.
  const bool large = ctx.config().get_bool(kUse64bitMmio).value_or(false) || [&] {
    const auto req = mmio_requirement(ctx);
    return req && req->result.size_gb > 16;
  }();
  if (!large) return;
  const auto firmware = ctx.config().firmware();
  if (firmware && iequals(*firmware, "efi")) return;
  const Setting* s = ctx.config().find("firmware");
  const SourceSpan where = s != nullptr ? s->value_span : anchor_for_missing_key(ctx);
  Diagnostic& d = sink.report(
      kMMIO005, where,
      fmt::format("firmware is {}: passthrough GPUs with large BARs need an EFI guest",
                  firmware ? fmt::format("'{}'", *firmware) : std::string("not set (BIOS)")));
  d.fix =
      Fix{"Use firmware = \"efi\" for a new VM; an installed BIOS guest must be converted to "
          "GPT/EFI first",
          FixSafety::display_only,
          {}};
}

}  // namespace mmio005

extern const Check kMMIO005{
    .id = "MMIO005",
    .name = "firmware-not-efi",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "A GPU passthrough VM whose firmware is not EFI",
    .doc = mmio005::kDoc,
    .check = &mmio005::check,
};

}  // namespace vmxkit::checks
