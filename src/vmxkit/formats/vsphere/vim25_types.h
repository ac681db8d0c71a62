// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>
#include <vector>

/// What vim25 (the vSphere Web Services API, through vSphere 8.0 U3) says about the data object
/// types the VI/JSON reader maps: their member names, taken from the WSDL as govmomi's
/// vim25/types/types.go lists them, and the names of the VirtualDevice types. A member that is
/// not in the list is not a vSphere member at all (a typo such as `memoryMb`), where a member
/// in the list that vmxkit does not model is a real setting it has no use for.
namespace vmxkit::vsphere {

/// The members of `type` in WSDL order, DynamicData's `dynamicType` and `dynamicProperty`
/// first; nullptr for a type with no list here.
const std::vector<std::string_view>* vim25_members(std::string_view type);

/// `VirtualDisk`, `VirtualPCIPassthrough`, `VirtualVmxnet3`, ...: VirtualDevice and every
/// type derived from it.
bool is_virtual_device_type(std::string_view type);

}  // namespace vmxkit::vsphere
