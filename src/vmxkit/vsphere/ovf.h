// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/model/vm_config.h"

/// OVF descriptors (DMTF DSP0243 with VMware's `vmw:` extensions), read for linting: each
/// VirtualSystem's `vmw:ExtraConfig` entries, its PCI passthrough and vGPU items, firmware and
/// memory, as the settings the VM's `.vmx` would hold.
namespace vmxkit::vsphere {

struct OvfVirtualSystem {
  std::string id;  ///< `ovf:id`
  VmConfig config;
};

/// Reads every VirtualSystem of the descriptor (also inside a VirtualSystemCollection), in
/// document order. The mapping:
///   - `vmw:ExtraConfig vmw:key vmw:value` -> the key and value as they are;
///   - an Item with ResourceSubType `vmware.pci.passthrough` -> `pciPassthruN.present/id/
///     deviceId/vendorId/systemId` from its `backing.*` `vmw:Config` (hex API forms converted),
///     `...-vmiop` -> `pciPassthruN.vgpu`, `...-ah` -> `pciPassthruN.allowedDevices`,
///     `...-dvx` -> `pciPassthruN.virtualDev = "dvx"`; N counts the items from 0;
///   - the memory Item (ResourceType 4) -> `memsize`, and `sched.mem.min` when it reserves;
///   - section-level `vmw:Config` `firmware` and `memoryReservationLockedToMax` -> `firmware`
///     and `sched.mem.pin`.
/// Spans point at the elements and attribute values. Throws vmxkit::Error with file:line:col
/// for unsafe or malformed XML, a descriptor without VirtualSystem, and an `ovf:/file/ID`
/// value whose ID the References section does not declare.
std::vector<OvfVirtualSystem> read_ovf(const SourceFile& source);

}  // namespace vmxkit::vsphere
