// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest014 {

constexpr std::string_view kDoc = R"md(
## What it does
Where `nvidia_peermem` is loaded, compares `/sys/module/nvidia_peermem/version` with
`/sys/module/nvidia/version` and flags a difference. Without both versions it is reported as not
checked (GUEST012).

## Why is this bad?
nvidia_peermem ships with the driver package and calls into the loaded `nvidia` module: one of
another release was left over from an earlier driver, and peer memory registration can fail or
crash.

## Example
`/sys/module/nvidia/version:550.54.15` and `/sys/module/nvidia_peermem/version:535.129.03`:
`nvidia_peermem: warning: nvidia_peermem 535.129.03 is not from the loaded driver 550.54.15:
peer memory registration can fail or crash`

## Fix safety
No automatic fix. Reinstall the driver package so both come from one release, then
`rmmod nvidia_peermem && modprobe nvidia-peermem`.

## References
- NVIDIA GPUDirect RDMA guide, "Using nvidia-peermem" (the module is part of the driver
  package), https://docs.nvidia.com/cuda/gpudirect-rdma/
)md";

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  if (g.module_loaded("nvidia_peermem") != true) return;
  const auto& mv = g.module_versions();
  const auto p = mv.find("nvidia_peermem");
  const auto n = mv.find("nvidia");
  if (p == mv.end() || n == mv.end()) {
    sink.not_checked(kGUEST014, "nvidia_peermem and nvidia versions",
                     "`grep . /sys/module/nvidia*/version`");
    return;
  }
  if (p->second.value == n->second.value) return;
  sink.report(kGUEST014, "nvidia_peermem",
              fmt::format("nvidia_peermem {} is not from the loaded driver {}: peer memory "
                          "registration can fail or crash",
                          p->second.value, n->second.value),
              "reinstall the driver package so both come from one release, then `rmmod "
              "nvidia_peermem && modprobe nvidia-peermem`",
              origin(p->second.where));
}

}  // namespace guest014

extern const Check kGUEST014{
    .id = "GUEST014",
    .name = "peermem-version",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary = "nvidia_peermem and nvidia are of different driver versions",
    .doc = guest014::kDoc,
    .check_guest = &guest014::check,
};

}  // namespace vmxkit::checks
