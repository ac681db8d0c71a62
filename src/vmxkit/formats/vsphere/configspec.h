// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vmxkit/model/vm_config.h"

/// The subset of vim25 `VirtualMachineConfigSpec` that vmxkit reads and writes, as typed data.
/// The XML, SOAP and VI/JSON readers fill it (with the source span of every field), the writers
/// print it in the schema's element order, and to_vm_config()/from_vm_config() map it to and
/// from the neutral VmConfig that the rules lint and the generator plans.
namespace vmxkit::vsphere {

/// `OptionValue` in `extraConfig`. An empty value asks vSphere to remove the key.
struct OptionValue {
  std::string key;
  std::string value;
  std::string value_type = "string";  ///< the boxed type: string, boolean, int, long, ...
  SourceSpan whole;
  SourceSpan key_span;
  SourceSpan value_span;
};

/// `VirtualPCIPassthroughDeviceBackingInfo` (also an SR-IOV card's physical function backing).
struct DeviceBacking {
  std::string device_name;     ///< required by the schema; usually empty
  std::string id;              ///< hex BDF `0000:3b:00.0`
  std::string device_id;       ///< hex without `0x`: `20b5`
  std::string system_id;       ///< host UUID, or `BYPASS`
  std::int32_t vendor_id = 0;  ///< `xsd:short`: 0x8086 is -32634 (readers keep what they find)
  SourceSpan whole, id_span, device_id_span, system_id_span, vendor_id_span;
};

/// `VirtualPCIPassthroughAllowedDevice` (Dynamic DirectPath).
struct AllowedDevice {
  std::int32_t vendor_id = 0;
  std::int32_t device_id = 0;
  std::optional<std::int32_t> sub_vendor_id;
  std::optional<std::int32_t> sub_device_id;
  std::optional<std::int16_t> revision_id;
  SourceSpan whole;
};

/// `VirtualPCIPassthroughDvxBackingInfo`: a Device Virtualization Extensions device, a DVX
/// passthrough device's backing or an SR-IOV card's `dvxBackingInfo`.
struct DvxBacking {
  std::string device_class;  ///< `deviceClass`: `com.vmware.dvxpassthru`, ...
  /// `configParams` (OptionValue key and value), in order.
  std::vector<std::pair<std::string, std::string>> config_params;
  SourceSpan whole;
};

enum class DeviceType {
  pci_passthrough,  ///< `VirtualPCIPassthrough`
  sriov_ethernet,   ///< `VirtualSriovEthernetCard`
};

enum class BackingType {
  none,
  device,   ///< `VirtualPCIPassthroughDeviceBackingInfo` (DirectPath I/O)
  vmiop,    ///< `VirtualPCIPassthroughVmiopBackingInfo` (NVIDIA vGPU)
  dynamic,  ///< `VirtualPCIPassthroughDynamicBackingInfo` (Dynamic DirectPath)
  network,  ///< `VirtualEthernetCardNetworkBackingInfo` (SR-IOV card's port group)
  dvport,   ///< `VirtualEthernetCardDistributedVirtualPortBackingInfo`
  dvx,      ///< `VirtualPCIPassthroughDvxBackingInfo` (in `dvx`)
};

/// `VirtualDeviceDeviceGroupInfo`: the device's membership of a device group.
struct DeviceGroupInfo {
  std::int32_t group_instance_key = 0;
  std::int32_t sequence_id = 0;
  SourceSpan whole;
};

/// `VirtualMachineVirtualDeviceGroupsDeviceGroup`, or its subtype
/// `VirtualMachineVirtualDeviceGroupsVendorDeviceGroup` when it has a `deviceGroupName`.
struct DeviceGroupSpec {
  std::int32_t group_instance_key = 0;  ///< negative (temporary) in a spec that adds the group
  std::optional<std::string> device_group_name;
  std::optional<std::string> label;    ///< `deviceInfo.label`
  std::optional<std::string> summary;  ///< `deviceInfo.summary`
  SourceSpan whole;
};

/// `VirtualDeviceConfigSpec` with a passthrough device.
struct DeviceChange {
  std::string operation = "add";  ///< add | remove | edit
  DeviceType type = DeviceType::pci_passthrough;
  std::int32_t key = 0;  ///< negative for a device being added
  BackingType backing_type = BackingType::none;
  DeviceBacking device;                        ///< backing_type == device
  std::string vgpu;                            ///< backing_type == vmiop
  std::vector<AllowedDevice> allowed_devices;  ///< backing_type == dynamic
  std::string custom_label;                    ///< backing_type == dynamic
  std::string network_name;                    ///< backing_type == network: the port group's name
  std::string switch_uuid;                     ///< backing_type == dvport
  std::string portgroup_key;                   ///< backing_type == dvport
  std::optional<DeviceBacking> physical_function;  ///< sriov_ethernet: sriovBacking
  /// backing_type == dvx: the backing; sriov_ethernet: its `dvxBackingInfo`.
  std::optional<DvxBacking> dvx;
  std::optional<DeviceGroupInfo> group;  ///< `deviceGroupInfo`
  SourceSpan whole, operation_span, device_span, backing_span, vgpu_span, allowed_span;
};

struct ConfigSpec {
  std::optional<std::string> name;                   ///< `displayName`
  std::optional<std::string> guest_id;               ///< `guestOS`
  std::optional<std::int32_t> num_cpus;              ///< `numvcpus`
  std::optional<std::int32_t> num_cores_per_socket;  ///< `cpuid.coresPerSocket`
  std::optional<std::int64_t> memory_mb;             ///< `memsize`
  std::vector<DeviceChange> device_change;
  /// memoryAllocation.reservation, in MB: `sched.mem.min`.
  std::optional<std::int64_t> memory_reservation_mb;
  std::vector<OptionValue> extra_config;
  std::optional<std::string> firmware;
  std::optional<bool> memory_reservation_locked_to_max;  ///< `sched.mem.pin`
  /// memoryAllocation.limit, in MB (-1: no limit): `sched.mem.max`.
  std::optional<std::int64_t> memory_limit_mb;
  std::optional<bool> nested_hv_enabled;  ///< `vhv.enable`
  /// `deviceGroups.deviceGroup` (vSphere API 8.0.0.1).
  std::vector<DeviceGroupSpec> device_groups;
  SourceSpan whole, name_span, guest_id_span, cpus_span, cores_span, memory_span, reservation_span,
      firmware_span, locked_span, limit_span, nested_span;
  /// from_vm_config: keys left out because vSphere owns them (see owned_by_vsphere()).
  std::vector<std::string> not_sent;
};

/// Keys that vSphere sets through ConfigSpec fields or virtual devices and ignores (or
/// rejects) as extraConfig: identity and hardware (`displayName`, `guestOS`, `numvcpus`,
/// `virtualHW.version`, `uuid.*`...), the memory reservation (`sched.mem.min`), and device keys
/// (`scsi0:0.fileName`, `ethernet0.*`, `pciBridge4.*`, `sata0.*`, ...). from_vm_config() maps
/// those with a ConfigSpec field to it (see there); the others are not sent.
bool owned_by_vsphere(std::string_view key);

/// The settings the equivalent `.vmx` would hold, in the spec's element order: `displayName`
/// (name), `guestOS` (guestId), `numvcpus` (numCPUs), `cpuid.coresPerSocket`
/// (numCoresPerSocket), `memsize` (memoryMB), one `pciPassthruN.*` group per added or edited
/// passthrough device (N counts from 0 in document order), `sched.mem.min`
/// (memoryAllocation.reservation), the `extraConfig` keys as they are, `firmware`,
/// `sched.mem.pin` (memoryReservationLockedToMax). An extraConfig key with an empty value, which
/// asks vSphere to remove the key, is kept with its empty value so that no key goes missing.
/// Spans point at the elements the settings came from. Devices being removed are not settings
/// of the VM and are left out. `deviceGroups` become VmConfig::device_groups, with the devices
/// whose `deviceGroupInfo` names them as members. Throws vmxkit::Error (file:line:col when
/// `source` is given) for a device that names a group the spec does not declare, two groups
/// with one key, and a group declared twice.
VmConfig to_vm_config(const ConfigSpec& spec, const SourceFile* source = nullptr);

/// The reverse mapping, for the writers: `displayName` -> name, `guestOS` -> guestId,
/// `numvcpus` -> numCPUs, `cpuid.coresPerSocket` -> numCoresPerSocket, `memsize` -> memoryMB,
/// `sched.mem.min` (or `sched.mem.minSize`) -> memoryAllocation.reservation, `firmware`,
/// `sched.mem.pin` -> memoryReservationLockedToMax, each present `pciPassthruN` group -> a
/// device being added (key -(100 + N)) and every other key -> extraConfig, in the order of the
/// settings, except the other keys vSphere owns (owned_by_vsphere(), listed in `not_sent`).
/// VmConfig::device_groups -> `deviceGroups`, each with a temporary key -(1 + its index), and
/// each member device's `deviceGroupInfo` with that key and its sequenceId.
/// `.encoding` is a property of the file and is dropped. A `pciPassthruN` group that names no
/// device vmxkit can build (no id, vgpu, allowedDevices or pfId) goes to extraConfig as it is.
/// Throws vmxkit::Error naming the setting (its value quoted, control bytes escaped) when a
/// number, a boolean or a device's id, deviceId or vendorId cannot be converted.
ConfigSpec from_vm_config(const VmConfig& config, const std::string& path = {});

/// The same, for settings read from `source`: errors name `file:line:col` of the value.
ConfigSpec from_vm_config(const VmConfig& config, const SourceFile& source);

/// The `.vmx` text of a VmConfig, in VMware's writer form (`key = "value"`, `|XX` escapes).
std::string render_vmx(const VmConfig& config);

}  // namespace vmxkit::vsphere
