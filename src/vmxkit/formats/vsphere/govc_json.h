// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/json.h"

/// govc's JSON: what `govc vm.info -json` and `govc object.collect -json` print. govc encodes
/// govmomi's Go types with Go's encoding/json (govc/flags/output.go, `json.NewEncoder` with a
/// two-space indent): govc 0.24 (Debian 12's govmomi) names members by their Go fields
/// (`Config`, `Hardware`, `Device`, `VendorId`), govc 0.32 and later by camelCase json tags
/// (`config`, `hardware`, `device`, `vendorId`); neither writes a type for an interface value,
/// so a device is told by its members (see read_govc_json()).
namespace vmxkit::vsphere {

/// What govc printed.
enum class GovcKind {
  vm_info,         ///< `vm.info -json`: `{"VirtualMachines": [mo.VirtualMachine...]}`
  object_collect,  ///< `object.collect -json`: `[PropertyChange...]`, or ObjectUpdates
};

/// One VM of govc's output, its ConfigInfo read as vi_json.h and configspec_xml.h read one: the
/// ConfigSpec that gives the VM this configuration.
struct GovcVm {
  ConfigSpec spec;
  std::string name;   ///< the VM's Name, else its config's name, else its moref
  std::string moref;  ///< `vm-42`, where the output names it (vm.info's Self, an update's Obj)
};

struct GovcDocument {
  GovcKind kind = GovcKind::vm_info;
  std::vector<GovcVm> vms;
};

/// Reads govc's output for VMs:
/// - `vm.info -json`: an object whose `VirtualMachines` holds each VM with its `Self` moref,
///   `Name` and `Config` (VirtualMachineConfigInfo);
/// - `object.collect -json VM config [name]`: the array of one object's PropertyChanges
///   (`Name`, `Op`, `Val`), the `config` one holding the ConfigInfo;
/// - `object.collect -json -type m ... config`: one ObjectUpdate (`Obj`, `ChangeSet`) per VM,
///   one JSON value after the other.
/// In a ConfigInfo, a device with a `SriovBacking` member is a VirtualSriovEthernetCard; one
/// whose `Backing` has `Vgpu` is a vGPU, `AllowedDevice` a Dynamic DirectPath device, and
/// `Id`, `DeviceId`, `SystemId` and `VendorId` a DirectPath device (the members of those backing
/// types alone); other devices are not passthrough. Zero values that govc 0.24 writes for unset
/// fields (`"Firmware": ""`, `"NumCoresPerSocket": 0`) are unset. Throws vmxkit::Error with
/// file:line:col for malformed JSON, values of the wrong type, and output that holds no VM
/// configuration: no VirtualMachines, a VM without Config, no `config` property, an update of
/// another type of object.
GovcDocument read_govc_json(const SourceFile& source);

/// One VirtualDevice of govc's JSON (from `source`), as read_govc_json() reads each device of a
/// VM; nullopt for a device that is not passthrough or whose members do not tell its kind.
std::optional<DeviceChange> read_govc_device(const SourceFile& source, const json::Value& device);

}  // namespace vmxkit::vsphere
