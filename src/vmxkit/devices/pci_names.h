// SPDX-License-Identifier: Apache-2.0
// Names and ids as lspci prints them (internal to the pci module).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vmxkit::pci {

/// A name with the ids lspci put beside it (-nn `[vvvv:dddd]`, -n `vvvv:dddd`, unknown
/// `Device dddd`), and the ids parsed.
struct NameIds {
  std::string_view name;
  std::optional<std::uint16_t> vendor_id;
  std::optional<std::uint16_t> device_id;
  std::optional<std::uint16_t> class_code;
};

/// "Ethernet controller [0200]" / "0200" / "Ethernet controller".
NameIds split_class(std::string_view text);
/// "Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]", "15b3:1021",
/// "Device 1c00:3450", "NVIDIA Corporation Device 2335".
NameIds split_device_name(std::string_view text);
/// The class code for the class names pci.ids gives (the ones that matter here), else nullopt.
std::optional<std::uint16_t> class_code_for_name(std::string_view name);

}  // namespace vmxkit::pci
