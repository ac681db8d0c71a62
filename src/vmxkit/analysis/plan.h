// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vmxkit/analysis/mmio.h"
#include "vmxkit/analysis/nvlink_note.h"
#include "vmxkit/analysis/readiness.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/vsphere/config_target.h"
#include "vmxkit/model/host.h"

/// The generator: from a host capture (or catalogue models) and the user's choices to a plan of
/// passthrough devices, P2P pairs and the 64-bit MMIO window, rendered by templates.
namespace vmxkit::generate {

/// What the user asked for (`vmxkit generate` options).
struct Request {
  /// `--gpu`: host addresses (`0000:3b:00.0`), `auto`, or without a host catalogue models
  /// (`h100-pcie`, `10de:2331`).
  std::vector<std::string> gpus;
  std::optional<unsigned> gpu_count;   ///< `--gpus N`: the N best-connected GPUs
  std::vector<std::string> nics;       ///< `--nic`: addresses, `auto`, or models
  std::optional<std::string> vgpu;     ///< `--vgpu PROFILE`: vGPU instead of full passthrough
  bool sriov = false;                  ///< `--sriov`: pass SR-IOV VFs of the NICs, not the PFs
  std::string network = "VM Network";  ///< port group of SR-IOV VF entries
  std::optional<std::uint64_t> memory_mb;
  std::string system_id;        ///< the host's system UUID (esxcli system uuid get) for systemId
  bool allow_degraded = false;  ///< accept PHB/NODE pairs (GPUDirect through the CPU)
  std::string host_label;       ///< how the explanation names the host capture
  /// `--device-group`: a vendor device group of the host's ConfigTarget whose instances the
  /// plan's vGPUs and NICs form (see plan_device_group()).
  std::optional<vsphere::VendorDeviceGroup> device_group;
};

enum class DeviceRole : unsigned char { gpu, nic };

/// One device the VM gets.
struct Choice {
  DeviceRole role = DeviceRole::gpu;
  std::optional<std::size_t> host_index;  ///< on the host capture
  const pci::CatalogEntry* model = nullptr;
  std::optional<Bdf> address;  ///< host address; for an SR-IOV VF entry the PF's
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  bool sriov_vf = false;  ///< an SR-IOV VF entry: ESXi picks a VF of `address` at power-on
  std::string label;      ///< "0000:18:00.0 H100 PCIe"
};

/// A GPU and the peer it was paired with, and how they reach each other.
struct Pairing {
  std::size_t gpu = 0;   ///< index into Plan::gpus
  std::size_t peer = 0;  ///< index into Plan::nics, or Plan::gpus for GPU pairs
  bool peer_is_gpu = false;
  std::optional<pci::PairVerdict> verdict;  ///< with a host
};

/// A pair that keeps the plan from peer-to-peer DMA (Plan::refusals), and why.
struct Refusal {
  std::size_t pair = 0;  ///< index into Plan::pairs
  /// The reason of the pair's verdict that refuses it (index into its reasons); nullopt for a
  /// pair not judged on a host whose GPU model has no GPUDirect RDMA/P2P support.
  std::optional<std::size_t> reason;
  bool degraded = false;  ///< a path through the CPU, which Request::allow_degraded accepts
};

/// What an ESXi capture says of a device's owner for the use asked (Plan::not_ready,
/// Plan::esxi_owners): the device and the finding (what the capture says, the command that
/// readies it), which report/ words.
struct DeviceFinding {
  std::size_t device = 0;  ///< on the host capture
  pci::OwnerFinding finding;
};

/// Thrown by make_plan() when `auto` finds no device, or too few GPUs, the host is ready to give
/// (an ESXi capture says why of each). what() is the error's first line ("--gpu auto: no GPU of
/// the host is ready for this VM"); the devices left out are facts, which the facade words after
/// it (report::not_ready_error_text).
class NotReadyError : public Error {
 public:
  NotReadyError(const std::string& head, std::vector<DeviceFinding> devices)
      : Error(head), devices_(std::move(devices)) {}
  const std::vector<DeviceFinding>& devices() const { return devices_; }

 private:
  std::vector<DeviceFinding> devices_;
};

/// A device's place in an instance of a vendor device group.
struct GroupMember {
  std::size_t device = 0;        ///< among the plan's devices: GPUs, then NICs (GPU0 is 0)
  std::int32_t sequence_id = 0;  ///< its component's, from the host's template device
  /// Written in place of the plan's device by the ConfigSpec outputs: the host's template
  /// (a NIC the vendor's group fixes, such as a DVX-backed SR-IOV adapter).
  std::optional<vsphere::DeviceChange> template_device;
  /// A GPU member whose vGPU component names a GPU (deviceName) that is not the member's model:
  /// that name. vCenter places the group's vGPU on the group's GPU, which the profile must run
  /// on. Empty otherwise.
  std::string other_gpu;
};

/// The plan's devices as instances of one vendor device group, which vCenter places as a unit.
struct PlannedGroup {
  std::string name;                                 ///< `deviceGroupName`
  std::vector<std::vector<GroupMember>> instances;  ///< each instance's members, in device order
  /// The vGPU profiles of the group's (configurable) vGPU components that the plan's `--vgpu`
  /// replaces, in component order.
  std::vector<std::string> replaced_vgpus;
};

/// Everything the templates need, and why it was chosen.
struct Plan {
  std::vector<Choice> gpus;
  std::vector<Choice> nics;
  std::vector<Pairing> pairs;
  std::optional<std::string> vgpu;
  std::string network;
  std::string system_id;  ///< empty: a placeholder is written
  std::uint64_t memory_mb = 0;
  bool memory_default = false;
  pci::MmioResult mmio;
  bool needs_64bit_mmio = false;  ///< BARs beyond 16 GiB
  bool p2p = false;               ///< a GPU with a NIC or another GPU
  /// The comment block, in the report layer's words: make_plan() leaves it empty and the facade
  /// fills it from the facts below (report::plan_explanation).
  std::vector<std::string> explanation;
  std::string host_label;  ///< Request::host_label: how the explanation names the host capture
  /// Devices `auto` left out because an ESXi capture says they are not ready for the use asked,
  /// in the order it judged them (GPUs, then NICs).
  std::vector<DeviceFinding> not_ready;
  /// The chosen devices an ESXi capture says the host must ready first (GPUs, then NICs; an
  /// SR-IOV entry's PF): the plan stands, with the command that readies each.
  std::vector<DeviceFinding> esxi_owners;
  /// The GPU pairs are each GPU's nearest ones only: the GPUs and NICs are more than
  /// pci::kFullMatrixLimit.
  bool nearest_pairs = false;
  /// A device passed with DirectPath I/O (a NIC that is not an SR-IOV VF entry, a GPU passed
  /// whole): the VM cannot be suspended, migrated with vMotion or snapshotted while it holds it.
  bool directpath = false;
  std::optional<PlannedGroup> device_group;  ///< Request::device_group applied
  /// The VM's GPUs (passed whole, at least two) whose NVLink the host's PCI inputs cannot show,
  /// per model (pci::nvlink_notes): their GPU pairs above are judged on PCIe only.
  std::vector<pci::NvlinkNote> nvlink_notes;
  /// What keeps the plan from peer-to-peer DMA, in pair order. When there is any, make_plan()
  /// stopped after the pairs and the ESXi findings (no MMIO window) and the facade refuses
  /// the plan (report::plan_refusal_text).
  std::vector<Refusal> refusals;
  /// With refusals: `--gpu auto` took all the GPUs and this many of them, not all, have a NIC
  /// on a supported path, so `--gpus N` is a way out; 0 when it is not.
  std::size_t well_connected_gpus = 0;
};

/// Builds the plan. Throws vmxkit::Error for a request that cannot work: a device not on the
/// host, or of the wrong kind. A plan that cannot do peer-to-peer DMA (a GPU or NIC without
/// GPUDirect support paired for P2P, a GPU<->NIC pair across sockets (SYS), or through the CPU
/// (PHB/NODE) without `allow_degraded`) comes back unfinished with its `refusals`.
Plan make_plan(const Request& request, const pci::Host* host, const pci::Catalog& catalog);

/// The plan's vGPUs and NICs as instances of `group`: each instance takes as many vGPUs as the
/// group has vGPU components and, for their NICs, the NICs paired with those GPUs (in plan
/// order without a host). Each member's sequenceId comes from its component's template device
/// (vSphere API: "obtained from" the ComponentDeviceInfo's device template). A NIC component
/// whose template says its backing (a DVX class, a PF, a host device) is written as the
/// template; one whose template does not keeps the plan's device, which must be of its kind.
/// Keeps what the explanation says of it (PlannedGroup::replaced_vgpus, GroupMember::other_gpu).
/// Throws vmxkit::Error, naming the group, for a group
/// vmxkit cannot write (a component other than a vGPU or a NIC, one without a sequenceId, a DVX
/// NIC whose template names no class) and for a plan that does not fit it: no vGPU, a count of
/// vGPUs or NICs that makes no whole instances, a GPU without a NIC of its own, an SR-IOV NIC
/// where the group has a passthrough one (or the reverse), a vGPU profile other than the one a
/// group that is not configurable fixes.
PlannedGroup plan_device_group(const Plan& plan, const vsphere::VendorDeviceGroup& group);

/// The placeholder written where a host-specific value is not known.
std::string placeholder(std::string_view what);

}  // namespace vmxkit::generate
