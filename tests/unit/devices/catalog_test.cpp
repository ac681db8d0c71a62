// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/catalog.h"

#include <catch2/catch.hpp>

#include "vmxkit/core/error.h"

using vmxkit::pci::Catalog;
using vmxkit::pci::GdrSupport;
using vmxkit::pci::Role;

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
    CHECK(std::string(e.what()).rfind("bad.tsv:1:1: expected 11 tab-separated columns", 0) == 0);
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
