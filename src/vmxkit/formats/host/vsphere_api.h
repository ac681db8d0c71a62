// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/model/host.h"

/// A host as the vSphere API describes it (HostSystem properties), as plain values: the
/// vSphere client (vsphere/inventory.h) fills them from a RetrievePropertiesEx answer, tests
/// fill them by hand.
namespace vmxkit::pci {

/// One `HostPciDevice` of `hardware.pciDevice`. The API's ids are xsd:short, so signed:
/// 0x8086 arrives as -32634; they are kept here as the 16 bits they are.
struct ApiPciDevice {
  std::string id;  ///< "0000:3b:00.0"
  std::uint16_t class_id = 0;
  std::uint8_t bus = 0, slot = 0, function = 0;
  std::uint16_t vendor_id = 0, device_id = 0, sub_vendor_id = 0, sub_device_id = 0;
  std::string vendor_name, device_name;
  std::string parent_bridge;  ///< the id of the bridge above it; empty on a root bus
};

/// One `HostPciPassthruInfo` of `config.pciPassthruInfo` (a `HostSriovInfo` for SR-IOV
/// capable devices).
struct ApiPassthru {
  std::string id;
  std::optional<bool> enabled, capable, active;
  bool sriov = false;  ///< a HostSriovInfo: the fields below are given
  std::optional<bool> sriov_enabled, sriov_capable;
  std::optional<unsigned> num_vfs, num_vfs_requested, max_vfs;
};

/// One `HostNumaNode` of `hardware.numaInfo`.
struct ApiNumaNode {
  int type_id = 0;
  std::vector<int> cpus;
  std::vector<std::string> pci_ids;  ///< vSphere 6.7+: the devices on the node
};

/// One `HostSharedGpuCapabilities` of `config.sharedGpuCapabilities` (vSphere API 6.7): what a
/// VM holding the vGPU type may do.
struct ApiVgpuCapabilities {
  std::string vgpu;
  std::optional<bool> disk_snapshot, memory_snapshot, suspend, migrate;
};

struct ApiHost {
  std::string name;   ///< the HostSystem's name ("esx01.example.com")
  std::string moref;  ///< "host-42"
  std::vector<ApiPciDevice> devices;
  std::vector<ApiPassthru> passthru;
  std::optional<unsigned> numa_node_count;  ///< hardware.numaInfo.numNodes
  std::vector<ApiNumaNode> numa_nodes;
  std::string system_uuid;       ///< hardware.systemInfo.uuid: the systemId of passthrough entries
  bool has_pci_devices = false;  ///< hardware.pciDevice was in the answer (it may be empty)
  /// config.sharedPassthruGpuTypes (vSphere API 6.0): the vGPU types the host offers.
  std::vector<std::string> shared_gpu_types;
  std::vector<ApiVgpuCapabilities> shared_gpu_capabilities;  ///< config.sharedGpuCapabilities
  /// The two were asked for (the live client) or are in the document: empty lists then mean
  /// the host offers no vGPU type.
  bool vgpu_types_read = false;
};

/// Loads a host from the API's properties into `host` (not finalized): the devices with their
/// ids and names, the tree from `parentBridge` (each bridge's children; a device without one
/// sits on a root bus), passthrough and SR-IOV state, NUMA nodes, the system UUID and the vGPU
/// types offered (when `vgpu_types_read`). `origin` names the host in
/// messages ("vcenter.example.com: esx01"). Throws vmxkit::Error when a device id is not a PCI
/// address or hardware.pciDevice is missing.
void load_vsphere_api(Host& host, const ApiHost& api, const std::string& origin);

/// Loads a host (not finalized) from a saved document of one HostSystem's properties: a
/// RetrievePropertiesEx or RetrieveProperties answer (the SOAP envelope or its Body's element),
/// or pyVmomi's `SoapAdapter.Serialize` of an ObjectContent or a RetrieveResult; the properties
/// are those the vSphere client asks (name, hardware.pciDevice, config.pciPassthruInfo,
/// hardware.numaInfo, hardware.systemInfo.uuid, config.sharedPassthruGpuTypes,
/// config.sharedGpuCapabilities; the last two may be left out). Throws vmxkit::Error at
/// path:line:col for XML the safe loader refuses, a SOAP fault, a document without HostSystem
/// properties or with several hosts, and hardware.pciDevice missing or not read (a missingSet
/// fault).
void load_vsphere_properties(Host& host, std::string_view text, const std::string& path);

}  // namespace vmxkit::pci
