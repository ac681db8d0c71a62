// SPDX-License-Identifier: Apache-2.0
// An NCCL topology file (NCCL_TOPO_FILE) for a VM: the host's real PCIe tree above each
// passthrough GPU and NIC, with the guest's bus ids on the devices, so NCCL inside the VM sees
// a GPU and its NIC under the same switch as on the host.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/model/host.h"
#include "vmxkit/formats/vmx/document.h"

namespace vmxkit::guest {

/// One guest device and the host device it is.
struct DeviceMapping {
  std::size_t guest_index = 0;  ///< into Guest::pci().devices()
  std::size_t host_index = 0;   ///< into Host::devices(): the position written (a VF's PF)
  Bdf guest_bdf;
  Bdf host_bdf;
  std::optional<unsigned> entry;  ///< the pciPassthruN it came from (none: --map to a non-entry)
  bool from_map = false;          ///< given with --map
  bool by_order = false;          ///< one of several devices of its id, matched by order
  bool vf = false;                ///< an SR-IOV VF entry, placed at its PF
  std::string how;                ///< how it was matched, for the note and the XML comment
};

/// What nccl-topo was given besides the inputs.
struct NcclTopoOptions {
  /// `--map GUEST_BDF=HOST_BDF`, as written (validated by build_nccl_topo).
  std::vector<std::string> maps;
};

/// The result: the mappings, notes for the user (stderr), and the XML.
struct NcclTopo {
  std::vector<DeviceMapping> mappings;
  std::vector<std::string> notes;
  std::string xml;
};

/// The synthetic bus id a host bridge gets in the file: its host bus, device and function in a
/// PCI domain no guest device uses (0xffff downwards, one per host domain), so NCCL's lookups
/// by bus id can never find a bridge where it looks for a guest device.
std::string synthetic_busid(std::uint16_t domain, const Bdf& host_bdf);

/// A link speed as lspci prints it ("32GT/s", "2.5GT/s") in the form Linux's sysfs
/// `max_link_speed` holds and NCCL's kvDictPciGen reads ("32.0 GT/s PCIe"); empty when unknown.
std::string nccl_link_speed(const std::string& lspci_speed);

/// Maps every guest GPU and NIC to its host device (pciPassthruN ids, --map) and writes the
/// topology. Throws vmxkit::Error (file:line:col where there is one) for a bad `.vmx` id, a bad
/// or unknown --map address, or a guest GPU/NIC no entry or --map accounts for.
NcclTopo build_nccl_topo(const pci::Host& host, const vmx::Document& vm, const Guest& guest,
                         const NcclTopoOptions& options = {});

}  // namespace vmxkit::guest
