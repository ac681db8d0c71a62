// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/model/vm_config.h"

/// The vSphere output formats rendered from one VM configuration (a plan's, or one read): the
/// `.vmx` fragment, the ConfigSpec as XML, SOAP or VI/JSON, and scripts for govc and PowerCLI.
namespace vmxkit::vsphere {

/// What the `.vmx` form of an SR-IOV VF entry does not hold but the API's physical function
/// backing carries. ESXi writes a VF entry into the `.vmx` with `deviceId = "0"`, `vendorId =
/// "0"` and `systemId = "BYPASS"` (docs/vsphere-outputs.md); VMware's vhpc-toolkit
/// (`vhpc_toolkit/config_objs.py`, `add_sriov_adapter`) sends the PF's own `deviceId` (hex)
/// and `vendorId` (xsd:short) from `HostPciDevice`, and the `systemId` that
/// `QueryConfigTarget().sriov` gives for the PF (`get_objs.py`, `pci_id_sys_id_sriov`).
struct PhysicalFunction {
  Bdf address;  ///< the PF's host address
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::string system_id;  ///< the host's system UUID (or a placeholder); empty: BYPASS
};

/// A member of a vendor device group that the outputs write as the host's template gives it
/// (VirtualMachineVendorDeviceGroupInfoComponentDeviceInfo.device): the device of the
/// ConfigSpec whose `deviceGroupInfo` has this key and sequenceId. It keeps that device's key
/// and `deviceGroupInfo`; an SR-IOV adapter whose template has no network backing keeps the
/// device's port group.
struct GroupTemplate {
  std::int32_t group_instance_key = 0;  ///< as from_vm_config() numbers groups: -1, -2, ...
  std::int32_t sequence_id = 0;
  DeviceChange device;
};

struct RenderOptions {
  std::string vm;  ///< SOAP: the VirtualMachine moref the request targets (`vm-123`)
  std::vector<GroupTemplate> group_templates;
  /// The PFs of the SR-IOV VF entries, from the host capture: their backings then carry the
  /// PF's ids and the host's systemId. A PF not listed keeps the `.vmx` values (0, 0, BYPASS).
  std::vector<PhysicalFunction> physical_functions;
};

/// The writers of the format table (formats/formats.h): the `.vmx`, the ConfigSpec as XML, SOAP
/// (needs RenderOptions::vm) and VI/JSON, and the govc and PowerCLI scripts. Each throws
/// vmxkit::Error when it cannot: SOAP without a VM moref, a device whose id cannot be converted,
/// a value the format cannot carry. The ConfigSpec XML and SOAP outputs carry an XML comment
/// before `firmware`: switching an installed guest from BIOS to EFI makes it unbootable (rule
/// MMIO005).
std::string output_vmx(const formats::WriteRequest& request);
std::string output_configspec_xml(const formats::WriteRequest& request);
std::string output_soap(const formats::WriteRequest& request);
std::string output_vi_json(const formats::WriteRequest& request);
std::string output_govc(const formats::WriteRequest& request);
std::string output_powercli(const formats::WriteRequest& request);

/// The `.vmx` name of a device change in the scripts' messages: pciPassthruN from a new
/// device's key (-100 is pciPassthru0, -101 pciPassthru1), else from its position `i`.
std::string device_label(const DeviceChange& dc, std::size_t i);

/// `config` in the output format of the format table with that name, without comments (as
/// convert writes it). Throws vmxkit::Error as the format's writer, or for a name that is no
/// output.
std::string render(const VmConfig& config, std::string_view format,
                   const RenderOptions& options = {});

/// The ConfigSpec the outputs send: from_vm_config(), with the SR-IOV physical function backings
/// filled from `options.physical_functions` and the group members of `options.group_templates`
/// written as their templates.
ConfigSpec output_spec(const VmConfig& config, const RenderOptions& options = {});

/// A POSIX shell script of govc commands for the VM named by `$VM`. It checks first, before it
/// changes anything, and exits 1 with what to do instead when it cannot apply the whole plan:
/// SR-IOV network adapters, Dynamic DirectPath devices and cores per socket (no govc command
/// sets them), vGPUs on a govc older than 0.49.0 (`gpu.vm.add`), DirectPath devices on a govc
/// older than 0.24.1 (0.24.0's `device.pci.add` sends the deviceId in decimal, govmomi #2248),
/// and a firmware change on a VM whose firmware differs unless `FIRMWARE_CHANGE=yes`. Then
/// `vm.change -e key=value` for the settings, `-name`, `-g`, `-c`, `-m`, `-mem.reservation` and
/// `-memory-pin=true`, `device.boot -firmware` (govc 0.24.0 and later), `device.pci.add` for
/// each DirectPath device (by its hex host address) and `gpu.vm.add -profile` for each vGPU.
std::string render_govc(const VmConfig& config, const RenderOptions& options = {});

/// A PowerShell script for VMware PowerCLI taking `-VMName` (and `-Force`): it stops before any
/// change, with a warning, when the plan would switch the VM's firmware (confirmation asked,
/// `-Force` skips it); then `New-AdvancedSetting` for the settings, and a
/// VirtualMachineConfigSpec with name, guest OS, CPUs, cores per socket, memory and its
/// reservation, firmware, the reservation lock and the passthrough devices applied through
/// `Get-View` and `ReconfigVM`.
std::string render_powercli(const VmConfig& config, const RenderOptions& options = {});

}  // namespace vmxkit::vsphere
