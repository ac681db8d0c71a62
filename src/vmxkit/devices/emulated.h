// SPDX-License-Identifier: Apache-2.0
// The devices VMware emulates inside a VM (virtual root ports, VMXNET3, PVSCSI, SVGA, VMCI, ...):
// what a guest's lspci shows beside its passthrough devices, by id and by the name lspci prints.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace vmxkit::pci {

/// What an emulated device is.
enum class EmulatedKind : unsigned char {
  root_port,  ///< VMware PCI Express Root Port: each passthrough device sits behind one
  bridge,     ///< another virtual PCI bridge
  chipset,    ///< the virtual 440BX/PIIX4 chipset functions
  nic,        ///< a virtual network adapter (VMXNET3, E1000, ...)
  rdma,       ///< a paravirtual RDMA adapter (PVRDMA)
  storage,    ///< a virtual disk controller (PVSCSI, LSI Logic, AHCI, NVMe)
  display,    ///< the SVGA adapter
  usb,
  other,  ///< VMCI, audio, ...
};
std::string_view to_string(EmulatedKind kind);

/// One device VMware emulates.
struct EmulatedDevice {
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  EmulatedKind kind = EmulatedKind::other;
  /// The name lspci prints (pci.ids vendor and device name): "VMware VMXNET3 Ethernet
  /// Controller". `lspci -tv` prints it alone, with no ids.
  std::string_view lspci_name;
  /// The id is also a real device's (Intel, LSI parts VMware imitates): emulated only in a
  /// guest that also shows VMware's own devices.
  bool shared_id = false;
  std::string_view source;
};

/// The table, in id order.
const std::vector<EmulatedDevice>& emulated_devices();
/// By vendor:device id, or nullptr.
const EmulatedDevice* find_emulated(std::uint16_t vendor_id, std::uint16_t device_id);
/// By the name lspci prints (ids, revision and `(prog-if ...)` already removed), or nullptr.
const EmulatedDevice* find_emulated_name(std::string_view lspci_name);

}  // namespace vmxkit::pci
