// SPDX-License-Identifier: Apache-2.0
// vGPU profile names as the vGPU rules read them.
#include "vmxkit/devices/vgpu.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/support.h"

using vmxkit::devices::parse_vgpu_profile;
using vmxkit::devices::VgpuMatch;
using vmxkit::devices::VgpuTable;

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
  CHECK(p->prefix == "grid");
  // A board whose name has a dash, as NVIDIA's Ada workstation types do.
  p = parse_vgpu_profile("nvidia_rtx6000-ada-48q");
  REQUIRE(p);
  CHECK(p->board == "rtx6000-ada");
  CHECK(p->framebuffer_gb == 48);
  CHECK(!p->mig());
  for (const std::string bad :
       {"A100-40C", "grid_a100", "grid_-40c", "grid_a100-40", "grid_a100-c", "grid_a100-40cqq",
        "grid_a100-1-2-40c", "grid_A100-40c", "grid_a100-40C", "grid_a100--40c",
        "grid_a100-99999999c", "vgpu_a100-40c", "grid_a100-1-2-40c", "nvidia_-ada-8q"}) {
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
  CHECK(r.out.find("[PT013]") != std::string::npos);  // but of no board the table knows
  CHECK(r.out.find("Found ") != std::string::npos);
}

TEST_CASE(
    "the vGPU table knows NVIDIA's types, says which prefix ESXi gives them, and names "
    "the nearest real names",
    "[devices][vgpu]") {
  const VgpuTable& t = VgpuTable::builtin();
  CHECK(t.types().size() > 900);
  // NVIDIA AI Enterprise 6, A100 PCIe 40GB table: A100-40C, one per GPU, 40960 MB.
  auto found = t.lookup("grid_a100-40c");
  REQUIRE(found.match == VgpuMatch::known);
  CHECK(found.type->framebuffer_mb == 40960);
  CHECK(found.type->max_per_gpu == 1);
  CHECK(found.type->whole_gpu());
  // vgpuConfig.xml names the L40S types "NVIDIA L40S-48Q": ESXi lists nvidia_l40s-48q.
  found = t.lookup("grid_l40s-48q");
  CHECK(found.match == VgpuMatch::wrong_prefix);
  CHECK(found.type->profile == "nvidia_l40s-48q");
  // The H100 PCIe's prefix is inferred from sibling boards: both are accepted.
  CHECK(t.lookup("nvidia_h100-80c").match == VgpuMatch::known);
  CHECK(t.lookup("grid_h100-80c").match == VgpuMatch::known);
  // A type the board does not offer, a board the table does not know, a name not of the form.
  found = t.lookup("grid_a100-99c");
  CHECK(found.match == VgpuMatch::unknown_type);
  REQUIRE(!found.nearest.empty());
  CHECK(found.nearest.front().starts_with("grid_a100-"));
  CHECK(t.lookup("grid_bogus-99z").match == VgpuMatch::unknown_board);
  found = t.lookup("grid_H100-80C");
  CHECK(found.match == VgpuMatch::malformed);
  REQUIRE(!found.nearest.empty());
  CHECK(found.nearest.front() == "nvidia_h100-80c");
  // The boards of a type, by device id: the H100 PCIe (10de:2331) offers H100 types only.
  for (const auto* type : t.types_for_device(0x2331)) CHECK(type->board == "h100");
}

TEST_CASE("a vGPU table with a bad row is refused at its line", "[devices][vgpu]") {
  CHECK_THROWS_WITH(VgpuTable::parse("# c\nnvidia_x-1c\tX-1C\tx\tnope\t1024\tC\t1\t-\tno\t"
                                     "vgpuconfig\tdirect\ts\n",
                                     "t.tsv"),
                    Catch::StartsWith("t.tsv:2: gpu_ids"));
  CHECK_THROWS_WITH(VgpuTable::parse("a\tb\n", "t.tsv"), Catch::Contains("12 tab-separated"));
}
