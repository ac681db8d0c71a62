// SPDX-License-Identifier: Apache-2.0
// The PowerCLI output: a PowerShell script that checks before it changes anything.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/render.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::vsphere {
namespace {

// PowerShell single quotes: ' becomes ''.
std::string ps_quote(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
  return out;
}

void ps_device_backing(const DeviceBacking& b, const std::string& var, std::string& out) {
  out += var + " = New-Object VMware.Vim.VirtualPCIPassthroughDeviceBackingInfo\n";
  out += var + ".DeviceName = " + ps_quote(b.device_name) + "\n";
  out += var + ".Id = " + ps_quote(b.id) + "\n";
  out += var + ".DeviceId = " + ps_quote(b.device_id) + "\n";
  out += var + ".SystemId = " + ps_quote(b.system_id) + "\n";
  out += var + ".VendorId = " + std::to_string(b.vendor_id) + "\n";
}

// An XML comment before the `<firmware>` element: a ConfigSpec is sent to an existing VM.
void ps_dvx_backing(const DvxBacking& dvx, const std::string& target, std::string& out) {
  out += target + " = New-Object VMware.Vim.VirtualPCIPassthroughDvxBackingInfo\n";
  out += target + ".DeviceClass = " + ps_quote(dvx.device_class) + "\n";
  if (dvx.config_params.empty()) return;
  out += target + ".ConfigParams = @(\n";
  for (std::size_t i = 0; i < dvx.config_params.size(); ++i) {
    out += "  (New-Object VMware.Vim.OptionValue -Property @{Key = " +
           ps_quote(dvx.config_params[i].first) +
           "; Value = " + ps_quote(dvx.config_params[i].second) + "})";
    out += i + 1 < dvx.config_params.size() ? ",\n" : "\n";
  }
  out += ")\n";
}

// The checks before any change: the VM is powered off, and each DirectPath device is one the
// VM's host may pass through (EnvironmentBrowser.QueryConfigTarget's pciPassthrough for the
// host the VM is on). Not checked here: a device held by another VM, SR-IOV state, memory.
std::string powercli_checks(const ConfigSpec& spec) {
  std::string out =
      "# Checks, all before the first change. Not checked: whether a device is held by another\n"
      "# VM, a device's SR-IOV state, the host's memory for the reservation (vSphere refuses\n"
      "# those at power-on; vmxkit apply checks them first).\n"
      "if ($vm.PowerState -ne 'PoweredOff') {\n"
      "  throw \"Stopped before any change: $VMName is $($vm.PowerState); passthrough devices "
      "and these settings need it powered off\"\n"
      "}\n";
  bool listed = false;
  for (const DeviceChange& dc : spec.device_change) {
    if (dc.backing_type != BackingType::device) continue;
    if (!listed) {
      out +=
          "$browser = Get-View -Id $vm.ExtensionData.EnvironmentBrowser\n"
          "$target = $browser.QueryConfigTarget($vm.ExtensionData.Runtime.Host)\n"
          "$allowed = @($target.PciPassthrough | ForEach-Object { $_.PciDevice.Id })\n";
      listed = true;
    }
    out += "if ($allowed -notcontains " + ps_quote(dc.device.id) + ") {\n";
    out += "  throw " +
           ps_quote("Stopped before any change: " + dc.device.id +
                    " is not in the host's allowed passthrough device list (enable passthrough "
                    "for it on the host and reboot it, or pick another device)") +
           "\n}\n";
  }
  return out + "\n";
}
// Asks before switching the firmware: an installed guest does not boot after it. -Force skips
// the question.
void ps_firmware_check(const std::string& firmware, std::string& out) {
  const std::string fw = ps_quote(firmware);
  out += "# firmware = " + firmware +
         ". Switching an installed guest's firmware (BIOS to EFI) makes it unbootable: its\n"
         "# disk has no EFI system partition (vmxkit rule MMIO005). Asked before any change; "
         "-Force\n"
         "# skips the question (a VM with no guest installed yet, or a disk converted to "
         "GPT/EFI).\n";
  out += "$firmware = $vm.ExtensionData.Config.Firmware\n";
  out += "if ($firmware -ne " + fw + ") {\n";
  out += "  Write-Warning (\"$VMName has firmware $firmware; this script switches it to \" + " +
         fw +
         " + \". An installed guest then no longer boots: convert its disk to GPT with an EFI "
         "system partition first.\")\n";
  out +=
      "  if (-not $Force -and -not $PSCmdlet.ShouldContinue(\"Switch the firmware of "
      "$VMName from $firmware to \" + " +
      fw + " + \"?\", 'vmxkit: firmware change')) {\n";
  out += "    throw \"Stopped before any change: the firmware of $VMName stays $firmware\"\n";
  out += "  }\n";
  out += "}\n\n";
}

void ps_extra_config(const std::vector<OptionValue>& extra_config, std::string& out) {
  if (extra_config.empty()) return;
  out += "$spec.ExtraConfig = @(\n";
  for (std::size_t i = 0; i < extra_config.size(); ++i) {
    const OptionValue& o = extra_config[i];
    out += "  (New-Object VMware.Vim.OptionValue -Property @{Key = " + ps_quote(o.key) +
           "; Value = " + ps_quote(o.value) + "})";
    out += i + 1 < extra_config.size() ? ",\n" : "\n";
  }
  out += ")\n";
}

// The VM's own settings: name, guest, CPUs, memory and its allocation, firmware, flags.
void ps_vm_settings(const ConfigSpec& spec, std::string& out) {
  if (spec.name) out += "$spec.Name = " + ps_quote(*spec.name) + "\n";
  if (spec.guest_id) out += "$spec.GuestId = " + ps_quote(*spec.guest_id) + "\n";
  if (spec.num_cpus) out += "$spec.NumCPUs = " + std::to_string(*spec.num_cpus) + "\n";
  if (spec.num_cores_per_socket) {
    out += "$spec.NumCoresPerSocket = " + std::to_string(*spec.num_cores_per_socket) + "\n";
  }
  if (spec.memory_mb) out += "$spec.MemoryMB = " + std::to_string(*spec.memory_mb) + "\n";
  if (spec.memory_reservation_mb || spec.memory_limit_mb) {
    out += "$spec.MemoryAllocation = New-Object VMware.Vim.ResourceAllocationInfo\n";
  }
  if (spec.memory_reservation_mb) {
    out += "$spec.MemoryAllocation.Reservation = " + std::to_string(*spec.memory_reservation_mb) +
           "\n";
  }
  if (spec.memory_limit_mb) {
    out += "$spec.MemoryAllocation.Limit = " + std::to_string(*spec.memory_limit_mb) + "\n";
  }
  if (spec.firmware) out += "$spec.Firmware = " + ps_quote(*spec.firmware) + "\n";
  if (spec.memory_reservation_locked_to_max) {
    out += std::string("$spec.MemoryReservationLockedToMax = ") +
           (*spec.memory_reservation_locked_to_max ? "$true" : "$false") + "\n";
  }
  if (spec.nested_hv_enabled) {
    out += std::string("$spec.NestedHVEnabled = ") +
           (*spec.nested_hv_enabled ? "$true" : "$false") + "\n";
  }
}

void ps_dynamic_backing(const DeviceChange& dc, std::string& out) {
  out += "$device.Backing = New-Object VMware.Vim.VirtualPCIPassthroughDynamicBackingInfo\n";
  out += "$device.Backing.DeviceName = ''\n";
  out += "$device.Backing.AllowedDevice = @(\n";
  for (std::size_t k = 0; k < dc.allowed_devices.size(); ++k) {
    const AllowedDevice& a = dc.allowed_devices[k];
    out +=
        "  (New-Object VMware.Vim.VirtualPCIPassthroughAllowedDevice -Property @{VendorId "
        "= " +
        std::to_string(a.vendor_id) + "; DeviceId = " + std::to_string(a.device_id) + "})";
    out += k + 1 < dc.allowed_devices.size() ? ",\n" : "\n";
  }
  out += ")\n";
  if (!dc.custom_label.empty()) {
    out += "$device.Backing.CustomLabel = " + ps_quote(dc.custom_label) + "\n";
  }
}

// $device.Backing, by the kind of backing the device has.
void ps_backing(const DeviceChange& dc, std::string& out) {
  switch (dc.backing_type) {
    case BackingType::none:
      break;
    case BackingType::device:
      ps_device_backing(dc.device, "$backing", out);
      out += "$device.Backing = $backing\n";
      break;
    case BackingType::vmiop:
      out += "$device.Backing = New-Object VMware.Vim.VirtualPCIPassthroughVmiopBackingInfo\n";
      out += "$device.Backing.Vgpu = " + ps_quote(dc.vgpu) + "\n";
      break;
    case BackingType::dynamic:
      ps_dynamic_backing(dc, out);
      break;
    case BackingType::network:
      out += "$device.Backing = New-Object VMware.Vim.VirtualEthernetCardNetworkBackingInfo\n";
      out += "$device.Backing.DeviceName = " + ps_quote(dc.network_name) + "\n";
      break;
    case BackingType::dvx:
      if (dc.dvx) ps_dvx_backing(*dc.dvx, "$device.Backing", out);
      break;
    case BackingType::dvport:
      out +=
          "$device.Backing = New-Object "
          "VMware.Vim.VirtualEthernetCardDistributedVirtualPortBackingInfo\n";
      out +=
          "$device.Backing.Port = New-Object VMware.Vim.DistributedVirtualSwitchPortConnection\n";
      out += "$device.Backing.Port.SwitchUuid = " + ps_quote(dc.switch_uuid) + "\n";
      out += "$device.Backing.Port.PortgroupKey = " + ps_quote(dc.portgroup_key) + "\n";
      break;
  }
}

// One device added to $spec.DeviceChange: the device, its backing, an SR-IOV adapter's
// physical function and DVX backing, its device group.
void ps_device_change(const DeviceChange& dc, std::size_t i, std::string& out) {
  out += "\n# " + device_label(dc, i) + "\n";
  out += "$change = New-Object VMware.Vim.VirtualDeviceConfigSpec\n";
  out += "$change.Operation = " + ps_quote(dc.operation) + "\n";
  if (dc.type == DeviceType::sriov_ethernet) {
    out += "$device = New-Object VMware.Vim.VirtualSriovEthernetCard\n";
  } else {
    out += "$device = New-Object VMware.Vim.VirtualPCIPassthrough\n";
  }
  out += "$device.Key = " + std::to_string(dc.key) + "\n";
  ps_backing(dc, out);
  if (dc.type == DeviceType::sriov_ethernet && dc.physical_function) {
    out +=
        "$device.SriovBacking = New-Object VMware.Vim.VirtualSriovEthernetCardSriovBackingInfo\n";
    ps_device_backing(*dc.physical_function, "$pf", out);
    out += "$device.SriovBacking.PhysicalFunctionBacking = $pf\n";
  }
  if (dc.type == DeviceType::sriov_ethernet && dc.dvx) {
    ps_dvx_backing(*dc.dvx, "$device.DvxBackingInfo", out);
  }
  if (dc.group) {
    out +=
        "$device.DeviceGroupInfo = New-Object VMware.Vim.VirtualDeviceDeviceGroupInfo "
        "-Property @{GroupInstanceKey = " +
        std::to_string(dc.group->group_instance_key) +
        "; SequenceId = " + std::to_string(dc.group->sequence_id) + "}\n";
  }
  out += "$change.Device = $device\n";
  out += "$spec.DeviceChange += $change\n";
}

// vSphere API 8.0.0.1: the group is added with its devices, in the same request.
void ps_device_groups(const std::vector<DeviceGroupSpec>& groups, std::string& out) {
  if (groups.empty()) return;
  out += "\n# Device groups (vSphere 8.0 U1 and later)\n";
  out += "$spec.DeviceGroups = New-Object VMware.Vim.VirtualMachineVirtualDeviceGroups\n";
  out += "$spec.DeviceGroups.DeviceGroup = @(\n";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const DeviceGroupSpec& g = groups[i];
    std::string props = "GroupInstanceKey = " + std::to_string(g.group_instance_key);
    if (g.label || g.summary) {
      props += "; DeviceInfo = (New-Object VMware.Vim.Description -Property @{Label = " +
               ps_quote(g.label.value_or("")) + "; Summary = " + ps_quote(g.summary.value_or("")) +
               "})";
    }
    if (g.device_group_name) props += "; DeviceGroupName = " + ps_quote(*g.device_group_name);
    out += std::string("  (New-Object VMware.Vim.") +
           (g.device_group_name ? "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup"
                                : "VirtualMachineVirtualDeviceGroupsDeviceGroup") +
           " -Property @{" + props + "})";
    out += i + 1 < groups.size() ? ",\n" : "\n";
  }
  out += ")\n";
}
}  // namespace

std::string render_powercli(const VmConfig& config, const RenderOptions& options) {
  const ConfigSpec spec = output_spec(config, options);
  std::string out =
      "# Generated by vmxkit: applies these settings to a VM with VMware PowerCLI. It checks\n"
      "# first (power state, the host's passthrough list, firmware) and stops before any change\n"
      "# when a check fails.\n"
      "# Usage: Connect-VIServer first, then ./<this file>.ps1 -VMName <name>. Power the VM off\n"
      "# first: passthrough devices cannot be hot-added.\n"
      "[CmdletBinding()]\n"
      "param([Parameter(Mandatory = $true)][string]$VMName, [switch]$Force)\n"
      "$ErrorActionPreference = 'Stop'\n"
      "$vm = Get-VM -Name $VMName\n\n";
  out += powercli_checks(spec);
  if (spec.firmware) ps_firmware_check(*spec.firmware, out);
  // Everything in the one ReconfigVM call: it applies all of the spec or none of it.
  out += "# Every check passed: one ReconfigVM_Task makes all the changes, or none.\n";
  out += "$spec = New-Object VMware.Vim.VirtualMachineConfigSpec\n";
  ps_extra_config(spec.extra_config, out);
  ps_vm_settings(spec, out);
  out += "$spec.DeviceChange = @()\n";
  for (std::size_t i = 0; i < spec.device_change.size(); ++i) {
    ps_device_change(spec.device_change[i], i, out);
  }
  ps_device_groups(spec.device_groups, out);
  out += "\n(Get-View -Id $vm.Id).ReconfigVM($spec)\n";
  return out;
}

}  // namespace vmxkit::vsphere
