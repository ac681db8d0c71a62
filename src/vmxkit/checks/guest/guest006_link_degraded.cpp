// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <charconv>
#include <string_view>
#include <system_error>
#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest006 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a GPU or RDMA NIC whose link status (`LnkSta`) speed or width in the guest's `lspci -vvv`
is below its link capability (`LnkCap`). Without `lspci -vvv` it is reported as not checked
(GUEST012).

## Why is this bad?
A link that trained below its capability caps every transfer to and from the device, GPUDirect
RDMA included. Compare with the host's `lspci -vvv`: degraded there is the slot, riser or card;
a guest-only difference is what the virtual port reports.

## Example
`LnkCap: Port #0, Speed 32GT/s, Width x16` and
`LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)` for the H100 of a KVM guest:
`0000:01:00.0 (H100 SXM5 80GB): warning: link runs at 2.5GT/s x16 where the device can do
32GT/s x16`

## Fix safety
No automatic fix. Compare with the host's `lspci -vvv` for the device; reseat the card, check
the riser and the BIOS PCIe settings when the host's link is degraded too.

## References
- PCI Express Base Specification (Link Capabilities, Link Status registers)
- pciutils `ls-caps.c` (`LnkCap`, `LnkSta`)
)md";

// "16GT/s" -> 16.0; 0 when unreadable.
double link_speed(std::string_view s) {
  const auto gt = s.find("GT/s");
  if (gt == std::string_view::npos) return 0;
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + gt, v);
  return r.ec == std::errc() ? v : 0;
}

void device(const GuestContext& ctx, FindingSink& sink, std::size_t i) {
  const pci::Device& d = ctx.pci().at(i);
  if (!d.link_cap || !d.link_sta) return;
  const double cap = link_speed(d.link_cap->speed);
  const double sta = link_speed(d.link_sta->speed);
  const bool slow = cap > 0 && sta > 0 && sta < cap;
  const bool narrow = d.link_cap->width && d.link_sta->width && *d.link_sta->width > 0 &&
                      *d.link_sta->width < *d.link_cap->width;
  if (!slow && !narrow) return;
  sink.report(
      kGUEST006, ctx.describe(i),
      fmt::format("link runs at {} x{} where the device can do {} x{}", d.link_sta->speed,
                  d.link_sta->width.value_or(0), d.link_cap->speed, d.link_cap->width.value_or(0)),
      "compare with the host's `lspci -vvv` for this device: a degraded link there is the "
      "slot, riser or card (reseat it, check the BIOS PCIe settings); a guest-only "
      "difference is what the virtual port reports",
      ctx.origin_of(i));
}

void check(const GuestContext& ctx, FindingSink& sink) {
  if (ctx.gpus().empty() && ctx.nics().empty()) return;
  if (!ctx.guest().has_lspci_verbose()) {
    sink.not_checked(kGUEST006, "GPU and NIC link speed and width", "`lspci -vvv` in the guest");
    return;
  }
  for (const std::size_t i : ctx.gpus()) device(ctx, sink, i);
  for (const std::size_t i : ctx.nics()) device(ctx, sink, i);
}

}  // namespace guest006

extern const Check kGUEST006{
    .id = "GUEST006",
    .name = "link-degraded",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "a GPU's or NIC's link runs below its capability (LnkSta < LnkCap)",
    .doc = guest006::kDoc,
    .check_guest = &guest006::check,
};

}  // namespace vmxkit::checks
