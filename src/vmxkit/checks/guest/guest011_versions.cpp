// SPDX-License-Identifier: Apache-2.0
#include <string>
#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest011 {

constexpr std::string_view kDoc = R"md(
## What it does
Says the versions the inputs show, as one info: the NVIDIA driver (and its kernel module
flavour, open or proprietary), CUDA (the driver's CUDA version from nvidia-smi), the kernel,
MLNX_OFED, the nvidia_peermem, mlx5_core and ib_core module versions, and the NICs' firmware. A
missing driver version (where the guest has or may have a GPU) or kernel release is reported as
not checked (GUEST012).

## Why is this bad?
It is not a problem: the versions are what a support case or a comparison across a fleet's
guests asks for first, and what NVIDIA's compatibility tables are read with.

## Example
`info: found: NVIDIA driver 550.54.15 (open kernel module), CUDA 12.4 (driver API), kernel
5.15.0-91-generic, MLNX_OFED_LINUX-23.10-1.1.9.0, ...`

## Fix safety
Nothing to fix.

## References
- The inputs: `nvidia-smi` (Driver Version, CUDA Version), `/proc/driver/nvidia/version`,
  `uname -r`, `ofed_info -s`, `/sys/module/*/version`, `ibv_devinfo` (`fw_ver`)
)md";

std::vector<std::string> found(const guest::Guest& g) {
  std::vector<std::string> out;
  if (const auto& d = g.driver_version()) {
    std::string s = "NVIDIA driver " + d->value;
    if (const auto& o = g.open_kernel_module()) s += " (" + o->value + " kernel module)";
    out.push_back(s);
  }
  if (const auto& c = g.cuda_version()) out.push_back("CUDA " + c->value + " (driver API)");
  if (const auto& k = g.kernel()) out.push_back("kernel " + k->text);
  if (const auto& o = g.ofed_version()) out.push_back(o->value);
  for (const auto& [name, f] : g.module_versions()) {
    if (name == "nvidia_peermem" || name == "mlx5_core" || name == "ib_core") {
      out.push_back(name + " " + f.value);
    }
  }
  if (const auto& ib = g.ib_devices()) {
    for (const guest::IbDevice& d : *ib) {
      if (!d.fw_ver.empty()) out.push_back(d.name + " firmware " + d.fw_ver);
    }
  }
  return out;
}

void check(const GuestContext& ctx, FindingSink& sink) {
  const guest::Guest& g = ctx.guest();
  const std::vector<std::string> versions = found(g);
  if (!versions.empty()) {
    std::string text;
    for (const std::string& f : versions) text += (text.empty() ? "" : ", ") + f;
    sink.report(kGUEST011, {}, "found: " + text);
  }
  if (!g.driver_version() && (!ctx.gpus().empty() || !g.smi_gpus().empty() || !ctx.gpus_known())) {
    sink.not_checked(kGUEST011, "NVIDIA driver version",
                     "`nvidia-smi -q` or `grep . /sys/module/nvidia/version`");
  }
  if (!g.kernel()) sink.not_checked(kGUEST011, "kernel release", "`uname -r`");
}

}  // namespace guest011

extern const Check kGUEST011{
    .id = "GUEST011",
    .name = "versions",
    .kind = Kind::guest,
    .severity = Severity::info,
    .summary = "the driver, CUDA, kernel and RDMA stack versions found",
    .doc = guest011::kDoc,
    .check_guest = &guest011::check,
};

}  // namespace vmxkit::checks
