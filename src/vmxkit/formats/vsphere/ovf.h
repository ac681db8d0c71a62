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

/// Something in the descriptor that vmxkit saw and did not read (a `vmw:Config` key of a
/// passthrough or SR-IOV Item it does not map), so that it is reported, not dropped silently.
struct OvfUnread {
  SourceSpan span;
  std::string message;
};

struct OvfVirtualSystem {
  std::string id;  ///< `ovf:id`
  /// Its device groups (config.device_groups): those of the Envelope's
  /// `vmw:VirtualDeviceGroupSection`, then the VirtualSystem's own.
  VmConfig config;
  std::vector<OvfUnread> unread;
};

/// Reads every VirtualSystem of the descriptor (also inside a VirtualSystemCollection), in
/// document order. The mapping:
///   - `vmw:ExtraConfig vmw:key vmw:value` -> the key and value as they are;
///   - an Item with ResourceSubType `vmware.pci.passthrough` -> `pciPassthruN.present/id/
///     deviceId/vendorId/systemId` from its `backing.*` `vmw:Config` (hex API forms converted),
///     `...-vmiop` -> `pciPassthruN.vgpu`, `...-ah` -> `pciPassthruN.allowedDevices`,
///     `...-dvx` -> `pciPassthruN.virtualDev = "dvx"`; on these and SR-IOV adapters, the DVX
///     keys `dvx.deviceClass` and `dvx.config.KEY` -> `pciPassthruN.dvx.deviceClass` and
///     `pciPassthruN.dvx.config.KEY` (the .vmx form of a DVX device);
///   - an SR-IOV network adapter, ResourceType 10 with ResourceSubType `SriovEthernetCard`
///     (govmomi maps it to VirtualSriovEthernetCard) -> `pciPassthruN.present`, `networkName`
///     (`rasd:Connection`), `virtualDev` (`dvx` for a DVX-backed card), and with a
///     `sriovBacking.physicalFunctionBacking.id` the VF form ESXi writes: `pfId`, `id`,
///     `systemId = "BYPASS"`; N counts these items from 0;
///   - `vmw:VirtualDeviceGroupSection` `DeviceGroup`s -> `config.device_groups`, with the
///     items whose `deviceGroupInfo.groupInstanceKey` names them as members (`.sequenceId`);
///   - other `vmw:Config` keys of those items -> `unread` (the card's `wakeOnLanEnabled`,
///     `connectable.*`, `slotInfo.*` are skipped as nothing to judge);
///   - the memory Item (ResourceType 4) -> `memsize`, and `sched.mem.min` when it reserves;
///   - section-level `vmw:Config` `firmware` and `memoryReservationLockedToMax` -> `firmware`
///     and `sched.mem.pin`.
/// Spans point at the elements and attribute values. Throws vmxkit::Error with file:line:col
/// for unsafe or malformed XML, a descriptor without VirtualSystem, an `ovf:/file/ID`
/// value whose ID the References section does not declare, and an item of a device group that
/// no section declares.
std::vector<OvfVirtualSystem> read_ovf(const SourceFile& source);

}  // namespace vmxkit::vsphere
