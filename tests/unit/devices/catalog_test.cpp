// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/catalog.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"

using vmxkit::pci::Catalog;
using vmxkit::pci::GdrSupport;
using vmxkit::pci::NvlinkSupport;
using vmxkit::pci::Role;

namespace {

// A user catalogue line of a GPU with `nvlink` in the nvlink column (column 32).
std::string gpu_line(const std::string& nvlink) {
  return "10de:9999\tx\tX\tgpu\t-\t16\t-\t-\tyes\t" + nvlink + "\t-\ts\n";
}

}  // namespace

TEST_CASE("built-in catalogue finds models by id, alias and lspci name", "[pci][catalog]") {
  const Catalog& c = Catalog::builtin();
  const auto* h100 = c.find_alias("h100-pcie");
  REQUIRE(h100 != nullptr);
  CHECK(h100->id_string() == "10de:2331");
  CHECK(h100->role == Role::gpu);
  CHECK(h100->framebuffer_gb == 80u);
  CHECK(!h100->bar1_bytes);  // not confirmed by a source: unknown, not guessed
  CHECK(c.find_alias("CX7")->vf_device_id == 0x101e);
  CHECK(c.find_alias("10de:26b1")->model == "RTX 6000 Ada Generation");
  CHECK(c.find_name("NVIDIA Corporation GA102GL [RTX A6000]")->device_id == 0x2230);
  CHECK(c.find_name("Mellanox Technologies MT2910 Family [ConnectX-7]")->device_id == 0x1021);
  CHECK(c.find_name("NVIDIA Corporation GA102 High Definition Audio Controller") == nullptr);
  CHECK(c.find_alias("rtx4090")->gdr == GdrSupport::no);
  for (const auto& e : c.entries()) {
    INFO(e.id_string());
    CHECK(!e.source.empty());
    CHECK(!e.model.empty());
  }
}

TEST_CASE("a user catalogue overrides and adds entries, bad lines name file:line",
          "[pci][catalog]") {
  Catalog c = Catalog::builtin();
  c.merge(Catalog::parse(
      "# mine\n10de:2331\th100-pcie\tH100 PCIe\tgpu\t-\t80\t128G\t3:32M\tyes\t-\tmy lab\n"
      "10de:9999\tnew-gpu\tNew\tgpu\t-\t16\t-\t-\tunknown\t-\tguess\n",
      "mine.tsv"));
  CHECK(c.find(0x10de, 0x2331)->bar1_bytes == (std::uint64_t{128} << 30));
  CHECK(c.find(0x10de, 0x2331)->origin == "mine.tsv:2");
  CHECK(c.find_alias("new-gpu") != nullptr);
  try {
    (void)Catalog::parse("10de:1\tx\n", "bad.tsv");
    FAIL("no error");
  } catch (const vmxkit::Error& e) {
    CHECK(std::string(e.what()).rfind("bad.tsv:1:1: expected 12 tab-separated columns", 0) == 0);
  }
  CHECK_THROWS_WITH(Catalog::parse("10de:1\ta\tb\tgpu\t-\t-\t64Q\t-\tyes\t-\ts\n", "b.tsv"),
                    Catch::Contains("b.tsv:1:20: bar1 must be a size"));
  CHECK_THROWS_WITH(Catalog::parse("10de:1\ta\tb\tGPU\t-\t-\t-\t-\tyes\t-\ts\n", "r.tsv"),
                    Catch::StartsWith("r.tsv:1:12: role must be"));
}

TEST_CASE("a user catalogue with an absurd framebuffer or BAR size is refused at the field",
          "[pci][catalog][mmio]") {
  auto line = [](const std::string& fb, const std::string& bar1, const std::string& bars) {
    return "10de:9999\tbig\tBig\tgpu\t-\t" + fb + "\t" + bar1 + "\t" + bars + "\tyes\t-\ts\n";
  };
  CHECK_THROWS_WITH(Catalog::parse(line("3000000000", "-", "-"), "fb.tsv"),
                    "fb.tsv:1:25: framebuffer_gb 3000000000 is above 16384 (16 TiB): not a GPU's");
  CHECK(Catalog::parse(line("16384", "-", "-"), "ok.tsv").entries()[0].framebuffer_gb == 16384u);
  CHECK_THROWS_WITH(Catalog::parse(line("80", "8192T", "-"), "bar1.tsv"),
                    "bar1.tsv:1:28: bar1 must be a size like 64G (at most 4096T) or -");
  CHECK(Catalog::parse(line("80", "4096T", "-"), "ok.tsv").entries()[0].bar1_bytes ==
        vmxkit::pci::kMaxBarBytes);
  CHECK_THROWS_WITH(Catalog::parse(line("80", "-", "3:32M,5:4097T"), "bars.tsv"),
                    Catch::StartsWith("bars.tsv:1:30: bars must be like 3:32M,5:16M"));
  CHECK_THROWS_WITH(Catalog::parse(line("80", "0", "-"), "zero.tsv"),
                    Catch::StartsWith("zero.tsv:1:28: bar1 must be a size"));
}

TEST_CASE("the nvlink column reads every value, and an 11-column line of the older format",
          "[pci][catalog][nvlink]") {
  auto read = [](const std::string& value) {
    return Catalog::parse(gpu_line(value), "n.tsv").entries().at(0);
  };
  CHECK(read("no").nvlink == NvlinkSupport::no);
  CHECK(read("baseboard").nvlink == NvlinkSupport::baseboard);
  CHECK(read("bridge").nvlink == NvlinkSupport::bridge);
  CHECK_FALSE(read("bridge").nvlink_bridge_gpus);
  CHECK(read("bridge:2").nvlink == NvlinkSupport::bridge);
  CHECK(read("bridge:2").nvlink_bridge_gpus == 2u);
  CHECK(read("bridge:4").nvlink_bridge_gpus == 4u);
  CHECK(read("bridge:8").nvlink_bridge_gpus == 8u);
  CHECK(read("-").nvlink == NvlinkSupport::unknown);
  CHECK(read("unknown").nvlink == NvlinkSupport::unknown);
  CHECK_FALSE(read("baseboard").nvlink_bridge_gpus);
  // The columns after nvlink are where they belong.
  const auto e =
      Catalog::parse("10de:9999\tx\tX\tgpu\t-\t16\t-\t-\tno\tbridge:2\t1018\tmine\n", "n.tsv")
          .entries()
          .at(0);
  CHECK(e.gdr == GdrSupport::no);
  CHECK(e.vf_device_id == 0x1018);
  CHECK(e.source == "mine");
  // A line of the 11 columns before nvlink: read as it was, nvlink not known.
  const auto old = Catalog::parse("10de:9999\tx\tX\tgpu\t-\t16\t-\t-\tyes\t1018\tmine\n", "old.tsv")
                       .entries()
                       .at(0);
  CHECK(old.nvlink == NvlinkSupport::unknown);
  CHECK(old.vf_device_id == 0x1018);
  CHECK(old.source == "mine");
  // Its errors name its own columns.
  CHECK_THROWS_WITH(Catalog::parse("10de:9999\tx\tX\tgpu\t-\t16\t-\t-\tyes\tzz\tmine\n", "old.tsv"),
                    Catch::StartsWith("old.tsv:1:32: expected a hex id"));
  CHECK(vmxkit::pci::to_string(NvlinkSupport::bridge) == "bridge");
  CHECK(vmxkit::pci::to_string(NvlinkSupport::unknown) == "unknown");
}

TEST_CASE("a bad nvlink value is refused at its file:line:col", "[pci][catalog][nvlink]") {
  for (const char* bad : {"yes", "NVLink", "bridge:", "bridge:1", "bridge:9", "bridge:x",
                          "bridge:2:3", "sxm", "", "Bridge"}) {
    INFO(bad);
    CHECK_THROWS_WITH(Catalog::parse("# a comment line\n" + gpu_line(bad), "bad.tsv"),
                      Catch::StartsWith("bad.tsv:2:32: nvlink "));
  }
  // Through the command line: an input error, exit 2, nothing on stdout.
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "bad.tsv", gpu_line("bridge:1"));
  const auto r =
      vmxkit::test::run_cli({"generate", "--catalog", (dir / "bad.tsv").string(), "--list-models"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find((dir / "bad.tsv").string() + ":1:32: nvlink bridge:N takes a number of boards "
                                                "from 2 to 8") != std::string::npos);
}

TEST_CASE("every built-in GPU row gives nvlink, and each value but - names its NVLink source",
          "[pci][catalog][nvlink]") {
  // The file itself: every row has the 12 columns, so no GPU row is read in the older layout
  // without an nvlink value.
  const std::string text =
      vmxkit::test::read_bytes(vmxkit::test::source_path("src/vmxkit/devices/catalog.tsv"));
  std::size_t gpu_rows = 0;
  for (std::string_view line : vmxkit::LineRange(text)) {
    if (line.empty() || line.front() == '#') continue;
    INFO(line);
    CHECK(std::count(line.begin(), line.end(), '\t') == 11);
    if (line.find("\tgpu\t") != std::string_view::npos) ++gpu_rows;
  }
  CHECK(gpu_rows > 100);
  std::set<NvlinkSupport> seen;
  for (const auto& e : Catalog::builtin().entries()) {
    INFO(e.id_string() << " " << e.model);
    if (e.role != Role::gpu) {
      CHECK(e.nvlink == NvlinkSupport::unknown);  // NVLink is a GPU's
      continue;
    }
    seen.insert(e.nvlink);
    if (e.nvlink != NvlinkSupport::unknown) {
      CHECK(e.source.find("NVLink") != std::string::npos);
    }
    if (e.nvlink_bridge_gpus) CHECK(e.nvlink == NvlinkSupport::bridge);
  }
  CHECK(seen.size() == 4);  // the table uses every value
  const Catalog& c = Catalog::builtin();
  CHECK(c.find_alias("a100-80g")->nvlink == NvlinkSupport::bridge);
  CHECK(c.find_alias("a100-80g")->nvlink_bridge_gpus == 2u);
  CHECK(c.find_alias("h200-nvl")->nvlink_bridge_gpus == 4u);
  CHECK(c.find_alias("h100-sxm")->nvlink == NvlinkSupport::baseboard);
  CHECK(c.find_alias("l40s")->nvlink == NvlinkSupport::no);
  CHECK(c.find_alias("t4")->nvlink == NvlinkSupport::unknown);  // not sourced: not guessed
}
