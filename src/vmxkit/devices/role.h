// SPDX-License-Identifier: Apache-2.0
// What a PCI device is for the GPU/NIC analysis, from what is known of it: the one classifier
// that the host model (every device of a capture) and the lint rules (a VM's passthrough
// entries) share. What the catalogue does not know is judged by what the device's class
// implies: an NVIDIA display or 3D controller is a GPU whatever its name or id, a Mellanox or
// NVIDIA network or InfiniBand controller is an RDMA NIC.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "vmxkit/devices/pci.h"

namespace vmxkit::pci {

struct CatalogEntry;

/// What is known of one device.
struct DeviceFacts {
  std::optional<std::uint16_t> vendor_id;
  std::optional<std::uint16_t> device_id;
  std::optional<std::uint16_t> class_code;  ///< base class << 8 | subclass (0x0302)
  std::optional<unsigned> function;         ///< the PCI function number, when the address is known
  std::string_view name;  ///< "NVIDIA Corporation GA100 [A100X]" (lspci -tv), when no ids
  const CatalogEntry* model = nullptr;
};

/// The role, by the catalogue's entry first, then the class code, then the vendor (an NVIDIA
/// function 0 without a class is its GPU; functions 1-3 are its audio, USB and UCSI companions),
/// then the name lspci prints. Never `bridge`, `nic_vf` is only what the catalogue or a name
/// says: bridges and VFs are judged from the tree and the SR-IOV capability by the host model.
Role role_of(const DeviceFacts& facts);

/// The NVIDIA or Mellanox device id an `lspci -tv` name without ids gives, when its pci.ids
/// had no name for the device: "NVIDIA Corporation Device 20b8" -> 0x20b8.
std::optional<std::uint16_t> id_in_unnamed(std::string_view name, std::uint16_t vendor_id);

inline constexpr std::uint16_t kNvidiaVendor = 0x10de;
inline constexpr std::uint16_t kMellanoxVendor = 0x15b3;

}  // namespace vmxkit::pci
