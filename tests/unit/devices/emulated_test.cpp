// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/emulated.h"

#include <catch2/catch.hpp>
#include <set>
#include <utility>

#include "support/support.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/model/guest.h"

using vmxkit::pci::EmulatedKind;

TEST_CASE("VMware's emulated guest devices are known by id and by the name lspci prints",
          "[devices][emulated]") {
  const auto* vmxnet3 = vmxkit::pci::find_emulated(0x15ad, 0x07b0);
  REQUIRE(vmxnet3 != nullptr);
  CHECK(vmxnet3->kind == EmulatedKind::nic);
  CHECK(vmxkit::pci::find_emulated_name("VMware VMXNET3 Ethernet Controller") == vmxnet3);
  CHECK(vmxkit::pci::find_emulated_name("VMware PCI Express Root Port")->kind ==
        EmulatedKind::root_port);
  CHECK(vmxkit::pci::find_emulated_name("VMware PVSCSI SCSI Controller")->kind ==
        EmulatedKind::storage);
  CHECK(vmxkit::pci::find_emulated_name("VMware SVGA II Adapter")->kind == EmulatedKind::display);
  CHECK(vmxkit::pci::find_emulated_name("VMware Virtual Machine Communication Interface") !=
        nullptr);
  // LSI's old and new vendor names both.
  CHECK(vmxkit::pci::find_emulated_name(
            "LSI Logic / Symbios Logic 53c1030 PCI-X Fusion-MPT Dual Ultra320 SCSI") != nullptr);
  CHECK(vmxkit::pci::find_emulated_name(
            "Broadcom / LSI 53c1030 PCI-X Fusion-MPT Dual Ultra320 SCSI") != nullptr);
  // Real hardware is not.
  CHECK(vmxkit::pci::find_emulated(0x15b3, 0x1021) == nullptr);
  CHECK(vmxkit::pci::find_emulated_name("Mellanox Technologies MT2910 Family [ConnectX-7]") ==
        nullptr);
  CHECK(vmxkit::pci::find_emulated_name("VMware") == nullptr);
}

TEST_CASE("the emulated-device table has one entry per id, each with a source",
          "[devices][emulated]") {
  std::set<std::pair<std::uint16_t, std::uint16_t>> ids;
  for (const auto& e : vmxkit::pci::emulated_devices()) {
    INFO(e.lspci_name);
    CHECK(ids.insert({e.vendor_id, e.device_id}).second);
    CHECK_FALSE(e.source.empty());
    CHECK(e.shared_id == (e.vendor_id != 0x15ad));  // only VMware's own ids are VMware's alone
  }
}

TEST_CASE("an id VMware shares with real hardware is emulated only in a VMware guest",
          "[devices][emulated]") {
  // The 440BX host bridge and PIIX4 functions of an ESXi guest, beside VMware's own devices.
  auto count = [](const vmxkit::guest::Guest& g) {
    std::size_t n = 0;
    for (const auto& d : g.pci().devices()) n += vmxkit::pci::is_emulated(d, g.pci().devices());
    return n;
  };
  const std::string tv =
      vmxkit::test::source_path("tests/data/guest/esxi-2gpu-2nic.lspci-tv.txt").string();
  const std::string vvv =
      vmxkit::test::source_path("tests/data/guest/esxi-2gpu-2nic.lspci-vvv.txt").string();
  // lspci -tv names no bridge: by name, 440BX, PIIX4 x3, VMCI, SVGA, PVSCSI, VMXNET3.
  CHECK(count(vmxkit::guest::load_guest({tv})) == 8);
  // With the ids of lspci -vvv also the AGP bridge, the PCI bridge and the 6 root ports; not
  // the two GPUs and two NICs.
  const auto g = vmxkit::guest::load_guest({vvv, tv});
  const auto& all = g.pci().devices();
  CHECK(all.size() == 20);
  CHECK(count(g) == 16);
  // The same Intel chipset function on a host with no VMware device is real hardware.
  vmxkit::pci::Device piix4;
  piix4.vendor_id = 0x8086;
  piix4.device_id = 0x7110;
  CHECK_FALSE(vmxkit::pci::is_emulated(piix4, {piix4}));
  CHECK(vmxkit::pci::is_emulated(piix4, all));
}
