// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/nccl_topo_xml.h"

#include <catch2/catch.hpp>
#include <string>

#include "vmxkit/core/error.h"

namespace {

using vmxkit::guest::NcclNodeKind;
using vmxkit::guest::read_nccl_topo_xml;

const std::string kFile =
    "<!-- a comment -->\n"
    "<system version=\"1\">\n"
    "  <cpu numaid=\"0\">\n"
    "    <pci busid=\"ffff:16:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" "
    "subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\" link_speed=\"32.0 GT/s PCIe\" "
    "link_width=\"16\">\n"
    "      <pci busid=\"0000:0b:00.0\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" "
    "link_width=\"16\"><nic><net name=\"mlx5_0\"/></nic></pci>\n"
    "      <pci busid=\"0000:03:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2331\"/>\n"
    "    </pci>\n"
    "  </cpu>\n"
    "  <cpu numaid=\"1\"/>\n"
    "</system>\n";

}  // namespace

TEST_CASE("an NCCL topology file reads into the tree with kinds from the class, in file order",
          "[guest][nccl-topo][report]") {
  const auto t = read_nccl_topo_xml(kFile, "topo.xml");
  REQUIRE(t.cpus.size() == 2);
  CHECK(t.nodes[t.cpus[1]].numaid == 1);
  const auto sw = *t.find("ffff:16:00.0");
  CHECK(t.nodes[sw].kind == NcclNodeKind::bridge);
  CHECK(t.nodes[sw].subsystem_device == 0x100b);
  CHECK(t.nodes[sw].line == 4);
  // NCCL's file reader keeps the file's order (bus id order is only its sysfs walk's).
  REQUIRE(t.nodes[sw].children.size() == 2);
  CHECK(t.nodes[t.nodes[sw].children[0]].busid == "0000:0b:00.0");
  const auto nic = *t.find("0000:0b:00.0");
  CHECK(t.nodes[nic].kind == NcclNodeKind::nic);
  CHECK(t.nodes[nic].named_net);
  CHECK(t.nodes[*t.find("0000:03:00.0")].kind == NcclNodeKind::gpu);
  CHECK(t.nodes[*t.find("0000:03:00.0")].vendor == 0x10de);
  CHECK_FALSE(t.find("0000:0B:00.0"));  // strcmp, as xmlFindTagKv
}

TEST_CASE("a file NCCL would refuse is an error with file, line and column",
          "[guest][nccl-topo][report]") {
  REQUIRE_THROWS_WITH(read_nccl_topo_xml("<system version=\"2\">\n</system>\n", "t.xml"),
                      Catch::StartsWith("t.xml:1:") && Catch::Contains("version=\"1\""));
  REQUIRE_THROWS_WITH(
      read_nccl_topo_xml("<system version=\"1\">\n  <cpu>\n</cpu></system>", "t.xml"),
      Catch::StartsWith("t.xml:2:3: expected <cpu numaid"));
  REQUIRE_THROWS_WITH(
      read_nccl_topo_xml("<system version=\"1\"><cpu numaid=\"0\">\n<pci/></cpu></system>",
                         "t.xml"),
      Catch::StartsWith("t.xml:2:1: expected <pci busid"));
  REQUIRE_THROWS_WITH(read_nccl_topo_xml("<system version=\"1\"><cpu", "t.xml"),
                      Catch::StartsWith("t.xml:1:"));
  REQUIRE_THROWS_AS(read_nccl_topo_xml("<nccl/>", "t.xml"), vmxkit::Error);
}
