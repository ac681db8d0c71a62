// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <string>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/devices/catalog.h"

namespace vmxkit::checks {
namespace guest003 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a GPU whose BAR1, the large 64-bit prefetchable BAR through which GPUDirect RDMA maps GPU
memory, is unassigned or disabled in the guest's `lspci -vvv`, or smaller than the GPU model's
BAR1 (device catalogue), or whose `nvidia-smi -q` shows a smaller BAR1 total than lspci. Without
`lspci -vvv` it is reported as not checked (GUEST012).

## Why is this bad?
In a VM an unassigned or short BAR1 means the VM's 64-bit MMIO window is too small for the
passthrough BARs: the driver cannot map the GPU's memory for peers, and GPUDirect RDMA (or the
GPU itself) fails.

## Example
`Region 1: Memory at <unassigned> (64-bit, prefetchable) [size=128G]` for an H100 in the guest's
`lspci -vvv`:
`0000:03:00.0 (H100 SXM5 80GB): error: BAR1 (the large prefetchable BAR through which GPUDirect
RDMA maps GPU memory) is unassigned: the VM's 64-bit MMIO window is too small for it`

## Fix safety
No automatic fix. Power the VM off; set `pciPassthru.use64bitMMIO = "TRUE"`,
`pciPassthru.64bitMMIOSizeGB` to the power of two the passthrough BARs need
(`vmxkit mmio HOST --device BDF` on the host computes it) and `firmware = "efi"`.

## References
- NVIDIA GPUDirect RDMA guide, "PCI BAR sizes" (BAR1 is "the primary resource consumed by
  GPUDirect RDMA mappings"), https://docs.nvidia.com/cuda/gpudirect-rdma/
- Broadcom KB 323402 (`pciPassthru.64bitMMIOSizeGB`)
)md";

std::uint64_t next_pow2_gib(std::uint64_t bytes) {
  std::uint64_t gib = 1;
  while ((gib << 30) < bytes) gib <<= 1;
  return gib;
}

std::string fix_for(std::uint64_t want) {
  const std::string size =
      want ? fmt::format(
                 " (at least {} for this GPU's BAR1 alone; `vmxkit mmio HOST --device BDF` on "
                 "the host gives the total)",
                 next_pow2_gib(want * 2))
           : " (`vmxkit mmio HOST --device BDF` on the host gives it)";
  return "power the VM off and set pciPassthru.use64bitMMIO = \"TRUE\" and "
         "pciPassthru.64bitMMIOSizeGB to the power of two the passthrough BARs need" +
         size + "; firmware = \"efi\"";
}

void gpu(const GuestContext& ctx, FindingSink& sink, std::size_t i) {
  const pci::Device& d = ctx.pci().at(i);
  const pci::Bar* b = d.bar(1);
  const std::uint64_t want = d.model && d.model->bar1_bytes ? *d.model->bar1_bytes : 0;
  const std::string fix = fix_for(want);
  if (b == nullptr || b->address == 0 || b->disabled) {
    sink.report(kGUEST003, ctx.describe(i),
                fmt::format("BAR1 (the large prefetchable BAR through which GPUDirect RDMA maps "
                            "GPU memory) is {}: the VM's 64-bit MMIO window is too small for it",
                            b == nullptr  ? "missing from lspci"
                            : b->disabled ? "disabled"
                                          : "unassigned"),
                fix, ctx.origin_of(i));
  } else if (b->size && want && *b->size < want) {
    sink.report(kGUEST003, ctx.describe(i),
                fmt::format("BAR1 is {} where this GPU has {}: the VM's 64-bit MMIO window is too "
                            "small (pciPassthru.64bitMMIOSizeGB)",
                            pci::format_size(*b->size), pci::format_size(want)),
                fix, ctx.origin_of(i));
  }
  for (const guest::SmiGpu& s : ctx.guest().smi_gpus()) {
    if (s.bus_id && *s.bus_id == d.bdf && s.bar1_total && b && b->size &&
        *s.bar1_total + (std::uint64_t{64} << 20) < *b->size) {
      sink.report(kGUEST003, ctx.describe(i),
                  fmt::format("nvidia-smi -q shows a BAR1 total of {} where lspci shows {}",
                              pci::format_size(*s.bar1_total), pci::format_size(*b->size)),
                  fix, origin(s.where));
    }
  }
}

void check(const GuestContext& ctx, FindingSink& sink) {
  if (ctx.gpus().empty()) return;
  if (!ctx.guest().has_lspci_verbose()) {
    sink.not_checked(kGUEST003, "GPU BAR1 size and assignment", "`lspci -vvv` in the guest");
    return;
  }
  for (const std::size_t i : ctx.gpus()) gpu(ctx, sink, i);
}

}  // namespace guest003

extern const Check kGUEST003{
    .id = "GUEST003",
    .name = "bar1-small",
    .kind = Kind::guest,
    .severity = Severity::error,
    .summary =
        "a GPU's BAR1 is unassigned or smaller than the GPU's: the VM's 64-bit MMIO window "
        "is too small",
    .doc = guest003::kDoc,
    .check_guest = &guest003::check,
};

}  // namespace vmxkit::checks
