// SPDX-License-Identifier: Apache-2.0
// The govc output: a POSIX shell script of govc commands that checks before it changes anything.
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

// The oldest govc that applies the plan. device.boot -firmware came in 0.24.0 (govmomi
// 5e57b3f6). device.pci.add came in 0.24.0 and sends the deviceId in decimal there (govmomi
// #2249's bug #2248): the fix add8be5a is an ancestor of v0.24.1 and v0.25.0 but not of
// v0.24.2, a branch off v0.24.0 whose govc/device/pci/add.go writes strconv.Itoa(DeviceId)
// again (`git merge-base --is-ancestor add8be5a v0.24.2` fails). So 0.25.0 or later, or a
// release build of 0.24.1 (it prints "govc 0.24.1"; 0.24.x built from source prints 0.24.0).
// gpu.vm.add came in 0.49.0 (govmomi 1b06c598).
std::string govc_version_gate(bool vgpu, bool directpath, bool firmware) {
  if (vgpu) {
    return "# vGPU profiles: govc gpu.vm.add, in govc 0.49.0 and later.\n"
           "govc version -require 0.49.0 >/dev/null || fail \"this govc cannot add vGPU profiles "
           "(gpu.vm.add needs govc 0.49.0 or later). Upgrade govc, or apply the plan with PowerCLI "
           "(--format powercli) or the ConfigSpec (--format configspec-xml, soap or vi-json)\"\n";
  }
  if (directpath) {
    return "# DirectPath devices: govc 0.24.0 and 0.24.2's device.pci.add send the deviceId in\n"
           "# decimal and the VM does not power on (govmomi #2248); 0.24.1 and 0.25.0 and later\n"
           "# send it in hex.\n"
           "if ! govc version -require 0.25.0 >/dev/null 2>&1; then\n"
           "  [ \"$(govc version 2>/dev/null)\" = \"govc 0.24.1\" ] || fail \"device.pci.add "
           "needs govc 0.25.0 or later, or 0.24.1 (0.24.0 and 0.24.2 write a deviceId the VM "
           "cannot power on with, govmomi #2248); this is $(govc version 2>&1)\"\n"
           "fi\n";
  }
  if (firmware) {
    return "# device.boot -firmware: govc 0.24.0 and later.\n"
           "govc version -require 0.24.0 >/dev/null || fail \"device.boot -firmware needs govc "
           "0.24.0 or later\"\n";
  }
  return {};
}

// The checks that run before the first change: the VM is powered off, each DirectPath device
// is in the list of devices the VM's host may pass through (QueryConfigTarget's
// pciPassthrough, which `govc device.pci.ls -vm` prints: govc/device/pci/ls.go), and the
// firmware. What govc cannot check is said in the script.
std::string govc_checks(const ConfigSpec& spec) {
  std::string out =
      "# Checks, all before the first change. govc cannot check whether a device is held by\n"
      "# another VM, a device's SR-IOV state, or whether the host has the memory to reserve:\n"
      "# vSphere refuses those when the VM powers on (vmxkit apply checks them first).\n"
      "info=$(govc vm.info -json \"$VM\") || fail \"govc vm.info cannot read the VM\"\n"
      "printf '%s\\n' \"$info\" | grep -qi '\"powerState\": *\"poweredOff\"' || fail "
      "'the VM is not powered off: passthrough devices and these settings need it off'\n";
  bool listed = false;
  for (const DeviceChange& dc : spec.device_change) {
    if (dc.backing_type != BackingType::device) continue;
    if (!listed) {
      out +=
          "pci=$(govc device.pci.ls -vm \"$VM\") || fail \"govc device.pci.ls cannot list the "
          "host's passthrough devices\"\n";
      listed = true;
    }
    out += R"(printf '%s\n' "$pci" | grep -qiF )" + sh_quote(dc.device.id) + " || fail " +
           sh_quote(dc.device.id +
                    " is not in the host's allowed passthrough device list (enable "
                    "passthrough for it on the host and reboot it, or pick another device)") +
           "\n";
  }
  if (spec.firmware) {
    out += "# firmware = " + *spec.firmware +
           ". Switching an installed guest's firmware (BIOS to EFI) makes it unbootable: its\n"
           "# disk has no EFI system partition (vmxkit rule MMIO005). The script stops when the "
           "VM's\n"
           "# firmware differs, unless FIRMWARE_CHANGE=yes: set it for a VM with no guest "
           "installed yet,\n"
           "# or once the guest's disk is converted to GPT with an EFI system partition.\n";
    out += R"(if ! printf '%s\n' "$info" | grep -qi )" +
           sh_quote(R"("firmware": *")" + *spec.firmware + "\"") + "; then\n";
    out += "  [ \"${FIRMWARE_CHANGE:-}\" = yes ] || fail " +
           sh_quote("this plan switches the firmware to " + *spec.firmware +
                    ", which makes an installed guest of the other firmware unbootable; set "
                    "FIRMWARE_CHANGE=yes to switch it (a VM with no guest yet, or a disk "
                    "converted to GPT/EFI)") +
           "\n";
    out += "fi\n";
  }
  return out;
}
// What the plan needs of govc: what no govc release can apply (the script refuses before
// anything changes), and the devices that decide the oldest govc that applies the rest.
struct GovcNeeds {
  std::vector<std::string> cannot;
  bool vgpu = false;
  bool directpath = false;
};

GovcNeeds govc_needs(const ConfigSpec& spec) {
  GovcNeeds needs;
  if (spec.num_cores_per_socket) {
    needs.cannot.push_back("cpuid.coresPerSocket = " + std::to_string(*spec.num_cores_per_socket) +
                           ": govc vm.change has no flag for numCoresPerSocket");
  }
  for (std::size_t i = 0; i < spec.device_change.size(); ++i) {
    const DeviceChange& dc = spec.device_change[i];
    const std::string label = device_label(dc, i);
    if (dc.type == DeviceType::sriov_ethernet) {
      needs.cannot.push_back(label +
                             ": an SR-IOV network adapter: no govc command adds a "
                             "VirtualSriovEthernetCard");
    } else if (dc.backing_type == BackingType::dynamic) {
      needs.cannot.push_back(label +
                             ": a Dynamic DirectPath device: no govc command adds a "
                             "VirtualPCIPassthroughDynamicBackingInfo");
    } else if (dc.backing_type == BackingType::dvx) {
      needs.cannot.push_back(label +
                             ": a DVX device: no govc command adds a "
                             "VirtualPCIPassthroughDvxBackingInfo");
    } else if (dc.backing_type == BackingType::vmiop) {
      needs.vgpu = true;
    } else if (dc.backing_type == BackingType::device) {
      needs.directpath = true;
    }
  }
  for (const DeviceGroupSpec& g : spec.device_groups) {
    needs.cannot.push_back(
        "device group " +
        quote_for_message(
            g.device_group_name.value_or(g.label.value_or(std::to_string(g.group_instance_key)))) +
        ": no govc command adds a device group (VirtualMachineVirtualDeviceGroups)");
  }
  return needs;
}

// The end of a script for a plan govc cannot apply: it says what and exits 1, changing nothing.
void govc_refusal(const std::vector<std::string>& cannot, std::string& out) {
  const std::string instead =
      "Apply it with PowerCLI (vmxkit generate ... --format powercli) or send the ConfigSpec "
      "(--format configspec-xml, soap or vi-json; examples/automation/ applies one with pyVmomi).";
  out += "# govc cannot apply this plan:\n";
  out += "echo \"vmxkit: $VM: govc cannot apply this plan; nothing was changed:\" >&2\n";
  for (const std::string& c : cannot) {
    out += "# " + c + "\n";
    out += "echo " + sh_quote("  " + c) + " >&2\n";
  }
  out += "echo " + sh_quote(instead) + " >&2\n";
  out += "exit 1\n";
}

// The VM's own settings: vm.change flags, its extraConfig, the memory pin, the firmware.
void govc_vm_settings(const ConfigSpec& spec, std::string& out) {
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
}

// The devices govc adds: DirectPath devices and vGPU profiles (govc_needs refused the rest).
void govc_devices(const ConfigSpec& spec, std::string& out) {
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
}
}  // namespace

std::string render_govc(const VmConfig& config, const RenderOptions& options) {
  const ConfigSpec spec = output_spec(config, options);
  std::string out =
      "#!/bin/sh\n"
      "# Generated by vmxkit: applies these settings to a VM with govc.\n"
      "# Usage: VM=<name or inventory path> sh <this file>, with GOVC_URL (and credentials) set\n"
      "# as for any govc command. Power the VM off first: passthrough devices cannot be "
      "hot-added.\n"
      "# It checks first (govc version, power state, the host's passthrough list, firmware): when "
      "a\n"
      "# check fails or govc cannot apply all of it, it exits 1 before the first change.\n"
      "set -eu\n"
      ": \"${VM:?set VM to the name or inventory path of the VM}\"\n";

  // What no govc release can apply: refuse before anything changes.
  const GovcNeeds needs = govc_needs(spec);
  if (!needs.cannot.empty()) {
    govc_refusal(needs.cannot, out);
    return out;
  }

  out +=
      "fail() {\n"
      "  echo \"vmxkit: $VM: $*; nothing was changed\" >&2\n"
      "  exit 1\n"
      "}\n";
  out += govc_version_gate(needs.vgpu, needs.directpath, spec.firmware.has_value());
  out += govc_checks(spec);
  out += "# Every check passed: the changes follow.\n";
  govc_vm_settings(spec, out);
  govc_devices(spec, out);
  return out;
}

}  // namespace vmxkit::vsphere
