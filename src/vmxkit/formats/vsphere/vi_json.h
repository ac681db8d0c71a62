// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/json.h"

/// The vSphere 8 VI/JSON form of the same ConfigSpec: objects carry `_typeName`, primitive
/// values in `anyType` fields are boxed (`{"_typeName": "string", "_value": "TRUE"}`), vendorId
/// is a JSON number.
namespace vmxkit::vsphere {

struct JsonConfigSpec {
  ConfigSpec spec;
  std::string type_name;  ///< VirtualMachineConfigSpec, or VirtualMachineConfigInfo
};

/// Reads a `VirtualMachineConfigSpec` (with its `_typeName`, or as the `spec` of a
/// ReconfigVM_Task body `{"spec": ...}`), or a `VirtualMachineConfigInfo` (a VM's `config`
/// property, whose passthrough devices in `hardware.device` are read as devices being added).
/// Member order does not matter; a null member is an unset one. Throws vmxkit::Error with
/// file:line:col for malformed JSON (including invalid UTF-8 and a member given twice), a
/// document that is not an object or is an object without `_typeName` (not a vSphere document),
/// an unknown `_typeName` where vmxkit expects one (also a device type that is no VirtualDevice),
/// a member that the vSphere type of an object vmxkit maps does not have (a typo: members the
/// type has and vmxkit does not model are accepted, see vim25_types.h), a box whose `_value`
/// does not match its `_typeName`, and values of the wrong JSON type.
JsonConfigSpec read_vi_json(const SourceFile& source);

/// The same, for a document already parsed: `root`'s spans point into `source`, which names
/// the places in errors and in the spans of what is read. A document in another syntax that
/// carries the same data (a VM class's `configSpec` in YAML) is read this way, with its own
/// positions.
JsonConfigSpec read_vi_json(const json::Value& root, const SourceFile& source);

/// Writes the ConfigSpec as VI/JSON: `_typeName` first, then the fields in schema order.
std::string write_vi_json(const ConfigSpec& spec);

}  // namespace vmxkit::vsphere
