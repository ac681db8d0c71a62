// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

/// The kernel command line, from `/proc/cmdline` or `/etc/default/grub`
/// (GRUB_CMDLINE_LINUX_DEFAULT and GRUB_CMDLINE_LINUX).
struct KernelCmdline {
  std::vector<std::string> args;
  std::string path;
  std::uint32_t line = 0;  ///< line of the (first) command line in the file
  bool from_grub = false;

  /// The value of `key=value` (last one wins, as the kernel does), or nullopt.
  std::optional<std::string> value(std::string_view key) const;
};

/// Parses either form; throws vmxkit::Error when the text holds no command line.
KernelCmdline parse_kernel_cmdline(std::string_view text, const std::string& path);

/// Whether the IOMMU translates DMA per the command line: true (on, not pt), false (off or pt),
/// nullopt (cannot tell).
std::optional<bool> iommu_translating(const Host& host, const KernelCmdline& cmdline);

/// One readiness finding with the command that fixes it.
struct HostFinding {
  std::string id;  ///< "iommu-off", "iommu-not-pt", "sriov-no-vfs", "sriov-too-many-vfs",
                   ///< "acs-redirect", "ats-disabled", "ats-absent", "passthru-incapable",
                   ///< "passthru-off", "passthru-pending", "passthru-on", "input",
                   ///< "not-checked" (a check the inputs could not answer),
                   ///< "iommu-esxi" (a command line given for an ESXi host),
                   ///< "host-kind" (what the advice is for)
  Severity severity = Severity::warning;
  std::string subject;  ///< the device (BDF) or file it is about
  std::string message;
  std::string fix;  ///< command or setting; empty when none
};

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

/// The ESXi ownership problem of a device for that use, from esxcli's `Passthru Capable`,
/// `Configured Owner` and `Current Owner` (ids "passthru-incapable", "passthru-off",
/// "passthru-pending", "passthru-on"), or nullopt when it is fine or the capture does not say.
std::optional<HostFinding> check_esxi_owner(const Device& d, PassthroughUse use);

/// What the host is, for the advice: ESXi (esxcli captures), a Linux KVM host (devices bound to
/// vfio-pci, or vfio-pci ids on the command line), Linux bare metal (only when told), or a Linux
/// host of unknown kind.
enum class HostKind : unsigned char { unknown, esxi, kvm, bare_metal };
std::string_view to_string(HostKind kind);
/// Parses "esxi", "kvm", "bare-metal"; nullopt otherwise.
std::optional<HostKind> parse_host_kind(std::string_view text);
/// The kind the inputs show (never bare_metal: nothing in a capture says no VM will run).
HostKind detect_host_kind(const Host& host, const std::optional<KernelCmdline>& cmdline);

/// The host readiness checks for GPUDirect RDMA and SR-IOV: IOMMU on the kernel command line
/// (when given), SR-IOV VFs created, ACS and ATS on the GPU/NIC paths, ESXi passthrough
/// ownership of GPUs and RDMA NICs (esxcli captures), and input warnings; then, as
/// "not-checked" infos, each of those checks the inputs could not answer and what would.
/// `kind` unknown: detected (detect_host_kind). The IOMMU advice follows the kind: a KVM host
/// needs the IOMMU on to assign devices; bare metal needs it off or in pass-through mode for
/// GPUDirect RDMA; an unknown Linux host gets both, as warnings.
std::vector<HostFinding> check_host(const Host& host, const std::optional<KernelCmdline>& cmdline,
                                    HostKind kind = HostKind::unknown);

}  // namespace vmxkit::pci
