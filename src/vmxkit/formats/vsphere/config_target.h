// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/configspec.h"

/// The vendor device groups a host offers to its VMs (vSphere API 8.0.0.1:
/// `ConfigTarget.vendorDeviceGroupInfo`, VirtualMachineVendorDeviceGroupInfo), from the answer of
/// `EnvironmentBrowser.QueryConfigTarget`: what `govc vm.target.info -json` prints, a SOAP
/// QueryConfigTargetResponse, or a ConfigTarget pyVmomi serialized.
namespace vmxkit::vsphere {

/// `VirtualMachineVendorDeviceGroupInfoComponentDeviceInfo`.
struct DeviceGroupComponent {
  /// `pciPassthru`, `nvidiaVgpu`, `sriovNic` or `dvx`
  /// (VirtualMachineVendorDeviceGroupInfoComponentDeviceInfoComponentType).
  std::string type;
  std::string vendor_name;
  std::string device_name;
  bool configurable = false;                ///< `isConfigurable`
  std::optional<std::int32_t> sequence_id;  ///< the template device's `deviceGroupInfo.sequenceId`
  /// The template device (`device`) as vmxkit reads a ConfigSpec's devices: nullopt when there
  /// is none, or it is not passthrough, or its members do not tell its kind.
  std::optional<DeviceChange> device;
  /// The template's type as written (`VirtualSriovEthernetCard`), where the document says it
  /// (`_typeName`, `xsi:type`; govc's JSON does not).
  std::string device_type;

  bool is_vgpu() const { return type == "nvidiaVgpu"; }
  /// An SR-IOV NIC, a DVX device or a passthrough device of a NIC vendor (Mellanox, Broadcom).
  bool is_nic() const;
};

/// `VirtualMachineVendorDeviceGroupInfo`.
struct VendorDeviceGroup {
  std::string device_group_name;  ///< what a VM's VendorDeviceGroup names
  std::string description;        ///< `deviceGroupDescription`
  std::vector<DeviceGroupComponent> components;
  SourceSpan whole;

  /// It holds an NVIDIA vGPU and a network device (an SR-IOV NIC, a DVX device or a passthrough
  /// device of a NIC vendor): a group for GPUDirect RDMA from a vGPU.
  bool pairs_vgpu_with_nic() const;
};

/// Reads the groups. A ConfigTarget without `vendorDeviceGroupInfo` offers none (an empty
/// list). Throws vmxkit::Error with file:line:col for malformed JSON or XML, values of the wrong
/// type, and a document that is no ConfigTarget (naming what it found).
std::vector<VendorDeviceGroup> read_vendor_device_groups(const SourceFile& source);

}  // namespace vmxkit::vsphere
