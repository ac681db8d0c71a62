// SPDX-License-Identifier: Apache-2.0
// NCCL's rules for a topology tree, each from its source (github NVIDIA/nccl 5067397c, NCCL
// 2.30.7), on small trees built here; every case was also run through NCCL's own xml.cc,
// topo.cc and paths.cc (compiled unmodified, on a fake sysfs) with the same outcome.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/model/host.h"

namespace {

using vmxkit::guest::NcclNodeKind;
using vmxkit::guest::NcclPathType;
using vmxkit::guest::NcclTopoNode;
using vmxkit::guest::NcclTopoTree;

std::size_t pci(NcclTopoTree& t, std::size_t parent, const std::string& busid, NcclNodeKind kind,
                std::uint16_t vendor = 0x10b5, std::uint16_t device = 0x9797,
                std::uint16_t sub_vendor = 0, std::uint16_t sub_device = 0) {
  NcclTopoNode n;
  n.kind = kind;
  n.busid = busid;
  n.pci_class = kind == NcclNodeKind::gpu   ? 0x030200
                : kind == NcclNodeKind::nic ? 0x020700
                                            : 0x060400;
  if (kind == NcclNodeKind::bridge) {
    n.vendor = vendor;
    n.device = device;
    if (sub_vendor != 0) n.subsystem_vendor = sub_vendor;
    if (sub_vendor != 0) n.subsystem_device = sub_device;
  }
  n.link_speed = "32.0 GT/s PCIe";
  n.link_width = 16;
  return t.add_pci(n, parent);
}

NcclPathType type(const NcclTopoTree& t, const std::string& a, const std::string& b) {
  const auto p = vmxkit::guest::nccl_paths(t);
  const auto* pp = p.find(*t.find(a), *t.find(b));
  REQUIRE(pp != nullptr);
  return pp->type;
}

vmxkit::pci::Host host_from(const std::string& text) {
  vmxkit::pci::Host h;
  vmxkit::pci::load_text(h, text, "host.txt");
  h.finalize();
  return h;
}

std::vector<std::string> busids(const vmxkit::pci::Host& h, const std::vector<std::size_t>& ix) {
  std::vector<std::string> out;
  for (std::size_t i : ix) out.push_back(h.at(i).bdf.to_string());
  return out;
}

}  // namespace

TEST_CASE(
    "NCCL's path type is PIX under one <pci>, PXB across two, PHB through a CPU, SYS "
    "across two",
    "[guest][nccl-topo][nccl-rules]") {
  // ncclTopoSetPaths (src/graph/paths.cc): a hop starts as its link's type (LINK_PCI = PATH_PIX),
  // "if (node->type == PCI && remNode->type == PCI) newType = PATH_PXB", "if (link->type ==
  // LINK_PCI && (node->type == CPU || ...)) newType = PATH_PHB", and the path keeps the worst;
  // CPUs are joined by LINK_SYS (ncclTopoConnectCpus, topo.cc).
  NcclTopoTree t;
  const std::size_t cpu0 = t.add_cpu(0);
  const std::size_t top = pci(t, cpu0, "ffff:20:00.0", NcclNodeKind::bridge);
  const std::size_t sw1 = pci(t, top, "ffff:22:00.0", NcclNodeKind::bridge);
  const std::size_t sw2 = pci(t, top, "ffff:26:00.0", NcclNodeKind::bridge);
  pci(t, sw1, "0000:03:00.0", NcclNodeKind::gpu);
  pci(t, sw1, "0000:0b:00.0", NcclNodeKind::nic);
  pci(t, sw2, "0000:13:00.0", NcclNodeKind::nic);
  pci(t, cpu0, "0000:1b:00.0", NcclNodeKind::nic);  // straight under the CPU
  const std::size_t cpu1 = t.add_cpu(1);
  pci(t, cpu1, "0000:23:00.0", NcclNodeKind::nic);
  CHECK(type(t, "0000:03:00.0", "0000:0b:00.0") == NcclPathType::pix);
  CHECK(type(t, "0000:03:00.0", "0000:13:00.0") == NcclPathType::pxb);
  CHECK(type(t, "0000:03:00.0", "0000:1b:00.0") == NcclPathType::phb);
  CHECK(type(t, "0000:03:00.0", "0000:23:00.0") == NcclPathType::sys);
  const auto p = vmxkit::guest::nccl_paths(t);
  CHECK(p.find(*t.find("0000:03:00.0"), *t.find("0000:23:00.0"))->crosses_cpus);
  // ncclTopoGetLocal: the NIC under the GPU's own switch alone.
  CHECK(p.local_nics.at(*t.find("0000:03:00.0")) ==
        std::vector<std::size_t>{*t.find("0000:0b:00.0")});
}

TEST_CASE("NCCL's link bandwidth is width x speed / 80, and a speed it does not know is 8 GT/s",
          "[guest][nccl-topo][nccl-rules]") {
  // ncclTopoAddPci (topo.cc): "if (width == 0) width = 16", kvDictPciGen x100 Mbps per lane,
  // matched as a prefix of the value, "Default fallback" 60.
  using vmxkit::guest::nccl_link_bw;
  CHECK(nccl_link_bw("32.0 GT/s PCIe", 16u) == 48.0);
  CHECK(nccl_link_bw("16.0 GT/s PCIe", 16u) == 24.0);
  CHECK(nccl_link_bw("64.0 GT/s PCIe", 16u) == 96.0);
  CHECK(nccl_link_bw("5 GT/s", 8u) == 3.0);           // kernel 5.6 and older
  CHECK(nccl_link_bw("", std::nullopt) == 12.0);      // nothing: 8 GT/s x16
  CHECK(nccl_link_bw("16.0 GT/s", 16u) == 12.0);      // NVML fallback string: not in the table
  CHECK(nccl_link_bw("32.0 GT/s PCIe", 0u) == 48.0);  // width 0 read as 16
  // The path's bandwidth is its lowest link.
  NcclTopoTree t;
  const std::size_t sw = pci(t, t.add_cpu(0), "ffff:16:00.0", NcclNodeKind::bridge);
  pci(t, sw, "0000:03:00.0", NcclNodeKind::gpu);
  const std::size_t nic = pci(t, sw, "0000:0b:00.0", NcclNodeKind::nic);
  t.nodes[nic].link_width = 8;
  const auto p = vmxkit::guest::nccl_paths(t);
  CHECK(p.find(*t.find("0000:03:00.0"), nic)->bw == 24.0);
}

TEST_CASE("NCCL's sysfs walk keeps every second bridge above a device, whatever its port type",
          "[guest][nccl-topo][nccl-rules]") {
  // ncclTopoGetXmlFromSys (xml.cc): "Rewind two "/" and follow the upper PCI switch, or stop if
  // we reach a CPU root complex". RP > USP > DSP > device keeps the USP only; a device on a root
  // port hangs off the CPU; with one extra bridge (RP > bridge > device) the root port is kept.
  const auto host = vmxkit::pci::load_host(
      {vmxkit::test::source_path("tests/data/guest/host-2level.lspci-vvv.txt").string()});
  CHECK(busids(host, vmxkit::guest::nccl_parent_bridges(
                         host, *host.index_of(*vmxkit::parse_bdf("0000:24:00.0")))) ==
        std::vector<std::string>{"0000:20:00.0", "0000:22:00.0"});
  CHECK(busids(host, vmxkit::guest::nccl_parent_bridges(
                         host, *host.index_of(*vmxkit::parse_bdf("0000:22:00.0")))) ==
        std::vector<std::string>{"0000:20:00.0"});
  const auto odd = host_from(
      "-[0000:00]-+-01.0-[01-02]----00.0-[02]----00.0  NVIDIA Corporation GH100 [H100 PCIe]\n"
      "           \\-02.0-[03]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]\n");
  CHECK(busids(odd, vmxkit::guest::nccl_parent_bridges(
                        odd, *odd.index_of(*vmxkit::parse_bdf("0000:02:00.0")))) ==
        std::vector<std::string>{"0000:00:01.0"});
  CHECK(vmxkit::guest::nccl_parent_bridges(odd, *odd.index_of(*vmxkit::parse_bdf("0000:03:00.0")))
            .empty());
}

TEST_CASE("NCCL flattens a two-level Broadcom PEX switch only when its ids match its masks",
          "[guest][nccl-topo][nccl-rules]") {
  // getBcmGen / ncclTopoFlattenBcmSwitches (topo.cc): Gen4 1000:c010 subsystem 1000:a0xx at both
  // levels; Gen5 1000:c030 subsystem 1000:0xxx above 1000:1xxx. The top absorbs its direct PCI
  // children of that generation.
  auto two_level = [](std::uint16_t dev, std::uint16_t top_sub, std::uint16_t low_sub) {
    NcclTopoTree t;
    const std::size_t top =
        pci(t, t.add_cpu(0), "ffff:20:00.0", NcclNodeKind::bridge, 0x1000, dev, 0x1000, top_sub);
    const std::size_t a =
        pci(t, top, "ffff:22:00.0", NcclNodeKind::bridge, 0x1000, dev, 0x1000, low_sub);
    const std::size_t b =
        pci(t, top, "ffff:26:00.0", NcclNodeKind::bridge, 0x1000, dev, 0x1000, low_sub);
    pci(t, a, "0000:03:00.0", NcclNodeKind::gpu);
    pci(t, b, "0000:0b:00.0", NcclNodeKind::nic);
    return t;
  };
  CHECK(type(two_level(0xc010, 0xa064, 0xa064), "0000:03:00.0", "0000:0b:00.0") ==
        NcclPathType::pix);
  CHECK(type(two_level(0xc030, 0x0100, 0x1100), "0000:03:00.0", "0000:0b:00.0") ==
        NcclPathType::pix);
  CHECK(type(two_level(0xc030, 0x0100, 0x0100), "0000:03:00.0", "0000:0b:00.0") ==
        NcclPathType::pxb);
  CHECK(type(two_level(0xc030, 0x100b, 0x100b), "0000:03:00.0", "0000:0b:00.0") ==
        NcclPathType::pxb);
  CHECK(type(two_level(0x9797, 0, 0), "0000:03:00.0", "0000:0b:00.0") == NcclPathType::pxb);
}

TEST_CASE("ncclTopoGetLocal takes the highest bandwidth before the lowest path type",
          "[guest][nccl-topo][nccl-rules]") {
  // topo.cc ncclTopoGetLocal: "paths[i].bw > maxBw || (paths[i].bw == maxBw && paths[i].type <
  // minType)".
  NcclTopoTree t;
  const std::size_t top = pci(t, t.add_cpu(0), "ffff:20:00.0", NcclNodeKind::bridge);
  const std::size_t near = pci(t, top, "ffff:22:00.0", NcclNodeKind::bridge);
  const std::size_t far = pci(t, top, "ffff:26:00.0", NcclNodeKind::bridge);
  const std::size_t gpu = pci(t, near, "0000:03:00.0", NcclNodeKind::gpu);
  const std::size_t slow = pci(t, near, "0000:0b:00.0", NcclNodeKind::nic);
  const std::size_t fast = pci(t, far, "0000:13:00.0", NcclNodeKind::nic);
  t.nodes[slow].link_width = 8;
  CHECK(vmxkit::guest::nccl_paths(t).local_nics.at(gpu) == std::vector<std::size_t>{fast});
  t.nodes[slow].link_width = 16;
  CHECK(vmxkit::guest::nccl_paths(t).local_nics.at(gpu) == std::vector<std::size_t>{slow});
}

TEST_CASE(
    "NCCL spells a GPU's bus id as CUDA's in lower case and a NIC's with device and "
    "function 0",
    "[guest][nccl-topo][nccl-rules]") {
  // int64ToBusId (src/misc/utils.cc) "%04lx:%02lx:%02lx.%01lx"; ncclIbGetPciPath
  // (src/transport/net_ib/init.cc): function -> 0 ("Merge multi-port NICs") and, with
  // NCCL_IB_MERGE_VFS=1 (its default), device -> 00.
  const auto b = *vmxkit::parse_bdf("0000:0B:02.3");
  CHECK(vmxkit::guest::nccl_busid(b, NcclNodeKind::gpu) == "0000:0b:02.3");
  CHECK(vmxkit::guest::nccl_busid(b, NcclNodeKind::nic) == "0000:0b:00.0");
}

TEST_CASE("NCCL places a guest device the file lacks by the guest's own tree, silently",
          "[guest][nccl-topo][nccl-rules]") {
  // ncclTopoGetPciNode -> xmlFindTagKv (xml.h) compares bus ids as strings; not found, the
  // device is walked up the guest's sysfs (ncclTopoGetXmlFromSys): behind a VMware root port it
  // hangs off the <cpu> of its guest NUMA node, -1 when the kernel has none.
  NcclTopoTree file;
  const std::size_t sw = pci(file, file.add_cpu(0), "ffff:16:00.0", NcclNodeKind::bridge);
  pci(file, sw, "0000:04:00.0", NcclNodeKind::gpu);
  pci(file, sw, "0000:0c:00.0", NcclNodeKind::nic);
  pci(file, sw, "0000:13:00.0", NcclNodeKind::gpu);
  pci(file, sw, "0000:1b:00.0", NcclNodeKind::nic);
  const std::string fixture = vmxkit::test::read_bytes(
      vmxkit::test::source_path("tests/data/guest/esxi-2gpu-2nic.lspci-vvv.txt"));
  auto guest_with = [&](const std::string& from, const std::string& to) {
    std::string text = fixture;
    const auto at = from.empty() ? std::string::npos : text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
    vmxkit::guest::Guest g;
    load_text(g, text, "guest.txt");
    g.finalize();
    return g;
  };
  auto nic_path = [&](const vmxkit::guest::Guest& g, const std::string& gpu,
                      const std::string& nic) {
    const auto view = vmxkit::guest::nccl_guest_view(file, g);
    const auto* p = view.paths.find(*view.tree.find(gpu), *view.tree.find(nic));
    REQUIRE(p != nullptr);
    return p->type;
  };
  const auto same = guest_with("", "");
  CHECK(nic_path(same, "0000:04:00.0", "0000:0c:00.0") == NcclPathType::pix);
  // NIC renumbered 0c -> 0d, no NUMA node in the guest: a <cpu numaid="-1"> of its own, SYS.
  const auto moved = guest_with("\n0c:00.0 Infiniband", "\n0d:00.0 Infiniband");
  CHECK(nic_path(moved, "0000:04:00.0", "0000:0d:00.0") == NcclPathType::sys);
  CHECK(nic_path(moved, "0000:04:00.0", "0000:1b:00.0") == NcclPathType::pix);
  // Renumbered, and the guest kernel says NUMA node 0: under the file's <cpu numaid="0">, PHB.
  const auto numa0 = guest_with(
      "\n0c:00.0 Infiniband controller [0207]: Mellanox Technologies "
      "MT2910 Family [ConnectX-7] [15b3:1021]\n",
      "\n0d:00.0 Infiniband controller [0207]: Mellanox Technologies "
      "MT2910 Family [ConnectX-7] [15b3:1021]\n\tNUMA node: 0\n");
  CHECK(nic_path(numa0, "0000:04:00.0", "0000:0d:00.0") == NcclPathType::phb);
  // A second port of the NIC (0c:00.1) is the same NIC to NCCL: the file's element, PIX.
  const std::string port0 = fixture.substr(fixture.find("\n0c:00.0 Infiniband") + 1);
  std::string port1 = port0.substr(0, port0.find("\n\n") + 1);
  port1.replace(0, 7, "0c:00.1");
  const auto two_ports = guest_with("\n0c:00.0 Infiniband", "\n" + port1 + "\n0c:00.0 Infiniband");
  CHECK(nic_path(two_ports, "0000:04:00.0", "0000:0c:00.0") == NcclPathType::pix);
  // 0c:00.1 without a 0c:00.0: the plugin's path names no device, "is not a PCI device ...
  // Attaching to first CPU" (ncclTopoFillNet, xml.cc): PHB whatever the file says.
  const auto fn1 = guest_with("\n0c:00.0 Infiniband", "\n0c:00.1 Infiniband");
  CHECK(nic_path(fn1, "0000:04:00.0", "0000:0c:00.0") == NcclPathType::phb);
}
