// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/model/pci_device.h"
#include "vmxkit/model/smi_topo.h"

namespace vmxkit::pci {

/// A PCI root bus: one host bridge (`[DDDD:BB]` in `lspci -tv`).
struct RootBus {
  std::uint16_t domain = 0;
  std::uint8_t bus = 0;
  std::optional<int> numa_node;       ///< when the devices below it agree on one
  std::vector<std::size_t> children;  ///< devices on the root bus
  std::string to_string() const;      ///< "0000:c0"
};

/// What `numactl --hardware` (or sysfs) says about the NUMA nodes.
struct NumaInfo {
  std::optional<unsigned> node_count;
  std::map<int, std::vector<int>> cpus;  ///< node -> its CPU numbers, ascending, each once
  /// An `lspci -vvv` capture read from sysfs (driver or IOMMU group lines) with not one `NUMA
  /// node:` line (its path): lspci prints the line when the kernel knows the node, so the
  /// kernel knew a single node, and nvidia-smi puts every device on it. Used when nothing else
  /// gives a node.
  std::string no_numa_lines_in;
  /// Every device was put on one node because of `no_numa_lines_in` (set by finalize).
  bool single_node_inferred = false;
};

/// One vGPU type the host offers: a name of `config.sharedPassthruGpuTypes` (vSphere API 6.0,
/// `HostConfigInfo`), with what its `config.sharedGpuCapabilities` entry (6.7,
/// `HostSharedGpuCapabilities`) says a VM holding it may do; unset where the host gave none.
struct VgpuOffer {
  std::string profile;  ///< "nvidia_h100xm-80c", as a VM's pciPassthruN.vgpu names it
  std::optional<bool> disk_snapshot, memory_snapshot, suspend, migrate;
};

/// The vGPU types of a host read from the vSphere API. `known` only when the input holds the
/// properties (a host from `lspci` or esxcli says nothing about them): then an empty `offered`
/// means the host offers none.
struct HostVgpuTypes {
  bool known = false;
  std::string host_name;  ///< the HostSystem's name, for messages
  std::vector<VgpuOffer> offered;
  const VgpuOffer* find(std::string_view profile) const;
  std::vector<std::string> names() const;
};

/// A warning about the input: where, and what could not be done.
struct HostWarning {
  Origin where;  ///< path empty when not about one line
  std::string message;
  std::string to_string() const;
};

/// The host's PCI devices merged from every input, as a tree under its root buses.
///
/// Build: create, feed inputs with the loaders of formats/host/load.h (load_text(), load_sysfs(),
/// load_host()), then call
/// finalize(), which builds the tree, matches the catalogue, infers what is sound (port types
/// from the tree shape, NUMA nodes shared by functions and host bridges) and assigns roles.
class Host {
 public:
  explicit Host(Catalog catalog = Catalog::builtin());

  // --- building (loaders) ---
  /// The device with this address, created if new. Indices are stable until finalize().
  std::size_t upsert(const Bdf& bdf);
  /// Room for `more` devices beyond those there: a loader that can count its devices first
  /// calls it, so a large capture is not copied by a growing vector (twice its size at once).
  void reserve(std::size_t more) { devices_.reserve(devices_.size() + more); }
  Device& at(std::size_t index) { return devices_[index]; }
  void add_root(std::uint16_t domain, std::uint8_t bus);
  /// Marks inputs that list every device (esxcli, sysfs): a bus no bridge leads to is a root bus.
  void set_complete() { complete_ = true; }
  void warn(Origin where, std::string message);
  NumaInfo& numa() { return numa_; }
  /// hardware.systemInfo.uuid from the vSphere API: the systemId of passthrough entries.
  void set_system_uuid(std::string uuid) { system_uuid_ = std::move(uuid); }
  HostVgpuTypes& vgpu_types() { return vgpu_types_; }
  void set_smi_topo(SmiTopo topo) { smi_topo_ = std::move(topo); }
  void finalize();

  // --- queries ---
  const std::vector<Device>& devices() const { return devices_; }
  const Device& at(std::size_t index) const { return devices_[index]; }
  std::optional<std::size_t> index_of(const Bdf& bdf) const;
  const Device* find(const Bdf& bdf) const;
  const std::vector<RootBus>& roots() const { return roots_; }
  const std::vector<HostWarning>& warnings() const { return warnings_; }
  const NumaInfo& numa() const { return numa_; }
  /// The host's system UUID when an input gave it (the vSphere API), else empty.
  const std::string& system_uuid() const { return system_uuid_; }
  const HostVgpuTypes& vgpu_types() const { return vgpu_types_; }
  const Catalog& catalog() const { return *catalog_; }
  /// "0000:c1:00.0 (RTX 6000 Ada Generation)" for messages.
  std::string describe(std::size_t index) const;

  /// `nvidia-smi topo -m`, when an input was one.
  const std::optional<SmiTopo>& smi_topo() const { return smi_topo_; }
  /// Per label of smi_topo(): the device it is, when the PCI inputs have it. GPU i is the i-th
  /// NVIDIA GPU in PCI address order (nvidia-smi numbers GPUs by PCI bus id), and only when the
  /// counts agree; a NIC is the RDMA NIC of the legend's name (`rdma_name`, from sysfs).
  const std::vector<std::optional<std::size_t>>& smi_devices() const { return smi_devices_; }
  /// Why the matrix's GPUs were not matched to the PCI inputs' (the counts differ); empty when
  /// they were, or when there is nothing to match.
  const std::string& smi_mismatch() const { return smi_mismatch_; }
  /// The label of smi_topo() that is device `index`, when matched.
  std::optional<std::size_t> smi_label(std::size_t index) const;
  /// The bonded NVLinks between two devices as `nvidia-smi topo -m` shows them (`NV18`), or
  /// nullopt (no matrix, a device not matched, or a PCIe class).
  std::optional<unsigned> nvlinks(std::size_t a, std::size_t b) const;

 private:
  using BusKey = std::pair<std::uint16_t, std::uint8_t>;  ///< domain, bus
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  /// Per bus of one domain, the two bridges with the narrowest range holding it (kNone: none).
  struct EnclosingCache {
    std::optional<std::uint16_t> domain;
    std::array<std::pair<std::size_t, std::size_t>, 256> best{};
  };

  void match_catalog();
  void build_tree();
  std::map<BusKey, std::size_t> bridges_by_secondary_bus();
  std::set<BusKey> find_root_buses(const std::map<BusKey, std::size_t>& by_secondary) const;
  std::optional<std::size_t> nearest_enclosing_bridge(std::size_t i, EnclosingCache& cache) const;
  bool place_device(std::size_t i, const std::map<BusKey, std::size_t>& by_secondary,
                    const std::set<BusKey>& root_set, EnclosingCache& cache);
  void set_depths(const std::vector<bool>& on_root,
                  const std::map<BusKey, std::size_t>& root_index);
  void infer_port_types();
  void assign_roles();
  void link_vfs();
  void infer_numa();
  void match_smi_topo();

  std::shared_ptr<const Catalog> catalog_;
  std::vector<Device> devices_;
  std::map<Bdf, std::size_t> index_;
  std::vector<RootBus> roots_;
  std::vector<std::pair<std::uint16_t, std::uint8_t>> given_roots_;
  std::vector<HostWarning> warnings_;
  NumaInfo numa_;
  std::string system_uuid_;
  HostVgpuTypes vgpu_types_;
  std::optional<SmiTopo> smi_topo_;
  std::vector<std::optional<std::size_t>> smi_devices_;
  std::map<std::size_t, std::size_t> smi_label_of_;  ///< device -> label of smi_topo_
  std::string smi_mismatch_;
  bool complete_ = false;
  bool finalized_ = false;
};

/// The CPU vendor, from the host bridges and root ports (Intel 8086, AMD 1022).
enum class CpuVendor : unsigned char { unknown, intel, amd };
CpuVendor cpu_vendor(const Host& host);

/// The host's NVSwitch devices (Device::is_nvswitch), by index, in input order.
std::vector<std::size_t> nvswitches(const Host& host);

}  // namespace vmxkit::pci
