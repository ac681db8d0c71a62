// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/render.h"

#include <string>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/vi_json.h"

namespace vmxkit::vsphere {
namespace {

// POSIX shell single quotes: ' becomes '\''.
std::string sh_quote(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

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

std::string device_label(const DeviceChange& dc, std::size_t i) {
  return "pciPassthru" + std::to_string(-dc.key - 100 >= 0 ? -dc.key - 100 : static_cast<int>(i));
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

std::string with_firmware_comment(std::string xml) {
  const std::size_t at = xml.find("<firmware>");
  if (at == std::string::npos) return xml;
  const std::size_t line = xml.rfind('\n', at) + 1;
  const std::string indent = xml.substr(line, at - line);
  xml.insert(line, indent +
                       "<!-- vmxkit: on an existing VM, switching an installed guest from BIOS to "
                       "EFI makes it unbootable: its disk has no EFI system partition (rule "
                       "MMIO005). Send this to a VM with no guest installed yet, or convert the "
                       "guest's disk to GPT with an EFI system partition first. -->\n");
  return xml;
}

}  // namespace

std::string_view to_string(OutputFormat format) {
  switch (format) {
    case OutputFormat::vmx:
      return "vmx";
    case OutputFormat::configspec_xml:
      return "configspec-xml";
    case OutputFormat::soap:
      return "soap";
    case OutputFormat::vi_json:
      return "vi-json";
    case OutputFormat::govc:
      return "govc";
    case OutputFormat::powercli:
      return "powercli";
  }
  return "vmx";
}

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  for (const OutputFormat f : {OutputFormat::vmx, OutputFormat::configspec_xml, OutputFormat::soap,
                               OutputFormat::vi_json, OutputFormat::govc, OutputFormat::powercli}) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

ConfigSpec output_spec(const VmConfig& config, const RenderOptions& options) {
  ConfigSpec spec = from_vm_config(config);
  for (DeviceChange& dc : spec.device_change) {
    if (dc.type != DeviceType::sriov_ethernet || !dc.physical_function) continue;
    DeviceBacking& b = *dc.physical_function;
    const auto address = parse_bdf(b.id);
    if (!address) continue;
    for (const PhysicalFunction& pf : options.physical_functions) {
      if (pf.address != *address) continue;
      // As vhpc-toolkit's add_sriov_adapter: the PF's deviceId in hex, its vendorId as the
      // xsd:short HostPciDevice holds, and the systemId of QueryConfigTarget().sriov.
      b.device_id = format_api_hex_id(pf.device_id);
      b.vendor_id = to_signed_short(pf.vendor_id);
      if (!pf.system_id.empty()) b.system_id = pf.system_id;
      break;
    }
  }
  for (DeviceChange& dc : spec.device_change) {
    if (!dc.group) continue;
    for (const GroupTemplate& t : options.group_templates) {
      if (t.group_instance_key != dc.group->group_instance_key ||
          t.sequence_id != dc.group->sequence_id) {
        continue;
      }
      DeviceChange device = t.device;
      device.operation = "add";
      device.key = dc.key;
      device.group = dc.group;
      if (device.type == DeviceType::sriov_ethernet && device.backing_type == BackingType::none) {
        device.backing_type = dc.backing_type;
        device.network_name = dc.network_name;
        device.switch_uuid = dc.switch_uuid;
        device.portgroup_key = dc.portgroup_key;
      }
      dc = std::move(device);
      break;
    }
  }
  return spec;
}

std::string render(const VmConfig& config, OutputFormat format, const RenderOptions& options) {
  switch (format) {
    case OutputFormat::vmx:
      return render_vmx(config);
    case OutputFormat::configspec_xml:
      return with_firmware_comment(write_configspec_xml(output_spec(config, options)));
    case OutputFormat::soap:
      if (options.vm.empty()) {
        throw Error("the SOAP envelope needs the VM's moref (--vm vm-123)");
      }
      return with_firmware_comment(write_soap_envelope(output_spec(config, options), options.vm));
    case OutputFormat::vi_json:
      return write_vi_json(output_spec(config, options));
    case OutputFormat::govc:
      return render_govc(config, options);
    case OutputFormat::powercli:
      return render_powercli(config, options);
  }
  return {};
}

std::string render_govc(const VmConfig& config, const RenderOptions& options) {
  const ConfigSpec spec = output_spec(config, options);
  std::string out =
      "#!/bin/sh\n"
      "# Generated by vmxkit: applies these settings to a VM with govc.\n"
      "# Usage: VM=<name or inventory path> sh <this file>, with GOVC_URL (and credentials) set\n"
      "# as for any govc command. Power the VM off first: passthrough devices cannot be "
      "hot-added.\n"
      "# It checks first: when govc cannot apply all of it, it exits 1 and changes nothing.\n"
      "set -eu\n"
      ": \"${VM:?set VM to the name or inventory path of the VM}\"\n";

  // What no govc release can apply: refuse before anything changes.
  std::vector<std::string> cannot;
  if (spec.num_cores_per_socket) {
    cannot.push_back("cpuid.coresPerSocket = " + std::to_string(*spec.num_cores_per_socket) +
                     ": govc vm.change has no flag for numCoresPerSocket");
  }
  bool vgpu = false;
  bool directpath = false;
  for (std::size_t i = 0; i < spec.device_change.size(); ++i) {
    const DeviceChange& dc = spec.device_change[i];
    const std::string label = device_label(dc, i);
    if (dc.type == DeviceType::sriov_ethernet) {
      cannot.push_back(label +
                       ": an SR-IOV network adapter: no govc command adds a "
                       "VirtualSriovEthernetCard");
    } else if (dc.backing_type == BackingType::dynamic) {
      cannot.push_back(label +
                       ": a Dynamic DirectPath device: no govc command adds a "
                       "VirtualPCIPassthroughDynamicBackingInfo");
    } else if (dc.backing_type == BackingType::dvx) {
      cannot.push_back(label +
                       ": a DVX device: no govc command adds a "
                       "VirtualPCIPassthroughDvxBackingInfo");
    } else if (dc.backing_type == BackingType::vmiop) {
      vgpu = true;
    } else if (dc.backing_type == BackingType::device) {
      directpath = true;
    }
  }
  for (const DeviceGroupSpec& g : spec.device_groups) {
    cannot.push_back("device group " +
                     quote_for_message(g.device_group_name.value_or(
                         g.label.value_or(std::to_string(g.group_instance_key)))) +
                     ": no govc command adds a device group (VirtualMachineVirtualDeviceGroups)");
  }
  const std::string instead =
      "Apply it with PowerCLI (vmxkit generate ... --format powercli) or send the ConfigSpec "
      "(--format configspec-xml, soap or vi-json; examples/automation/ applies one with pyVmomi).";
  if (!cannot.empty()) {
    out += "# govc cannot apply this plan:\n";
    out += "echo \"vmxkit: $VM: govc cannot apply this plan; nothing was changed:\" >&2\n";
    for (const std::string& c : cannot) {
      out += "# " + c + "\n";
      out += "echo " + sh_quote("  " + c) + " >&2\n";
    }
    out += "echo " + sh_quote(instead) + " >&2\n";
    out += "exit 1\n";
    return out;
  }

  out +=
      "fail() {\n"
      "  echo \"vmxkit: $VM: $*; nothing was changed\" >&2\n"
      "  exit 1\n"
      "}\n";
  // The oldest govc that applies it: device.boot -firmware came in 0.24.0 (govmomi 5e57b3f6);
  // 0.24.0's device.pci.add sent deviceId in decimal, so the VM did not power on (govmomi
  // #2248, fixed in 0.24.1 by add8be5a); gpu.vm.add came in 0.49.0 (govmomi 1b06c598).
  if (vgpu) {
    out +=
        "# vGPU profiles: govc gpu.vm.add, in govc 0.49.0 and later.\n"
        "govc version -require 0.49.0 >/dev/null || fail \"this govc cannot add vGPU profiles "
        "(gpu.vm.add needs govc 0.49.0 or later). Upgrade govc, or " +
        std::string(
            "apply the plan with PowerCLI (--format powercli) or the ConfigSpec "
            "(--format configspec-xml, soap or vi-json)\"\n");
  } else if (directpath) {
    out +=
        "# DirectPath devices: govc 0.24.0's device.pci.add sends the deviceId in decimal and the\n"
        "# VM does not power on (govmomi #2248); 0.24.1 and later send it in hex.\n"
        "govc version -require 0.24.1 >/dev/null || fail \"device.pci.add needs govc 0.24.1 or "
        "later (0.24.0 writes a deviceId the VM cannot power on with, govmomi #2248)\"\n";
  } else if (spec.firmware) {
    out +=
        "# device.boot -firmware: govc 0.24.0 and later.\n"
        "govc version -require 0.24.0 >/dev/null || fail \"device.boot -firmware needs govc "
        "0.24.0 or later\"\n";
  }
  if (spec.firmware) {
    out += "# firmware = " + *spec.firmware +
           ". Switching an installed guest's firmware (BIOS to EFI) makes it unbootable: its\n"
           "# disk has no EFI system partition (vmxkit rule MMIO005). The script stops when the "
           "VM's\n"
           "# firmware differs, unless FIRMWARE_CHANGE=yes: set it for a VM with no guest "
           "installed yet,\n"
           "# or once the guest's disk is converted to GPT with an EFI system partition.\n";
    out += "info=$(govc vm.info -json \"$VM\")\n";
    out += "if ! printf '%s\\n' \"$info\" | grep -qi " +
           sh_quote("\"firmware\": *\"" + *spec.firmware + "\"") + "; then\n";
    out += "  [ \"${FIRMWARE_CHANGE:-}\" = yes ] || fail " +
           sh_quote("this plan switches the firmware to " + *spec.firmware +
                    ", which makes an installed guest of the other firmware unbootable; set "
                    "FIRMWARE_CHANGE=yes to switch it (a VM with no guest yet, or a disk "
                    "converted to GPT/EFI)") +
           "\n";
    out += "fi\n";
  }

  std::string flags;
  if (spec.name) flags += " -name " + sh_quote(*spec.name);
  if (spec.guest_id) flags += " -g " + sh_quote(*spec.guest_id);
  if (spec.num_cpus) flags += " -c " + std::to_string(*spec.num_cpus);
  if (spec.memory_mb) flags += " -m " + std::to_string(*spec.memory_mb);
  if (spec.memory_reservation_mb) {
    flags += " -mem.reservation " + std::to_string(*spec.memory_reservation_mb);
  }
  if (spec.memory_limit_mb) flags += " -mem.limit " + std::to_string(*spec.memory_limit_mb);
  if (spec.nested_hv_enabled) {
    flags += std::string(" -nested-hv-enabled=") + (*spec.nested_hv_enabled ? "true" : "false");
  }
  if (!flags.empty()) out += "govc vm.change -vm \"$VM\"" + flags + "\n";
  if (!spec.extra_config.empty()) {
    out += "govc vm.change -vm \"$VM\"";
    for (const OptionValue& o : spec.extra_config) {
      out += " \\\n  -e " + sh_quote(o.key + "=" + o.value);
    }
    out += "\n";
  }
  if (spec.memory_reservation_locked_to_max) {
    out += std::string("govc vm.change -vm \"$VM\" -memory-pin=") +
           (*spec.memory_reservation_locked_to_max ? "true" : "false") + "\n";
  }
  if (spec.firmware) {
    // device.boot also sends its other flags' defaults: bootRetryEnabled and enterBIOSSetup
    // false (govc/device/boot.go).
    out += "govc device.boot -vm \"$VM\" -firmware " + sh_quote(*spec.firmware) + "\n";
  }
  for (std::size_t i = 0; i < spec.device_change.size(); ++i) {
    const DeviceChange& dc = spec.device_change[i];
    const std::string label = device_label(dc, i);
    if (dc.backing_type == BackingType::device) {
      // device.pci.add takes the systemId, deviceId and vendorId from QueryConfigTarget().
      out += "# " + label + ": vendor " +
             format_vmx_pci_id(static_cast<std::uint16_t>(dc.device.vendor_id & 0xffff)) +
             " device 0x" + dc.device.device_id + "\n";
      out += "govc device.pci.add -vm \"$VM\" " + sh_quote(dc.device.id) + "\n";
    } else if (dc.backing_type == BackingType::vmiop) {
      out += "# " + label + ": vGPU\n";
      out += "govc gpu.vm.add -vm \"$VM\" -profile " + sh_quote(dc.vgpu) + "\n";
    }
  }
  return out;
}

std::string render_powercli(const VmConfig& config, const RenderOptions& options) {
  const ConfigSpec spec = output_spec(config, options);
  std::string out =
      "# Generated by vmxkit: applies these settings to a VM with VMware PowerCLI.\n"
      "# Usage: Connect-VIServer first, then ./<this file>.ps1 -VMName <name>. Power the VM off\n"
      "# first: passthrough devices cannot be hot-added.\n"
      "[CmdletBinding()]\n"
      "param([Parameter(Mandatory = $true)][string]$VMName, [switch]$Force)\n"
      "$ErrorActionPreference = 'Stop'\n"
      "$vm = Get-VM -Name $VMName\n\n";
  if (spec.firmware) {
    const std::string fw = ps_quote(*spec.firmware);
    out += "# firmware = " + *spec.firmware +
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
  for (const OptionValue& o : spec.extra_config) {
    out += "New-AdvancedSetting -Entity $vm -Name " + ps_quote(o.key) + " -Value " +
           ps_quote(o.value) + " -Force -Confirm:$false | Out-Null\n";
  }
  out += "\n$spec = New-Object VMware.Vim.VirtualMachineConfigSpec\n";
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
  out += "$spec.DeviceChange = @()\n";
  for (std::size_t i = 0; i < spec.device_change.size(); ++i) {
    const DeviceChange& dc = spec.device_change[i];
    out += "\n# " + device_label(dc, i) + "\n";
    out += "$change = New-Object VMware.Vim.VirtualDeviceConfigSpec\n";
    out += "$change.Operation = " + ps_quote(dc.operation) + "\n";
    if (dc.type == DeviceType::sriov_ethernet) {
      out += "$device = New-Object VMware.Vim.VirtualSriovEthernetCard\n";
    } else {
      out += "$device = New-Object VMware.Vim.VirtualPCIPassthrough\n";
    }
    out += "$device.Key = " + std::to_string(dc.key) + "\n";
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
  if (!spec.device_groups.empty()) {
    // vSphere API 8.0.0.1: the group is added with its devices, in the same request.
    out += "\n# Device groups (vSphere 8.0 U1 and later)\n";
    out += "$spec.DeviceGroups = New-Object VMware.Vim.VirtualMachineVirtualDeviceGroups\n";
    out += "$spec.DeviceGroups.DeviceGroup = @(\n";
    for (std::size_t i = 0; i < spec.device_groups.size(); ++i) {
      const DeviceGroupSpec& g = spec.device_groups[i];
      std::string props = "GroupInstanceKey = " + std::to_string(g.group_instance_key);
      if (g.label || g.summary) {
        props += "; DeviceInfo = (New-Object VMware.Vim.Description -Property @{Label = " +
                 ps_quote(g.label.value_or("")) +
                 "; Summary = " + ps_quote(g.summary.value_or("")) + "})";
      }
      if (g.device_group_name) props += "; DeviceGroupName = " + ps_quote(*g.device_group_name);
      out += std::string("  (New-Object VMware.Vim.") +
             (g.device_group_name ? "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup"
                                  : "VirtualMachineVirtualDeviceGroupsDeviceGroup") +
             " -Property @{" + props + "})";
      out += i + 1 < spec.device_groups.size() ? ",\n" : "\n";
    }
    out += ")\n";
  }
  out += "\n(Get-View -Id $vm.Id).ReconfigVM($spec)\n";
  return out;
}

}  // namespace vmxkit::vsphere
