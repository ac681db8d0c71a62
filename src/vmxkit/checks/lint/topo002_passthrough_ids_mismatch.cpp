// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo002 {

constexpr std::string_view kDoc = R"md(
## What it does
With `--host`, flags a DirectPath entry whose `vendorId`/`deviceId` differ from the device the
host has at its address.

## Why is this bad?
ESXi checks them at power-on and refuses: "the deviceId and vendorId do not match the device
currently at <bus:device.function>". The entry was copied from another host, or the ids were
written in the wrong base (govmomi issue #2248).

## Example
`pciPassthru0.deviceId = "0x2330"` for a host device that is `10de:2331`.

## Fix safety
Safe: the ids are replaced by the host device's, in the `0x` form ESXi writes.

## References
- govmomi issue #2248 (deviceId written in the wrong base; power-on failure message)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    if (v.entry->kind() != PassthroughKind::directpath) continue;
    const auto index = host_device(ctx, v);
    if (!index) continue;
    const pci::Device& dev = ctx.host()->at(*index);
    if (!dev.vendor_id || !dev.device_id || !v.vendor_id || !v.device_id) continue;
    if (*dev.vendor_id == *v.vendor_id && *dev.device_id == *v.device_id) continue;
    const std::string host_vendor = fmt::format("0x{:04x}", *dev.vendor_id);
    const std::string host_device_id = fmt::format("0x{:04x}", *dev.device_id);
    const Setting* did = ctx.device_setting(*v.entry, "deviceId");
    const Setting* vid = ctx.device_setting(*v.entry, "vendorId");
    Diagnostic& d = sink.report(
        kTOPO002, did != nullptr ? did->value_span : id_span(ctx, v),
        fmt::format("pciPassthru{} says {:04x}:{:04x}, but the host has {} ({:04x}:{:04x}) at "
                    "that address",
                    v.entry->index, *v.vendor_id, *v.device_id, ctx.host()->describe(*index),
                    *dev.vendor_id, *dev.device_id));
    if (ctx.document() != nullptr && did != nullptr && vid != nullptr) {
      Fix fix{"Use the host device's ids", FixSafety::safe, {}};
      if (*v.device_id != *dev.device_id) {
        fix.edits.push_back({did->value_span.begin, did->value_span.end, host_device_id});
      }
      if (*v.vendor_id != *dev.vendor_id) {
        fix.edits.push_back({vid->value_span.begin, vid->value_span.end, host_vendor});
      }
      d.fix = std::move(fix);
    }
  }
}

}  // namespace topo002

extern const Check kTOPO002{
    .id = "TOPO002",
    .name = "passthrough-ids-mismatch",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::safe,
    .summary = "vendorId/deviceId that differ from the host device at that address",
    .doc = topo002::kDoc,
    .check = &topo002::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
