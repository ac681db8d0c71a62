// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/devices/emulated.h"
#include "vmxkit/devices/pci.h"

namespace vmxkit::pci {

/// The PCI Express capability's device/port type (lspci `Express (v2) <type>`).
enum class PortType : unsigned char {
  unknown,
  endpoint,
  legacy_endpoint,
  root_port,
  upstream_port,
  downstream_port,
  pcie_to_pci_bridge,
  pci_to_pcie_bridge,
  rc_integrated_endpoint,
  rc_event_collector,
};
std::string_view to_string(PortType type);

/// ACS capability/control bits (pciutils lib/header.h): SrcValid 0x01, TransBlk 0x02,
/// ReqRedir 0x04, CmpltRedir 0x08, UpstreamFwd 0x10, EgressCtrl 0x20, DirectTrans 0x40.
struct Acs {
  std::uint16_t cap = 0;
  std::uint16_t ctl = 0;
  static constexpr std::uint16_t kSrcValid = 0x01, kTransBlk = 0x02, kReqRedir = 0x04,
                                 kCmpltRedir = 0x08, kUpstreamFwd = 0x10, kEgressCtrl = 0x20,
                                 kDirectTrans = 0x40;
  /// ReqRedir|CmpltRedir|EgressCtrl in ACSCtl: the bridge sends peer traffic up to the root
  /// complex (Linux p2pdma `pci_bridge_has_acs_redir`).
  bool redirects_p2p() const { return (ctl & (kReqRedir | kCmpltRedir | kEgressCtrl)) != 0; }
  /// The ACSCtl bits that are set, by lspci name ("ReqRedir+ CmpltRedir+").
  std::string ctl_text() const;
};

/// SR-IOV capability of a physical function.
struct Sriov {
  std::optional<unsigned> initial_vfs;
  std::optional<unsigned> total_vfs;
  std::optional<unsigned> num_vfs;
  std::optional<unsigned> vf_offset;
  std::optional<unsigned> vf_stride;
  std::optional<std::uint16_t> vf_device_id;
  std::vector<Bar> vf_bars;
};

/// A link as LnkCap/LnkSta shows it.
struct Link {
  std::string speed;  ///< "16GT/s"
  std::optional<unsigned> width;
};

/// Where a fact came from: a file and 1-based line.
struct Origin {
  std::string path;
  std::uint32_t line = 0;
  std::string to_string() const { return path + ":" + std::to_string(line); }
};

struct CatalogEntry;

/// A BAR the kernel could not place (dmesg: `BAR 1: no space for [mem size 0x... 64bit pref]`,
/// or `BAR 1 [mem size 0x... 64bit pref]: can't assign; no space` on newer kernels).
struct UnassignedBar {
  int index = 0;
  std::uint64_t size = 0;
  bool is_64bit = false;
  Origin where;
};

/// A PCI function on the host with what the inputs say about it. Fields the inputs did not give
/// stay empty (nullopt / empty string): unknown, not guessed.
struct Device {
  Bdf bdf;
  std::optional<std::uint16_t> class_code;  ///< base class << 8 | subclass (0x0302)
  std::string class_name;                   ///< "3D controller"
  std::optional<std::uint16_t> vendor_id;
  std::optional<std::uint16_t> device_id;
  std::string name;  ///< vendor and device name as lspci prints them, ids removed
  std::optional<std::uint16_t> subsys_vendor_id;
  std::optional<std::uint16_t> subsys_device_id;
  std::string subsystem;
  std::optional<std::uint8_t> revision;
  std::vector<Bar> bars;
  std::optional<int> numa_node;
  bool numa_inferred = false;  ///< numa_node was inferred (other function, same host bridge)
  std::string driver;
  std::vector<std::string> modules;
  std::string physical_slot;
  PortType port_type = PortType::unknown;
  bool port_type_inferred = false;  ///< from the tree shape, not an Express capability
  std::optional<Link> link_cap;
  std::optional<Link> link_sta;
  /// Bridge bus numbers (`Bus: primary=.., secondary=.., subordinate=..`, or the -tv `[SS-UU]`).
  std::optional<std::uint8_t> primary_bus, secondary_bus, subordinate_bus;
  std::optional<Acs> acs;
  std::optional<bool> ats_enabled;  ///< set when the ATS capability is present: ATSCtl Enable±
  bool ats_present = false;
  std::optional<Sriov> sriov;
  std::optional<int> iommu_group;
  std::string rdma_name;  ///< "mlx5_0" when the input says (sysfs)
  /// ESXi only (esxcli hardware pci list): `Configured Owner` and `Current Owner` ("VMkernel",
  /// "VM Passthru"; they differ until a reboot applies a change) and `Passthru Capable`.
  std::string configured_owner;
  std::string current_owner;
  std::optional<bool> passthru_capable;
  /// ESXi 7.0+ (esxcli hardware pci pcipassthru list): `Enabled` for the device.
  std::optional<bool> passthru_enabled;

  // The tree, set by Host once all inputs are merged.
  std::optional<std::size_t> parent;  ///< index of the upstream bridge in Host::devices()
  std::optional<std::size_t> root;    ///< index in Host::roots() of its host bridge
  std::vector<std::size_t> children;
  unsigned depth = 0;                 ///< bridges between this device and its root bus
  std::optional<std::size_t> physfn;  ///< the PF of a VF, when known
  Role role = Role::other;
  const CatalogEntry* model = nullptr;  ///< catalogue entry; points into the Host's catalogue copy
  std::vector<Origin> origins;          ///< the input lines that described it
  Origin bars_from;                     ///< the file (and first line) its BARs were read from
  /// BARs as the kernel log sizes them (dmesg `reg 0x..`/`BAR N [mem a-b]` ranges), used where
  /// no lspci gives `bars`; each Bar::line is its dmesg line in kernel_bars_from's file.
  std::vector<Bar> kernel_bars;
  Origin kernel_bars_from;
  std::vector<UnassignedBar> unassigned_bars;  ///< BARs the kernel said it found no space for

  // Explicit tree facts from a tree-shaped input (lspci -tv, esxcli Parent Device, sysfs path).
  std::optional<Bdf> given_parent;
  bool given_on_root_bus = false;

  bool is_bridge() const {
    return secondary_bus.has_value() || (class_code && *class_code == 0x0604) ||
           port_type == PortType::root_port || port_type == PortType::upstream_port ||
           port_type == PortType::downstream_port || port_type == PortType::pcie_to_pci_bridge;
  }
  /// A memory BAR by index, or nullptr.
  const Bar* bar(int index) const;
  /// An NVIDIA NVSwitch (HGX/DGX baseboards: 10de:1af1 A100 generation, 10de:22a3 H100
  /// generation), by id, or by the name lspci prints where the input has no ids.
  bool is_nvswitch() const;
};

/// A guest device's entry in the table of devices VMware emulates (devices/emulated.h): by id
/// when the input gave one, else by the name lspci prints; nullptr when none.
const EmulatedDevice* find_emulated(const Device& device);

/// Whether `device` of a guest whose devices are `all` is one VMware emulates: an entry with
/// VMware's own id, or one whose id is shared with real hardware in a guest that also shows a
/// device only VMware makes.
bool is_emulated(const Device& device, const std::vector<Device>& all);

}  // namespace vmxkit::pci
