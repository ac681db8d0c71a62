// SPDX-License-Identifier: Apache-2.0
// The words of PCI that device knowledge and the host model share: a BAR, and what a device is
// for the GPU/NIC analysis.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vmxkit::pci {

/// One base address register (or SR-IOV VF BAR) as lspci/sysfs shows it.
struct Bar {
  int index = 0;                      ///< Region N
  std::uint64_t address = 0;          ///< 0 when `<unassigned>`/`<ignored>`
  std::optional<std::uint64_t> size;  ///< bytes; lspci prints none for VF BARs and -F dumps
  bool io = false;                    ///< I/O ports, not memory
  bool is_64bit = false;
  bool prefetchable = false;
  bool disabled = false;
  std::uint32_t line = 0;  ///< its `Region` line in Device::bars_from's file; 0 when not read so
};

/// What a device is for the GPU/NIC analysis.
enum class Role : unsigned char {
  other,
  bridge,    ///< a root port, switch port or other PCI bridge
  gpu,       ///< an NVIDIA GPU (display class, or catalogue)
  rdma_nic,  ///< an RDMA-capable NIC physical function (ConnectX/BlueField)
  nic_vf,    ///< an SR-IOV virtual function of an RDMA NIC
  nic,       ///< another network controller (onboard 1/10 GbE...)
};
std::string_view to_string(Role role);

}  // namespace vmxkit::pci
