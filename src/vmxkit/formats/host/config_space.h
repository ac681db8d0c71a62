// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include "vmxkit/model/pci_device.h"

namespace vmxkit::pci {

/// Fills `device` from its PCI configuration space (64, 256 or 4096 bytes, as sysfs `config` or
/// `lspci -xxxx` give): ids, class, bridge bus numbers, Express port type and links, ACS, ATS,
/// SR-IOV. Fields the bytes do not hold are left as they are.
void decode_config_space(std::span<const std::uint8_t> config, Device& device);

}  // namespace vmxkit::pci
