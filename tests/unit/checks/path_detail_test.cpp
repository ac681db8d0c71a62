// SPDX-License-Identifier: Apache-2.0
// The words of a PCIe path's facts (checks::path_detail), each kind exactly as topo, generate and
// the TOPO004/TOPO005/GUEST002 messages print it; and the facts classify() gives for them.
#include "vmxkit/checks/path_detail.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <optional>
#include <string>

#include "support/host_util.h"
#include "vmxkit/analysis/topology.h"

using vmxkit::Bdf;
using vmxkit::checks::path_detail;
using vmxkit::pci::Path;
using vmxkit::pci::PathClass;
using vmxkit::pci::PathKind;

namespace {

// Three host bridges: 0000:10 and 0000:30 on NUMA node 0, 0000:90 on node 1; a GPU and a NIC
// below the first one's switch (0000:13:00.0, 0000:14:00.0), a GPU below each other one.
vmxkit::pci::Host three_roots() {
  return vmxkit::test::host_from({{"h.txt", vmxkit::test::socket(0x10, 0, {"gpu", "nic"}) +
                                                vmxkit::test::socket(0x30, 0, {"gpu"}) +
                                                vmxkit::test::socket(0x90, 1, {"gpu"})}});
}

std::size_t at(const vmxkit::pci::Host& host, unsigned bus) {
  return *host.index_of(Bdf{0, static_cast<std::uint8_t>(bus), 0, 0});
}

std::size_t root(const vmxkit::pci::Host& host, const std::string& name) {
  for (std::size_t i = 0; i < host.roots().size(); ++i) {
    if (host.roots()[i].to_string() == name) return i;
  }
  FAIL("no host bridge " << name);
  return 0;
}

}  // namespace

TEST_CASE("classify() gives the facts of where two devices meet", "[checks][path]") {
  const auto host = three_roots();
  const Path self = vmxkit::pci::classify(host, at(host, 0x13), at(host, 0x13));
  CHECK(self.kind == PathKind::self);

  const Path pix = vmxkit::pci::classify(host, at(host, 0x13), at(host, 0x14));
  CHECK(pix.kind == PathKind::below_bridge);
  CHECK(pix.cls == PathClass::pix);
  REQUIRE(pix.common);
  CHECK(host.at(*pix.common).bdf.to_string() == "0000:11:00.0");
  CHECK(pix.switches == 1);

  const Path node = vmxkit::pci::classify(host, at(host, 0x13), at(host, 0x33));
  CHECK(node.kind == PathKind::host_bridges);
  CHECK(node.cls == PathClass::node);
  CHECK(node.roots[0] == root(host, "0000:10"));
  CHECK(node.roots[1] == root(host, "0000:30"));
  CHECK(node.numa[0] == 0);
  CHECK(node.numa[1] == 0);
  CHECK_FALSE(node.device);

  const Path sys = vmxkit::pci::classify(host, at(host, 0x93), at(host, 0x13));
  CHECK(sys.kind == PathKind::host_bridges);
  CHECK(sys.cls == PathClass::sys);
  CHECK(sys.roots[0] == root(host, "0000:90"));
  CHECK(sys.numa[0] == 1);
  CHECK(sys.numa[1] == 0);
}

TEST_CASE("each kind of path is worded from its facts", "[checks][path]") {
  const auto host = three_roots();
  CHECK(path_detail(host, vmxkit::pci::classify(host, at(host, 0x13), at(host, 0x13))).empty());

  Path p;
  p.kind = PathKind::one_device;
  CHECK(path_detail(host, p) == "functions of one device");

  CHECK(path_detail(host, vmxkit::pci::classify(host, at(host, 0x13), at(host, 0x14))) ==
        "through one switch below 0000:11:00.0");
  p.kind = PathKind::below_bridge;
  p.common = at(host, 0x11);
  p.switches = 2;
  CHECK(path_detail(host, p) == "through 2 switch levels, meeting at 0000:11:00.0");

  p = Path{};
  p.kind = PathKind::unplaced;
  p.device = at(host, 0x93);
  CHECK(path_detail(host, p) == "0000:93:00.0 is not placed in the tree");

  p = Path{};
  p.kind = PathKind::host_bridge;
  p.roots = {root(host, "0000:30"), root(host, "0000:30")};
  CHECK(path_detail(host, p) == "through host bridge 0000:30");

  CHECK(path_detail(host, vmxkit::pci::classify(host, at(host, 0x13), at(host, 0x33))) ==
        "host bridges 0000:10 and 0000:30, both on NUMA node 0");
  CHECK(path_detail(host, vmxkit::pci::classify(host, at(host, 0x93), at(host, 0x13))) ==
        "host bridges 0000:90 (NUMA node 1) and 0000:10 (NUMA node 0)");

  p = Path{};
  p.kind = PathKind::host_bridges;
  p.roots = {root(host, "0000:10"), root(host, "0000:90")};
  p.numa = {0, std::nullopt};
  p.device = at(host, 0x93);
  CHECK(path_detail(host, p) ==
        "host bridges 0000:10 and 0000:90; NODE or SYS: no NUMA node known for 0000:93:00.0");
}
