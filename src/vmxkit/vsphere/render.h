// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vmxkit/model/vm_config.h"

/// Every output format rendered from one plan (a VmConfig): the `.vmx` fragment, the ConfigSpec
/// as XML, SOAP or VI/JSON, and scripts for govc and PowerCLI.
namespace vmxkit::vsphere {

enum class OutputFormat { vmx, configspec_xml, soap, vi_json, govc, powercli };

/// "vmx", "configspec-xml", "soap", "vi-json", "govc", "powercli".
std::string_view to_string(OutputFormat format);
std::optional<OutputFormat> parse_output_format(std::string_view name);

struct RenderOptions {
  std::string vm;  ///< SOAP: the VirtualMachine moref the request targets (`vm-123`)
};

/// Renders `config`. Throws vmxkit::Error when it cannot: SOAP without a VM moref, a device
/// whose id cannot be converted, a value the format cannot carry.
std::string render(const VmConfig& config, OutputFormat format, const RenderOptions& options = {});

/// A POSIX shell script of govc commands for the VM named by `$VM`: `vm.change -e key=value`
/// for the settings, `-name`, `-g`, `-c`, `-m` and `-mem.reservation` for the display name,
/// guest OS, CPUs, memory and its reservation, `-memory-pin=true` for the full reservation and
/// `device.pci.add` for each DirectPath device (by its hex host address). What govc cannot
/// express (cores per socket, firmware, vGPU, Dynamic DirectPath, SR-IOV) is a comment pointing
/// at the ConfigSpec outputs.
std::string render_govc(const VmConfig& config);

/// A PowerShell script for VMware PowerCLI taking `-VMName`: `New-AdvancedSetting` for the
/// settings, then a VirtualMachineConfigSpec with name, guest OS, CPUs, cores per socket, memory
/// and its reservation, firmware, the reservation lock and the passthrough devices applied
/// through `Get-View` and `ReconfigVM`.
std::string render_powercli(const VmConfig& config);

}  // namespace vmxkit::vsphere
