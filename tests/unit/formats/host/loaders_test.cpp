// SPDX-License-Identifier: Apache-2.0
// Every loader variant: lspci -vvv (-nn, -n, -D, tabs/spaces, pciutils 3.5..3.14 forms),
// lspci -tv[nn], esxcli, numactl, sysfs; merging and the errors for bad input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/readiness.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

using vmxkit::Bdf;
using vmxkit::pci::PortType;
using vmxkit::pci::Role;
using vmxkit::test::host_from;

namespace {

// pciutils >= 3.11 (IntMsgNum, SR-IOV "IntMsgNum"), -nn -D, tabs.
const std::string kNew =
    "0000:3a:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030] (rev "
    "b0)\n"
    "\tBus: primary=39, secondary=3a, subordinate=3c, sec-latency=0\n"
    "\tPrefetchable memory behind bridge: 0000220000000000-00002260ffffffff [size=260G] [64-bit]\n"
    "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), IntMsgNum 0\n"
    "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <4us\n"
    "\tCapabilities: [f24 v1] Access Control Services\n"
    "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+\n"
    "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
    "\n"
    "0000:3b:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] "
    "[15b3:1021]\n"
    "\tSubsystem: Mellanox Technologies Device 0040 [15b3:0040]\n"
    "\tPhysical Slot: 3\n"
    "\tNUMA node: 1\n"
    "\tIOMMU group: 71\n"
    "\tRegion 0: Memory at 23000000000 (64-bit, prefetchable) [size=32M]\n"
    "\tExpansion ROM at 9d000000 [disabled] [size=1M]\n"
    "\tCapabilities: [60] Express (v2) Endpoint, IntMsgNum 0\n"
    "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
    "\t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x8 (downgraded)\n"
    "\tCapabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)\n"
    "\t\tIOVCap:\tMigration- 10BitTagReq- IntMsgNum 0\n"
    "\t\tIOVCtl:\tEnable+ Migration- Interrupt- MSE+ ARIHierarchy+ 10BitTagReq-\n"
    "\t\tInitial VFs: 16, Total VFs: 16, Number of VFs: 4, Function Dependency Link: 00\n"
    "\t\tVF offset: 1, stride: 1, Device ID: 101e\n"
    "\t\tRegion 0: Memory at 0000023002000000 (64-bit, prefetchable)\n"
    "\t\tVF Migration: offset: 00000000, BIR: 0\n"
    "\tCapabilities: [1c0 v1] Address Translation Service (ATS)\n"
    "\t\tATSCap:\tInvalidate Queue Depth: 00\n"
    "\t\tATSCtl:\tEnable-, Smallest Translation Unit: 00\n"
    "\tKernel driver in use: mlx5_core\n"
    "\tKernel modules: mlx5_core\n"
    "\n"
    "0000:3b:00.1 Infiniband controller [0207]: Mellanox Technologies ConnectX Family mlx5Gen "
    "Virtual Function [15b3:101e]\n"
    "\tRegion 0: Memory at 23002000000 (64-bit, prefetchable) [virtual] [size=2M]\n"
    "\tKernel driver in use: mlx5_core\n";

// pciutils 3.5-3.7 (MSI, "Interrupt Message Number"), no -nn, no -D, tabs expanded to spaces.
const std::string kOld =
    "3b:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]\n"
    "        Subsystem: Mellanox Technologies Device 0016\n"
    "        Flags: bus master, fast devsel, latency 0, IRQ 16, NUMA node 0\n"
    "        Region 0: Memory at 38bffe000000 (64-bit, prefetchable) [size=32M]\n"
    "        Capabilities: [60] Express (v2) Endpoint, MSI 00\n"
    "                LnkSta: Speed 16GT/s, Width x16, TrErr- Train- SlotClk+ DLActive- BWMgmt- "
    "ABWMgmt-\n"
    "        Capabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)\n"
    "                IOVCap: Migration-, Interrupt Message Number: 000\n"
    "                IOVCtl: Enable- Migration- Interrupt- MSE- ARIHierarchy+\n"
    "                Initial VFs: 8, Total VFs: 8, Number of VFs: 0, Function Dependency Link: 00\n"
    "                VF offset: 2, stride: 1, Device ID: 101e\n"
    "                Region 0: Memory at 000038bffc800000 (64-bit, prefetchable)\n"
    "        Kernel driver in use: mlx5_core\n";

// pciutils 3.8-3.10 SR-IOV line, -n only (numbers, no names).
const std::string kNumeric =
    "0000:c1:00.0 0302: 10de:2331 (rev a1)\n"
    "\tRegion 0: Memory at 9c000000 (32-bit, non-prefetchable) [size=16M]\n"
    "\tRegion 1: Memory at 22000000000 (64-bit, prefetchable) [size=128G]\n"
    "\tRegion 3: Memory at <unassigned> (64-bit, prefetchable) [disabled] [size=32M]\n"
    "\tRegion 5: I/O ports at 5000 [size=128]\n"
    "\tCapabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)\n"
    "\t\tIOVCap:\tMigration- 10BitTagReq- Interrupt Message Number: 000\n"
    "\t\tInitial VFs: 4, Total VFs: 4, Number of VFs: 0, Function Dependency Link: 00\n";

}  // namespace

TEST_CASE("lspci -vvv loader reads pciutils 3.11+ output with -nn and -D", "[pci][lspci]") {
  const auto host = host_from({{"new.txt", kNew}});
  const auto* nic = host.find(Bdf{0, 0x3b, 0, 0});
  REQUIRE(nic != nullptr);
  CHECK(nic->class_code == 0x0207);
  CHECK(nic->vendor_id == 0x15b3);
  CHECK(nic->device_id == 0x1021);
  CHECK(nic->name == "Mellanox Technologies MT2910 Family [ConnectX-7]");
  CHECK(nic->subsys_device_id == 0x0040);
  CHECK(nic->physical_slot == "3");
  CHECK(nic->numa_node == 1);
  CHECK(nic->iommu_group == 71);
  REQUIRE(nic->bars.size() == 1);
  CHECK(nic->bars[0].size == (std::uint64_t{32} << 20));
  CHECK(nic->bars[0].is_64bit);
  CHECK(nic->bars[0].prefetchable);
  CHECK(nic->port_type == PortType::endpoint);
  CHECK(nic->link_cap->speed == "32GT/s");
  CHECK(nic->link_sta->speed == "16GT/s");
  CHECK(nic->link_sta->width == 8u);
  REQUIRE(nic->sriov);
  CHECK(nic->sriov->total_vfs == 16u);
  CHECK(nic->sriov->num_vfs == 4u);
  CHECK(nic->sriov->vf_device_id == 0x101e);
  CHECK(nic->sriov->vf_bars.size() == 1);
  CHECK(nic->ats_present);
  CHECK(nic->ats_enabled == false);
  CHECK(nic->driver == "mlx5_core");
  CHECK(nic->role == Role::rdma_nic);
  const auto* vf = host.find(Bdf{0, 0x3b, 0, 1});
  CHECK(vf->role == Role::nic_vf);
  CHECK(vf->physfn == host.index_of(Bdf{0, 0x3b, 0, 0}));
  CHECK(vf->numa_node == 1);  // inferred from function 0
  CHECK(vf->numa_inferred);
  const auto* dsp = host.find(Bdf{0, 0x3a, 0, 0});
  CHECK(dsp->port_type == PortType::downstream_port);
  CHECK(dsp->secondary_bus == 0x3a);
  CHECK(dsp->acs->redirects_p2p());
  CHECK(dsp->acs->ctl_text() == "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+");
}

TEST_CASE("lspci -vvv loader reads pciutils 3.5-3.7 output with spaces and -v Flags",
          "[pci][lspci]") {
  const auto host = host_from({{"old.txt", kOld}});
  const auto* nic = host.find(Bdf{0, 0x3b, 0, 0});
  REQUIRE(nic != nullptr);
  CHECK(nic->class_code == 0x0200);  // from the class name
  CHECK(nic->device_id == 0x101d);   // from the catalogue by name
  CHECK(nic->numa_node == 0);        // from the Flags line
  CHECK(nic->sriov->total_vfs == 8u);
  CHECK(nic->sriov->vf_offset == 2u);
  CHECK(nic->sriov->vf_bars.size() == 1);
  CHECK(nic->link_sta->width == 16u);
  CHECK(nic->role == Role::rdma_nic);
}

TEST_CASE("lspci -vvv loader reads -n output and every BAR form", "[pci][lspci]") {
  const auto host = host_from({{"n.txt", kNumeric}});
  const auto* gpu = host.find(Bdf{0, 0xc1, 0, 0});
  REQUIRE(gpu != nullptr);
  CHECK(gpu->vendor_id == 0x10de);
  CHECK(gpu->class_code == 0x0302);
  CHECK(gpu->revision == 0xa1);
  CHECK(gpu->role == Role::gpu);
  REQUIRE(gpu->bars.size() == 4);
  CHECK(!gpu->bars[0].is_64bit);
  CHECK(gpu->bar(1)->size == (std::uint64_t{128} << 30));
  CHECK(gpu->bar(3)->disabled);
  CHECK(gpu->bar(3)->address == 0);
  CHECK(gpu->bars[3].io);
  CHECK(gpu->sriov->total_vfs == 4u);
  // No bridge leads to bus c1 and nothing says it is a root bus: warned, not guessed.
  CHECK(!gpu->root);
  REQUIRE(host.warnings().size() == 1);
  CHECK(host.warnings()[0].to_string().rfind("n.txt:1: cannot place 0000:c1:00.0", 0) == 0);
}

TEST_CASE("lspci -vvv loader reads a bridge's subsystem ids from its Subsystem capability",
          "[pci][lspci]") {
  // A Broadcom PEX890xx switch port, as lspci -vvv -nn prints it: the ids NCCL compares to
  // flatten the switch's two levels (ncclTopoFlattenBcmSwitches) come from this capability.
  const std::string text =
      "0000:16:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030] "
      "(rev b0) (prog-if 00 [Normal decode])\n"
      "\tBus: primary=16, secondary=17, subordinate=19, sec-latency=0\n"
      "\tCapabilities: [40] Express (v2) Upstream Port, MSI 00\n"
      "\tCapabilities: [a4] Subsystem: Broadcom / LSI Device [1000:1000]\n"
      "0000:17:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030] "
      "(rev b0)\n"
      "\tBus: primary=17, secondary=18, subordinate=18, sec-latency=0\n"
      "\tCapabilities: [a4] Subsystem: Broadcom / LSI Device [1000:a064]\n"
      "\tCapabilities: [b0] Subsystem: Other [1234:5678]\n";
  const auto host = host_from({{"bcm.txt", text}});
  const auto* up = host.find(Bdf{0, 0x16, 0, 0});
  const auto* down = host.find(Bdf{0, 0x17, 0, 0});
  REQUIRE(up != nullptr);
  REQUIRE(down != nullptr);
  CHECK(up->subsys_vendor_id == 0x1000);
  CHECK(up->subsys_device_id == 0x1000);
  CHECK(up->port_type == PortType::upstream_port);
  CHECK(down->subsys_vendor_id == 0x1000);
  CHECK(down->subsys_device_id == 0xa064);  // the first one given is kept
}

TEST_CASE("lspci -vvv loader skips tool messages of a 2>&1 capture with a warning",
          "[pci][lspci]") {
  const std::string text =
      "lspci: Unable to load libkmod resources: error -2\n"
      "0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
      "pcilib: sysfs_read_vpd: read failed: No such device\n"
      "\tNUMA node: 1\n";
  const auto host = host_from({{"noise.txt", text}});
  const auto* gpu = host.find(Bdf{0, 0x3b, 0, 0});
  REQUIRE(gpu != nullptr);
  CHECK(gpu->numa_node == 1);  // the block goes on after the message
  std::vector<std::string> warnings;
  for (const auto& w : host.warnings()) warnings.push_back(w.to_string());
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w.find("skipped a tool message") != std::string::npos;
        }) == 2);
  CHECK(warnings.front() ==
        "noise.txt:1: skipped a tool message, not lspci output: lspci: Unable to load libkmod "
        "resources: error -2");
  // Only a program's `name: ` message is skipped: other text still fails.
  CHECK_THROWS_WITH(host_from({{"x.txt", "lspci: nothing else\nNot lspci: at all\n"}}),
                    Catch::StartsWith("x.txt:2:1: unknown host input"));
  CHECK_THROWS_WITH(host_from({{"y.txt", "\nlspci: only a message\n"}}),
                    "y.txt:2:1: only tool messages (`lspci: ...`), no device lines: the capture "
                    "failed");
}

TEST_CASE("lspci -vvv loader errors name file:line:col for bad and truncated input",
          "[pci][lspci]") {
  CHECK_THROWS_WITH(
      host_from({{"a.txt", "3b:00.0 Ethernet controller: X\n\tRegion 0: Memory at zz (64-bit)\n"}}),
      "a.txt:2:22: expected a hex address, found 'zz'");
  CHECK_THROWS_WITH(host_from({{"b.txt", "3b:00.0 Ethernet controller: X\nhello world\n"}}),
                    Catch::StartsWith("b.txt:2:1: expected a device line"));
  CHECK_THROWS_WITH(host_from({{"c.txt", "3b:00.0 Ethernet contr"}}),
                    Catch::StartsWith("c.txt:1:9: expected '<class>: <device name>'"));
  CHECK_THROWS_WITH(
      host_from({{"d.txt", "0000:00:01.0 PCI bridge: X\n\tBus: primary=00, secondary=0"}}),
      Catch::StartsWith("d.txt:2:2: expected 'Bus: primary=XX"));
  CHECK_THROWS_WITH(host_from({{"e.txt", "this is not lspci\n"}}),
                    Catch::StartsWith("e.txt:1:1: unknown host input"));
  CHECK_THROWS_WITH(host_from({{"f.txt", "\n\n"}}), "f.txt: empty host input");
  CHECK_THROWS_WITH(
      host_from({{"g.txt",
                  "3b:00.0 3D controller: X\n\tRegion 1: Memory at 0 (64-bit, prefetchable) "
                  "[size=8192T]\n"}}),
      "g.txt:2:48: size '8192T' is above 4096T (2^52 bytes): not a BAR's");
}

TEST_CASE("lspci -tv loader builds the tree, with -nn ids and pasted without the leading space",
          "[pci][lspci][tree]") {
  const std::string tree =
      "-+-[0000:00]-+-00.0  Intel Corporation Device 09a2 [8086:09a2]\n"
      " |           \\-01.0-[01-03]----00.0-[02-03]--+-00.0-[03]----00.0  NVIDIA Corporation GH100 "
      "[H100 PCIe] [10de:2331]\n"
      " |                                           \\-01.0-[04]--\n"
      " \\-[0000:80]---02.0-[81]--+-00.0  Mellanox Technologies MT2910 Family [ConnectX-7] "
      "[15b3:1021]\n"
      "                          \\-00.1  Mellanox Technologies MT2910 Family [ConnectX-7] "
      "[15b3:1021]\n";
  const auto host = host_from({{"t.txt", tree}});
  REQUIRE(host.roots().size() == 2);
  const auto* gpu = host.find(Bdf{0, 3, 0, 0});
  REQUIRE(gpu != nullptr);
  CHECK(gpu->device_id == 0x2331);
  CHECK(gpu->role == Role::gpu);
  CHECK(host.at(*gpu->parent).bdf == Bdf{0, 2, 0, 0});
  CHECK(host.at(*gpu->parent).port_type == PortType::downstream_port);  // inferred from the shape
  CHECK(host.find(Bdf{0, 1, 0, 0})->port_type == PortType::upstream_port);
  CHECK(host.find(Bdf{0, 0, 1, 0})->port_type == PortType::root_port);
  CHECK(host.find(Bdf{0, 2, 1, 0})->secondary_bus == 4);
  CHECK(host.find(Bdf{0, 0x81, 0, 1})->role == Role::rdma_nic);
  CHECK(host.roots()[*host.find(Bdf{0, 0x81, 0, 1})->root].to_string() == "0000:80");
  CHECK(host.warnings().empty());

  // The same tree pasted with lines 2..N missing their leading space.
  std::string pasted;
  bool first = true;
  for (const auto line : vmxkit::LineRange(tree)) {
    pasted += std::string(first ? line : line.substr(1)) + "\n";
    first = false;
  }
  const auto host2 = host_from({{"p.txt", pasted}});
  CHECK(host2.devices().size() == host.devices().size());
  CHECK(host2.at(*host2.find(Bdf{0, 3, 0, 0})->parent).bdf == Bdf{0, 2, 0, 0});

  CHECK_THROWS_WITH(host_from({{"bad.txt", "-[0000:00]-+-00.0  X\n           +-0g.0  Y\n"}}),
                    Catch::StartsWith("bad.txt:2:14: expected a device 'DD.F'"));
  CHECK_THROWS_WITH(host_from({{"bad2.txt", "-[0000:00]-+-00.0  X\n     +-01.0  Y\n"}}),
                    Catch::StartsWith("bad2.txt:2:6: this branch does not continue"));
}

TEST_CASE("a -tv tree merges with -vvv -s blocks, bus ranges cross-check the tree",
          "[pci][lspci][merge]") {
  const std::string tree =
      "-[0000:00]-+-00.0  Intel Corporation Device 09a2\n"
      "           \\-01.0-[01]----00.0  NVIDIA Corporation GH100 [H100 PCIe]\n";
  const std::string block =
      "00:01.0 PCI bridge: Intel Corporation Device 347a\n"
      "\tBus: primary=00, secondary=02, subordinate=02, sec-latency=0\n"
      "\tNUMA node: 0\n"
      "\n"
      "01:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe] (rev a1)\n"
      "\tRegion 1: Memory at 22000000000 (64-bit, prefetchable) [size=128G]\n";
  const auto host = host_from({{"tree.txt", tree}, {"gpu.txt", block}});
  const auto* gpu = host.find(Bdf{0, 1, 0, 0});
  CHECK(gpu->bar(1)->size == (std::uint64_t{128} << 30));
  CHECK(gpu->numa_node == 0);  // from the host bridge's other devices
  CHECK(gpu->numa_inferred);
  CHECK(host.at(*gpu->parent).bdf == Bdf{0, 0, 1, 0});
  // The block says the root port leads to bus 02, the tree says 01: the tree wins, with a warning.
  REQUIRE(!host.warnings().empty());
  CHECK(host.warnings().back().to_string() ==
        "gpu.txt:2: 0000:00:01.0: another input gives secondary bus 01, this line says 02");
}

TEST_CASE("a device twice in one capture is an error at its second block, in two inputs it merges",
          "[pci][lspci][esxcli][merge]") {
  const std::string gpu =
      "0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
      "\tNUMA node: 0\n\n";
  const std::string nic =
      "0000:3c:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family "
      "[ConnectX-7] [15b3:1021]\n\n";
  CHECK_THROWS_WITH(host_from({{"twice.txt", gpu + nic + gpu}}),
                    "twice.txt:6:1: 0000:3b:00.0 appears twice in this file (first at line 1)");
  // The same address without the domain is the same device.
  CHECK_THROWS_WITH(
      host_from({{"nodomain.txt", gpu + "3b:00.0 3D controller [0302]: NVIDIA Corporation X\n"}}),
      "nodomain.txt:4:1: 0000:3b:00.0 appears twice in this file (first at line 1)");
  // Two captures of one host (the documented -tv + -vvv merge, or two -vvv) describe it twice.
  const auto merged = host_from({{"a.txt", gpu + nic}, {"b.txt", gpu}});
  CHECK(merged.devices().size() == 2);
  CHECK(merged.find(Bdf{0, 0x3b, 0, 0})->origins.size() == 2);

  const std::string block =
      "0000:3b:00.0\n"
      "   Address: 0000:3b:00.0\n"
      "   Vendor ID: 0x10de\n"
      "   Device ID: 0x2331\n";
  CHECK_THROWS_WITH(
      host_from({{"esx.txt", block + "0000:3c:00.0\n   Vendor ID: 0x15b3\n" + block}}),
      "esx.txt:7:1: 0000:3b:00.0 appears twice in this file (first at line 1)");
  CHECK(host_from({{"esx1.txt", block}, {"esx2.txt", block}}).devices().size() == 1);
}

TEST_CASE("esxcli hardware pci list loader uses Parent Device for the tree", "[pci][esxcli]") {
  const std::string text =
      "0000:00:00.0\n"
      "   Address: 0000:00:00.0\n"
      "   Vendor Name: Intel Corporation\n"
      "   Device Name: Sky Lake-E DMI3 Registers\n"
      "   Vendor ID: 0x8086\n"
      "   Device ID: 0x2020\n"
      "   Device Class: 0x0600\n"
      "   Parent Device: \n"
      "\n"
      "0000:00:01.0\n"
      "   Vendor ID: 0x8086\n"
      "   Device ID: 0x2030\n"
      "   Device Class: 0x0604\n"
      "   Spawned Bus: 0xaf\n"
      "   Parent Device: \n"
      "\n"
      "0000:af:00.0\n"
      "   VMkernel Name: vmnic4\n"
      "   Vendor Name: Mellanox Technologies\n"
      "   Device Name: MT2910 Family [ConnectX-7]\n"
      "   Vendor ID: 0x15b3\n"
      "   Device ID: 0x1021\n"
      "   Device Class: 0x0207\n"
      "   Device Class Name: Infiniband controller\n"
      "   Passthru Capable: true\n"
      "   Parent Device: PCI 0:0:1:0\n";
  const auto host = host_from({{"esx.txt", text}});
  const auto* nic = host.find(Bdf{0, 0xaf, 0, 0});
  REQUIRE(nic != nullptr);
  CHECK(nic->role == Role::rdma_nic);
  CHECK(nic->name == "Mellanox Technologies MT2910 Family [ConnectX-7]");
  CHECK(nic->rdma_name == "vmnic4");
  CHECK(host.at(*nic->parent).bdf == Bdf{0, 0, 1, 0});
  CHECK(host.find(Bdf{0, 0, 1, 0})->port_type == PortType::root_port);
  CHECK_THROWS_WITH(host_from({{"e.txt", "0000:00:00.0\n   Parent Device: PCI 0:x:1:0\n"}}),
                    Catch::StartsWith("e.txt:2:4: expected 'Parent Device: PCI s:b:d:f'"));
  CHECK_THROWS_WITH(host_from({{"e2.txt", "0000:00:00.0\n   Vendor ID: 0x10000\n"}}),
                    Catch::StartsWith("e2.txt:2:4: expected a number for 'Vendor ID'"));
}

TEST_CASE("esxcli hardware memory get gives ESXi hosts their NUMA node count", "[pci][esxcli]") {
  // Two host bridges without NUMA lines: NODE or SYS is unknown until the node count is known.
  const std::string pci =
      "0000:00:01.0\n   Device Class: 0x0604\n   Spawned Bus: 0x01\n   Parent Device: \n\n"
      "0000:01:00.0\n   Vendor ID: 0x10de\n   Device ID: 0x2331\n   Device Class: 0x0302\n"
      "   Parent Device: PCI 0:0:1:0\n\n"
      "0000:80:01.0\n   Device Class: 0x0604\n   Spawned Bus: 0x81\n   Parent Device: \n\n"
      "0000:81:00.0\n   Vendor ID: 0x15b3\n   Device ID: 0x1021\n   Device Class: 0x0207\n"
      "   Parent Device: PCI 0:128:1:0\n";
  const std::string one =
      "   Physical Memory: 549621362688 Bytes\n   Reliable Memory: 0 Bytes\n"
      "   NUMA Node Count: 1\n";
  CHECK(vmxkit::pci::detect_format(one, "m.txt") == vmxkit::pci::InputFormat::esxcli_memory);
  CHECK(!host_from({{"pci.txt", pci}}).find(Bdf{0, 0x81, 0, 0})->numa_node);
  const auto host = host_from({{"pci.txt", pci}, {"mem.txt", one}});
  CHECK(host.find(Bdf{0, 1, 0, 0})->numa_node == 0);
  CHECK(host.find(Bdf{0, 0x81, 0, 0})->numa_node == 0);
  // Two nodes say nothing about which bridge is on which: still unknown, never guessed.
  const auto two = host_from({{"pci.txt", pci}, {"mem.txt", "NUMA Node Count: 2\n"}});
  CHECK(!two.find(Bdf{0, 0x81, 0, 0})->numa_node);
  CHECK_THROWS_WITH(host_from({{"m.txt", "   Physical Memory: 1 Bytes\n   NUMA Node Count: x\n"}}),
                    Catch::StartsWith("m.txt:2:20: expected 'NUMA Node Count: N'"));
  CHECK_THROWS_WITH(host_from({{"m.txt", "   Physical Memory: 1 Bytes\n"}}),
                    Catch::StartsWith("m.txt: no 'NUMA Node Count: N' line"));
}

TEST_CASE("esxcli hardware pci pcipassthru list says which devices are enabled", "[pci][esxcli]") {
  const std::string pci =
      "0000:00:01.0\n   Device Class: 0x0604\n   Spawned Bus: 0x01\n   Parent Device: \n\n"
      "0000:01:00.0\n   Vendor ID: 0x10de\n   Device ID: 0x2331\n   Device Class: 0x0302\n"
      "   Parent Device: PCI 0:0:1:0\n\n"
      "0000:01:00.1\n   Vendor ID: 0x15b3\n   Device ID: 0x1021\n   Device Class: 0x0207\n"
      "   Parent Device: PCI 0:0:1:0\n";
  const std::string list =
      "Device ID     Enabled\n------------  -------\n0000:01:00.0     true\n0000:01:00.1    "
      "false\n";
  CHECK(vmxkit::pci::detect_format(list, "pt.txt") == vmxkit::pci::InputFormat::esxcli_passthru);
  const auto host = host_from({{"pci.txt", pci}, {"pt.txt", list}});
  const auto& gpu = *host.find(Bdf{0, 1, 0, 0});
  const auto& nic = *host.find(Bdf{0, 1, 0, 1});
  CHECK(gpu.passthru_enabled == true);
  CHECK(nic.passthru_enabled == false);
  using vmxkit::pci::PassthroughUse;
  CHECK(!vmxkit::pci::esxi_owner_problem(gpu, PassthroughUse::full));
  const auto off = vmxkit::pci::esxi_owner_problem(nic, PassthroughUse::full);
  REQUIRE(off);
  CHECK(off->said == "pcipassthru list: Enabled false");
  CHECK(vmxkit::pci::esxi_owner_problem(gpu, PassthroughUse::vgpu)->problem ==
        vmxkit::pci::OwnerProblem::not_vmkernel);
  CHECK_THROWS_WITH(host_from({{"pt.txt", "Device ID  Enabled\n0000:01:00.0  maybe\n"}}),
                    Catch::StartsWith("pt.txt:2:1: expected a 'DDDD:BB:DD.F  true|false' row"));
  CHECK_THROWS_WITH(host_from({{"pt.txt", "Device ID  Enabled\n-----  -----\n"}}),
                    Catch::StartsWith("pt.txt: no device rows"));
}

TEST_CASE("numactl --hardware with one node puts every device on it", "[pci][numactl]") {
  const std::string tree =
      "-+-[0000:00]---01.0-[01]----00.0  NVIDIA Corporation GH100 [H100 PCIe]\n"
      " \\-[0000:80]---01.0-[81]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]\n";
  const std::string numa =
      "available: 1 nodes (0)\nnode 0 cpus: 0 1 2 3 4 5 6 7 16 17\nnode 0 size: 128295 MB\n";
  const auto without = host_from({{"t.txt", tree}});
  CHECK(!without.find(Bdf{0, 1, 0, 0})->numa_node);
  const auto host = host_from({{"t.txt", tree}, {"numa.txt", numa}});
  CHECK(host.find(Bdf{0, 1, 0, 0})->numa_node == 0);
  CHECK(host.numa().cpus.at(0) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 16, 17});
  CHECK(vmxkit::cpu_ranges(host.numa().cpus.at(0)) == "0-7,16-17");
  CHECK_THROWS_WITH(host_from({{"n.txt", "available: x nodes\n"}}),
                    Catch::StartsWith("n.txt:1:11: expected 'available: N nodes'"));
}

TEST_CASE("sysfs loader reads a /sys/bus/pci/devices layout", "[pci][sysfs]") {
  namespace fs = std::filesystem;
  vmxkit::test::TempDir dir;
  const fs::path devs = dir / "bus/pci/devices";
  const fs::path rp = dir / "devices/pci0000:00/0000:00:01.0";
  const fs::path gpu = rp / "0000:01:00.0";
  fs::create_directories(devs);
  fs::create_directories(gpu / "driver_target");
  auto put = [](const fs::path& p, const std::string& s) { vmxkit::test::write_bytes(p, s); };
  put(rp / "class", "0x060400\n");
  put(rp / "vendor", "0x8086\n");
  put(rp / "device", "0x347a\n");
  put(rp / "numa_node", "1\n");
  put(gpu / "class", "0x030200\n");
  put(gpu / "vendor", "0x10de\n");
  put(gpu / "device", "0x2331\n");
  put(gpu / "numa_node", "-1\n");
  put(gpu / "current_link_speed", "32.0 GT/s PCIe\n");
  put(gpu / "current_link_width", "16\n");
  put(gpu / "resource",
      "0x000000009c000000 0x000000009cffffff 0x0000000000040200\n"
      "0x0000022000000000 0x0000023fffffffff 0x000000000014220c\n"
      "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:01.0", devs / "0000:00:01.0");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
                               devs / "0000:01:00.0");
  fs::create_directory_symlink("../../../../drivers/nvidia", gpu / "driver");
  const auto host = vmxkit::pci::load_host({devs.string()});
  const auto* g = host.find(Bdf{0, 1, 0, 0});
  REQUIRE(g != nullptr);
  CHECK(g->role == Role::gpu);
  CHECK(g->driver == "nvidia");
  CHECK(g->link_sta->speed == "32GT/s");
  CHECK(g->bar(1)->size == (std::uint64_t{128} << 30));
  CHECK(g->bar(1)->is_64bit);
  CHECK(!g->bar(0)->is_64bit);
  CHECK(host.at(*g->parent).bdf == Bdf{0, 0, 1, 0});
  CHECK(g->numa_node == 1);  // from the root port under the same host bridge
  CHECK_THROWS_WITH(vmxkit::pci::load_host({(dir / "nope").string()}), Catch::Contains("nope"));
}

TEST_CASE("esxcli hardware pci list loader reads the corpus captures of real ESXi hosts",
          "[pci][esxcli][corpus]") {
  const auto captures = vmxkit::test::corpus_esxcli_captures();
  REQUIRE_FALSE(captures.empty());
  for (const auto& path : captures) {
    INFO(path.filename().string());
    const auto host = vmxkit::pci::load_host({path.string()});
    CHECK(vmxkit::pci::detect_format(vmxkit::test::read_bytes(path), path.string()) ==
          vmxkit::pci::InputFormat::esxcli);
    CHECK_FALSE(host.devices().empty());
  }
  // The X540 port the VMkernel owns and the SAS HBA set for passthrough (see its .source.txt).
  const auto host = vmxkit::pci::load_host({vmxkit::test::corpus_dir("topology").string() +
                                            "/esxi-host-pci-list-x540-lsi2308-passthru.txt"});
  const auto* nic = host.find(Bdf{0, 2, 0, 1});
  const auto* hba = host.find(Bdf{0, 4, 0, 0});
  REQUIRE(nic != nullptr);
  REQUIRE(hba != nullptr);
  CHECK(nic->current_owner == "VMkernel");
  CHECK(nic->passthru_capable == true);
  CHECK(hba->configured_owner == "VM Passthru");
  CHECK(hba->vendor_id == 0x1000);
  CHECK(hba->device_id == 0x0087);
  using vmxkit::pci::PassthroughUse;
  CHECK_FALSE(vmxkit::pci::esxi_owner_problem(*hba, PassthroughUse::full));
  CHECK(vmxkit::pci::esxi_owner_problem(*nic, PassthroughUse::full));
}
