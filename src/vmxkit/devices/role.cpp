// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/role.h"

#include "vmxkit/core/text.h"
#include "vmxkit/devices/catalog.h"

namespace vmxkit::pci {
namespace {

constexpr std::uint16_t kDisplayClass = 0x03;  // VGA, XGA, 3D controller (PCI base class 03h)
constexpr std::uint16_t kNetworkClass = 0x02;  // Ethernet, InfiniBand... (base class 02h)

// `lspci -tv` names: what they say when no ids and no class are known.
Role role_of_name(std::string_view n) {
  if (n.starts_with("NVIDIA Corporation ")) {
    // A GPU's name, or "Device 20b8" where pci.ids is older than the GPU; not its companions.
    if (contains(n, "Audio") || contains(n, "USB") || contains(n, "UCSI") ||
        contains(n, "NVSwitch") || contains(n, "Bridge") || contains(n, "Switch")) {
      return Role::other;
    }
    return Role::gpu;
  }
  if (n.starts_with("Mellanox Technologies ") &&
      (contains(n, "ConnectX") || contains(n, "BlueField") || contains(n, "Device ")) &&
      !contains(n, "Bridge") && !contains(n, "Switch") && !contains(n, "DMA")) {
    return contains(n, "Virtual Function") ? Role::nic_vf : Role::rdma_nic;
  }
  if (contains(n, "Ethernet") || contains(n, "Network") || contains(n, "Wireless")) {
    return Role::nic;
  }
  return Role::other;
}

}  // namespace

Role role_of(const DeviceFacts& f) {
  if (f.model != nullptr && f.model->role != Role::other) return f.model->role;
  const bool nvidia = f.vendor_id == kNvidiaVendor;
  const bool mellanox = f.vendor_id == kMellanoxVendor;
  if (f.class_code) {
    const std::uint16_t base = *f.class_code >> 8;
    if (base == kDisplayClass && nvidia) return Role::gpu;
    if (base == kNetworkClass) return mellanox ? Role::rdma_nic : Role::nic;
    return Role::other;
  }
  if (f.vendor_id) {
    if (nvidia) return f.function.value_or(0) == 0 ? Role::gpu : Role::other;
    if (*f.vendor_id == kMellanoxVendor) return Role::rdma_nic;
    return Role::other;
  }
  return role_of_name(f.name);
}

std::optional<std::uint16_t> id_in_unnamed(std::string_view name, std::uint16_t vendor_id) {
  constexpr std::string_view kDevice = " Device ";
  const std::string_view vendor = vendor_id == kNvidiaVendor     ? "NVIDIA Corporation"
                                  : vendor_id == kMellanoxVendor ? "Mellanox Technologies"
                                                                 : "";
  if (vendor.empty() || !name.starts_with(vendor) ||
      name.substr(vendor.size(), kDevice.size()) != kDevice) {
    return std::nullopt;
  }
  const std::string_view hex = name.substr(vendor.size() + kDevice.size(), 4);
  const auto id = hex.size() == 4 ? parse_hex(hex) : std::nullopt;
  if (!id) return std::nullopt;
  return static_cast<std::uint16_t>(*id);
}

}  // namespace vmxkit::pci
