// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest007 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a guest whose full `lspci` shows no NVIDIA GPU while `nvidia-smi` shows none either. A
filtered `lspci` (`lspci | grep -i nvidia`) proves no absence: with neither a full `lspci` nor
`nvidia-smi` it is reported as not checked (GUEST012).

## Why is this bad?
The passthrough GPU is not in this VM: nothing else about GPUDirect RDMA matters until it is.

## Example
A guest `lspci -nn` with VMware's emulated devices and a ConnectX-7 only:
`error: the guest's lspci shows no NVIDIA GPU: the passthrough GPU is not in this VM`

## Fix safety
No automatic fix. Add the GPU to the VM (`pciPassthruN.*` entries; `vmxkit generate`), power it
on, then run `lspci -nn | grep -i nvidia` in the guest.

## References
- The guest's `lspci`: NVIDIA's PCI vendor id is 10de (pci.ids, https://pci-ids.ucw.cz/)
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (g.has_full_lspci()) {
    if (ctx.gpus().empty() && g.smi_gpus().empty()) {
      sink.report(kGUEST007, {},
                  "the guest's lspci shows no NVIDIA GPU: the passthrough GPU is not in this VM",
                  "add the GPU to the VM (pciPassthruN.* entries, `vmxkit generate`), power it "
                  "on, then run `lspci -nn | grep -i nvidia` in the guest");
    }
  } else if (g.smi_gpus().empty()) {
    sink.not_checked(kGUEST007, "GPU present", "a full `lspci -nn` or `nvidia-smi`");
  }
}

}  // namespace guest007

extern const Check kGUEST007{
    .id = "GUEST007",
    .name = "no-nvidia-gpu",
    .kind = Kind::guest,
    .severity = Severity::error,
    .summary = "no NVIDIA GPU in the guest",
    .doc = guest007::kDoc,
    .check_guest = &guest007::check,
};

}  // namespace vmxkit::checks
