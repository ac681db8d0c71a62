// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/emulated.h"

#include <algorithm>
#include <array>

namespace vmxkit::pci {
namespace {

// Names: pci.ids (the 2023.04.11 Debian 12 package and the 2026.08.22 release agree on every
// name here). Guest captures that show the ids beside the names: an ESXi 5.5 guest's
// `lspci -nn` (Ubuntu Forums passthrough thread) and an ESXi guest's `lspci` (github
// ROCm/ROCm issue #307), a CentOS 7 ESXi guest with two P100s (a public Markdown note).
constexpr std::string_view kPciIds = "pci.ids (2023.04.11 and 2026.08.22)";
constexpr std::string_view kSeen =
    "pci.ids; seen in ESXi guests' lspci -nn (Ubuntu Forums ESXi 5.5 passthrough thread; github "
    "ROCm/ROCm issue #307)";

const std::vector<EmulatedDevice> kDevices = {
    {0x1000, 0x0030, EmulatedKind::storage, "53c1030 PCI-X Fusion-MPT Dual Ultra320 SCSI", true,
     "pci.ids; VMware's \"LSI Logic Parallel\" controller at 00:10.0 in ESXi guests' lspci -nn "
     "(Ubuntu Forums ESXi 5.5 passthrough thread; github ROCm/ROCm issue #307)"},
    {0x1000, 0x0054, EmulatedKind::storage, "SAS1068 PCI-X Fusion-MPT SAS", true,
     "pci.ids; VMware's \"LSI Logic SAS\" controller (the id is from pci.ids; no guest capture "
     "seen)"},
    {0x15ad, 0x0405, EmulatedKind::display, "SVGA II Adapter", false, kSeen},
    {0x15ad, 0x0406, EmulatedKind::display, "SVGA II Adapter (Fusion)", false,
     "pci.ids 2026.08.22 (absent from 2023.04.11)"},
    {0x15ad, 0x0710, EmulatedKind::display, "SVGA Adapter", false, kPciIds},
    {0x15ad, 0x0720, EmulatedKind::nic, "VMXNET Ethernet Controller", false, kPciIds},
    {0x15ad, 0x0740, EmulatedKind::other, "Virtual Machine Communication Interface", false, kSeen},
    {0x15ad, 0x0770, EmulatedKind::usb, "USB2 EHCI Controller", false, kSeen},
    {0x15ad, 0x0774, EmulatedKind::usb, "USB1.1 UHCI Controller", false, kSeen},
    {0x15ad, 0x0778, EmulatedKind::usb, "USB3 xHCI 0.96 Controller", false, kPciIds},
    {0x15ad, 0x0779, EmulatedKind::usb, "USB3 xHCI 1.0 Controller", false, kPciIds},
    {0x15ad, 0x0790, EmulatedKind::bridge, "PCI bridge", false, kSeen},
    {0x15ad, 0x07a0, EmulatedKind::root_port, "PCI Express Root Port", false, kSeen},
    {0x15ad, 0x07b0, EmulatedKind::nic, "VMXNET3 Ethernet Controller", false,
     "pci.ids; seen as 1b:00.0 [15ad:07b0] in an ESXi 5.5 guest's lspci -nn (Ubuntu Forums "
     "passthrough thread)"},
    {0x15ad, 0x07c0, EmulatedKind::storage, "PVSCSI SCSI Controller", false, kPciIds},
    {0x15ad, 0x07e0, EmulatedKind::storage, "SATA AHCI controller", false,
     "pci.ids; seen as 02:03.0 in a CentOS 7 ESXi guest's lspci"},
    {0x15ad, 0x07f0, EmulatedKind::storage, "NVMe SSD Controller", false, kPciIds},
    {0x15ad, 0x0801, EmulatedKind::other, "Virtual Machine Interface", false, kPciIds},
    {0x15ad, 0x0820, EmulatedKind::rdma, "Paravirtual RDMA controller", false, kPciIds},
    {0x15ad, 0x1977, EmulatedKind::other, "HD Audio Controller", false, kPciIds},
    {0x8086, 0x100f, EmulatedKind::nic, "82545EM Gigabit Ethernet Controller (Copper)", true,
     "pci.ids; VMware's \"E1000\" adapter (vSphere API VirtualE1000) presents this Intel "
     "part; no VMware document or guest capture seen confirms the id"},
    {0x8086, 0x10d3, EmulatedKind::nic, "82574L Gigabit Network Connection", true,
     "pci.ids; VMware's \"E1000E\" adapter (vSphere API VirtualE1000e) presents this Intel "
     "part; no VMware document or guest capture seen confirms the id"},
    {0x8086, 0x7110, EmulatedKind::chipset, "82371AB/EB/MB PIIX4 ISA", true, kSeen},
    {0x8086, 0x7111, EmulatedKind::chipset, "82371AB/EB/MB PIIX4 IDE", true, kSeen},
    {0x8086, 0x7113, EmulatedKind::chipset, "82371AB/EB/MB PIIX4 ACPI", true, kSeen},
    {0x8086, 0x7190, EmulatedKind::chipset, "440BX/ZX/DX - 82443BX/ZX/DX Host bridge", true, kSeen},
    {0x8086, 0x7191, EmulatedKind::chipset, "440BX/ZX/DX - 82443BX/ZX/DX AGP bridge", true, kSeen},
};

// The vendor names lspci prints before the device name (pci.ids; LSI's changed name in 2016).
bool vendor_prefix(std::uint16_t vendor, std::string_view name, std::string_view& rest) {
  static constexpr std::array<std::pair<std::uint16_t, std::string_view>, 4> kVendors = {{
      {0x1000, "Broadcom / LSI "},
      {0x1000, "LSI Logic / Symbios Logic "},
      {0x15ad, "VMware "},
      {0x8086, "Intel Corporation "},
  }};
  for (const auto& [id, prefix] : kVendors) {
    if (id == vendor && name.starts_with(prefix)) {
      rest = name.substr(prefix.size());
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view to_string(EmulatedKind kind) {
  switch (kind) {
    case EmulatedKind::root_port:
      return "virtual root port";
    case EmulatedKind::bridge:
      return "virtual bridge";
    case EmulatedKind::chipset:
      return "virtual chipset";
    case EmulatedKind::nic:
      return "virtual network adapter";
    case EmulatedKind::rdma:
      return "paravirtual RDMA adapter";
    case EmulatedKind::storage:
      return "virtual disk controller";
    case EmulatedKind::display:
      return "virtual display adapter";
    case EmulatedKind::usb:
      return "virtual USB controller";
    case EmulatedKind::other:
      return "virtual device";
  }
  return "virtual device";
}

const std::vector<EmulatedDevice>& emulated_devices() { return kDevices; }

const EmulatedDevice* find_emulated(std::uint16_t vendor_id, std::uint16_t device_id) {
  const auto it = std::find_if(kDevices.begin(), kDevices.end(), [&](const EmulatedDevice& e) {
    return e.vendor_id == vendor_id && e.device_id == device_id;
  });
  return it == kDevices.end() ? nullptr : &*it;
}

const EmulatedDevice* find_emulated_name(std::string_view lspci_name) {
  for (const EmulatedDevice& e : kDevices) {
    std::string_view rest;
    if (vendor_prefix(e.vendor_id, lspci_name, rest) && rest == e.lspci_name) return &e;
  }
  return nullptr;
}

}  // namespace vmxkit::pci
