// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/model/vm_config.h"

/// OVF descriptors (DMTF DSP0243 with VMware's `vmw:` extensions), read for linting: each
/// VirtualSystem's `vmw:ExtraConfig` entries, its PCI passthrough and vGPU items, firmware and
/// memory, as the settings the VM's `.vmx` would hold.
namespace vmxkit::vsphere {

/// A vSphere 8 device group declared in `vmw:VirtualDeviceGroupSection` (`DeviceGroup` with
/// `ovf:deviceGroupName`, `ovf:groupInstanceKey`, `ovf:label`, `ovf:summary`), as govmomi's
/// fixture `ovf/fixtures/external/vdg-vm.ovf` writes it: the OVF form of the ConfigSpec's
/// `deviceGroups` (VirtualMachineVirtualDeviceGroups).
struct OvfDeviceGroup {
  std::string name;  ///< `ovf:deviceGroupName`
  std::int32_t group_instance_key = 0;
  std::string label;
  std::string summary;
  SourceSpan whole;
};

/// A device's membership of a device group: an Item's `vmw:Config` `deviceGroupInfo.*`.
struct OvfDeviceGroupMember {
  unsigned device = 0;  ///< N of the `pciPassthruN` entry the Item became
  std::string field;    ///< `groupInstanceKey` or `sequenceId`
  std::string value;
  SourceSpan value_span;
};

/// Something in the descriptor that vmxkit saw and did not read (a `vmw:Config` key of a
/// passthrough or SR-IOV Item it does not map), so that it is reported, not dropped silently.
struct OvfUnread {
  SourceSpan span;
  std::string message;
};

struct OvfVirtualSystem {
  std::string id;  ///< `ovf:id`
  VmConfig config;
  /// Device groups: those of the Envelope's section, then the VirtualSystem's own.
  std::vector<OvfDeviceGroup> groups;
  std::vector<OvfDeviceGroupMember> device_groups;  ///< in document order
  std::vector<OvfUnread> unread;
};

/// Reads every VirtualSystem of the descriptor (also inside a VirtualSystemCollection), in
/// document order. The mapping:
///   - `vmw:ExtraConfig vmw:key vmw:value` -> the key and value as they are;
///   - an Item with ResourceSubType `vmware.pci.passthrough` -> `pciPassthruN.present/id/
///     deviceId/vendorId/systemId` from its `backing.*` `vmw:Config` (hex API forms converted),
///     `...-vmiop` -> `pciPassthruN.vgpu`, `...-ah` -> `pciPassthruN.allowedDevices`,
///     `...-dvx` -> `pciPassthruN.virtualDev = "dvx"`;
///   - an SR-IOV network adapter, ResourceType 10 with ResourceSubType `SriovEthernetCard`
///     (govmomi maps it to VirtualSriovEthernetCard) -> `pciPassthruN.present`, `networkName`
///     (`rasd:Connection`), `virtualDev` (`dvx` for a DVX-backed card), and with a
///     `sriovBacking.physicalFunctionBacking.id` the VF form ESXi writes: `pfId`, `id`,
///     `systemId = "BYPASS"`; N counts these items from 0;
///   - `deviceGroupInfo.groupInstanceKey` / `.sequenceId` of an item and the
///     `vmw:VirtualDeviceGroupSection` -> `device_groups` and `groups`;
///   - other `vmw:Config` keys of those items -> `unread` (DVX vendor keys `dvx.*` and the
///     card's `wakeOnLanEnabled`, `connectable.*`, `slotInfo.*` are skipped as nothing to judge);
///   - the memory Item (ResourceType 4) -> `memsize`, and `sched.mem.min` when it reserves;
///   - section-level `vmw:Config` `firmware` and `memoryReservationLockedToMax` -> `firmware`
///     and `sched.mem.pin`.
/// Spans point at the elements and attribute values. Throws vmxkit::Error with file:line:col
/// for unsafe or malformed XML, a descriptor without VirtualSystem, and an `ovf:/file/ID`
/// value whose ID the References section does not declare.
std::vector<OvfVirtualSystem> read_ovf(const SourceFile& source);

}  // namespace vmxkit::vsphere
