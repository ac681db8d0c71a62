// SPDX-License-Identifier: Apache-2.0
// vGPU profile names as the vGPU rules read them.
#include "vmxkit/devices/vgpu.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/support.h"

using vmxkit::checks::parse_vgpu_profile;

TEST_CASE("vGPU profile names split into board, MIG slices, framebuffer and series",
          "[rules][vgpu]") {
  auto p = parse_vgpu_profile("grid_a100-40c");
  REQUIRE(p);
  CHECK(p->board == "a100");
  CHECK(p->slices == 0);
  CHECK(p->framebuffer_gb == 40);
  CHECK(p->series == "c");
  p = parse_vgpu_profile("nvidia_h100-3-40c");
  REQUIRE(p);
  CHECK(p->mig());
  CHECK(p->slices == 3);
  CHECK(p->framebuffer_gb == 40);
  p = parse_vgpu_profile("grid_rtx6000-8qa");
  REQUIRE(p);
  CHECK(p->series == "qa");
  for (const std::string bad :
       {"A100-40C", "grid_a100", "grid_-40c", "grid_a100-40", "grid_a100-c", "grid_a100-40cqq",
        "grid_a100-1-2-40c", "grid_A100-40c", "grid_a100-40C", "grid_a100--40c",
        "grid_a100-99999999c", "vgpu_a100-40c"}) {
    INFO(bad);
    CHECK(!parse_vgpu_profile(bad));
  }
}

TEST_CASE("a vGPU profile of several megabytes is linted, not a crash", "[rules][vgpu]") {
  // std::regex recursed per character here and overflowed the stack (exit 139).
  const std::string text = "pciPassthru0.present = \"TRUE\"\npciPassthru0.vgpu = \"grid_" +
                           std::string(4'000'000, 'a') + "-40c\"\n";
  const auto r = vmxkit::test::run_cli({"lint", "-"}, text);
  CHECK(r.code == 1);
  CHECK(r.out.find("[PT006]") == std::string::npos);  // the name is of the form: no PT006
  CHECK(r.out.find("Found ") != std::string::npos);
}
