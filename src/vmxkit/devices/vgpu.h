// SPDX-License-Identifier: Apache-2.0
// NVIDIA vGPU profile names (`grid_a100-40c`, `grid_a100-3-20c`), split into what the vGPU rules
// compare.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vmxkit::checks {

struct VgpuProfile {
  std::string board;    ///< "a100", "h100", "a16"
  unsigned slices = 0;  ///< MIG compute slices (`grid_a100-3-20c`: 3); 0 when time-sliced
  unsigned framebuffer_gb = 0;
  std::string series;  ///< "c" (compute), "q", "b", "a"
  bool mig() const { return slices != 0; }
};

/// The parts of a profile name in NVIDIA's form, or nullopt (PT006 reports those).
std::optional<VgpuProfile> parse_vgpu_profile(std::string_view name);

}  // namespace vmxkit::checks
