// SPDX-License-Identifier: Apache-2.0
// Whether a host is ready to give a device to a VM: the IOMMU as the kernel command line sets
// it, ESXi's ownership of each device (esxcli), and what kind of host it is. Data for the host
// checks (HOST...), the TOPO009 lint rule and `generate`'s choice of devices.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vmxkit/formats/host/cmdline.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

/// Whether the IOMMU translates DMA per the command line: true (on, not pt), false (off or pt),
/// nullopt (cannot tell).
std::optional<bool> iommu_translating(const Host& host, const KernelCmdline& cmdline);

/// What the kernel command line says of the IOMMU for a CPU vendor. AMD turns the IOMMU on by
/// default when the firmware enables it; Intel needs `intel_iommu=on`.
struct IommuArgs {
  bool off = false;    ///< intel_iommu=off, amd_iommu=off or iommu=off
  bool on = false;     ///< turned on (or AMD and not turned off)
  bool pt = false;     ///< iommu=pt: 1:1 translation of host-owned DMA
  std::string on_arg;  ///< the argument that turns it on for this CPU ("intel_iommu=on")
};
IommuArgs iommu_args(const KernelCmdline& cmdline, CpuVendor cpu);

/// How a VM is to use a device, for the ESXi ownership check.
enum class PassthroughUse : unsigned char {
  full,      ///< DirectPath I/O: the device must be enabled for passthrough
  vgpu,      ///< NVIDIA vGPU: the GPU stays with the VMkernel (vGPU manager)
  sriov_pf,  ///< SR-IOV: the PF stays with the VMkernel driver that creates the VFs
};

/// Whether an ESXi capture says the device is configured for passthrough (`Configured Owner`
/// from `esxcli hardware pci list`, else `Enabled` from `esxcli hardware pci pcipassthru
/// list`), with the words it says it in; nullopt when no capture says.
struct EsxiPassthrough {
  bool enabled = false;
  std::string said;  ///< "Configured Owner: VMkernel", "pcipassthru list: Enabled false"
};
std::optional<EsxiPassthrough> esxi_passthrough(const Device& d);

/// Why ESXi will not give a device to a VM for a use.
enum class OwnerProblem : unsigned char {
  incapable,     ///< `Passthru Capable: false`
  not_enabled,   ///< DirectPath I/O, but the device is not enabled for passthrough
  pending,       ///< enabled, but still owned by the VMkernel until a reboot applies it
  not_vmkernel,  ///< vGPU or an SR-IOV PF, but the device is enabled for passthrough
};
/// "passthru-incapable", "passthru-off", "passthru-pending", "passthru-on".
std::string_view to_string(OwnerProblem problem);

/// The problem with a device for that use, from esxcli's `Passthru Capable`, `Configured Owner`
/// and `Current Owner`: the facts, which checks::owner_message() and checks::owner_fix() word
/// (what the capture says, and the command that fixes it); nullopt when it is fine or the
/// capture does not say.
struct OwnerFinding {
  OwnerProblem problem = OwnerProblem::not_enabled;
  PassthroughUse use = PassthroughUse::full;
  Bdf bdf;
  std::string model;          ///< the catalogue's model name; empty when not known
  std::string said;           ///< not_enabled: EsxiPassthrough::said
  std::string current_owner;  ///< pending: esxcli's `Current Owner`
};
std::optional<OwnerFinding> esxi_owner_problem(const Device& d, PassthroughUse use);

/// What the host is, for the advice: ESXi (esxcli captures), a Linux KVM host (devices bound to
/// vfio-pci, or vfio-pci ids on the command line), Linux bare metal (only when told), or a Linux
/// host of unknown kind.
enum class HostKind : unsigned char { unknown, esxi, kvm, bare_metal };
std::string_view to_string(HostKind kind);
/// Parses "esxi", "kvm", "bare-metal"; nullopt otherwise.
std::optional<HostKind> parse_host_kind(std::string_view text);
/// The kind the inputs show (never bare_metal: nothing in a capture says no VM will run).
HostKind detect_host_kind(const Host& host, const std::optional<KernelCmdline>& cmdline);

}  // namespace vmxkit::pci
