// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace pt005 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM with more present passthrough devices than its virtual hardware version allows:
16 up to hardware version 19 (ESXi 7.x), 64 for version 20 (ESXi 8.0 U1; ESXi 8.0 itself allows
32) and 128 from version 21 (ESXi 8.0 U2).

## Why is this bad?
The VM does not power on. Eight GPUs, their audio functions and eight NIC VFs reach 16 quickly.

## Example
Seventeen `pciPassthruN.present = "TRUE"` entries with `virtualHW.version = "19"`.

## Fix safety
No automatic fix: upgrade the virtual hardware (and host), or pass fewer devices.

## References
- Broadcom KB 309986 (per-VM maximums by ESXi release and hardware version)
)md";

std::optional<std::size_t> limit_for(std::int64_t hw) {
  if (hw <= 0) return std::nullopt;
  if (hw <= 19) return 16;
  if (hw == 20) return 64;
  return 128;
}

void check(const Context& ctx, Sink& sink) {
  const auto hw = ctx.config().get_int("virtualHW.version");
  if (!hw) return;
  const auto limit = limit_for(*hw);
  const std::size_t count = ctx.devices().size();
  if (!limit || count <= *limit) return;
  const VmDevice& over = ctx.devices()[*limit];
  Diagnostic& d =
      sink.report(kPT005, ctx.device_span(*over.entry),
                  fmt::format("{} passthrough devices, but virtual hardware version {} allows {}",
                              count, *hw, *limit));
  if (const Setting* s = ctx.config().find("virtualHW.version")) {
    d.notes.push_back({s->value_span.begin, s->value_span.end, "hardware version set here"});
  }
}

}  // namespace pt005

extern const Check kPT005{
    .id = "PT005",
    .name = "too-many-passthrough-devices",
    .severity = Severity::error,
    .summary = "More passthrough devices than the hardware version allows",
    .doc = pt005::kDoc,
    .check = &pt005::check,
};

}  // namespace vmxkit::checks
