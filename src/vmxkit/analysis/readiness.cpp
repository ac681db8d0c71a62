// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/readiness.h"

#include <fmt/format.h>

#include <algorithm>

namespace vmxkit::pci {

std::optional<bool> iommu_translating(const Host& host, const KernelCmdline& cmdline) {
  const auto pt = cmdline.value("iommu");
  if (pt == "pt" || cmdline.value("iommu") == "off") return false;
  const auto intel = cmdline.value("intel_iommu");
  const auto amd = cmdline.value("amd_iommu");
  if ((intel && intel->rfind("off", 0) == 0) || amd == "off") return false;
  if ((intel && intel->find("on") != std::string::npos) || amd == "on") return true;
  // AMD turns the IOMMU on by default when firmware enables it: cannot tell from the line.
  (void)host;
  return std::nullopt;
}

IommuArgs iommu_args(const KernelCmdline& cmdline, CpuVendor cpu) {
  IommuArgs a;
  a.on_arg = cpu == CpuVendor::amd ? "amd_iommu=on" : "intel_iommu=on";
  const auto intel = cmdline.value("intel_iommu");
  const auto amd = cmdline.value("amd_iommu");
  const auto iommu = cmdline.value("iommu");
  a.off = (intel && intel->rfind("off", 0) == 0) || amd == "off" || iommu == "off";
  a.on = (intel && intel->find("on") != std::string::npos) || amd == "on" ||
         (cpu == CpuVendor::amd && !a.off);
  a.pt = iommu == "pt";
  return a;
}

std::optional<EsxiPassthrough> esxi_passthrough(const Device& d) {
  if (!d.configured_owner.empty()) {
    return EsxiPassthrough{d.configured_owner == "VM Passthru",
                           "Configured Owner: " + d.configured_owner};
  }
  if (d.passthru_enabled) {
    return EsxiPassthrough{*d.passthru_enabled,
                           fmt::format("pcipassthru list: Enabled {}", *d.passthru_enabled)};
  }
  return std::nullopt;
}

std::string_view to_string(OwnerProblem problem) {
  switch (problem) {
    case OwnerProblem::incapable:
      return "passthru-incapable";
    case OwnerProblem::not_enabled:
      return "passthru-off";
    case OwnerProblem::pending:
      return "passthru-pending";
    case OwnerProblem::not_vmkernel:
      return "passthru-on";
  }
  return "passthru-off";
}

std::optional<OwnerFinding> esxi_owner_problem(const Device& d, PassthroughUse use) {
  constexpr std::string_view kPassthru = "VM Passthru";
  const std::optional<EsxiPassthrough> state = esxi_passthrough(d);
  OwnerFinding f;
  f.use = use;
  f.bdf = d.bdf;
  if (d.model) f.model = d.model->model;
  if (use == PassthroughUse::full) {
    if (d.passthru_capable == false) {
      f.problem = OwnerProblem::incapable;
      return f;
    }
    if (!state) return std::nullopt;
    if (!state->enabled) {
      f.problem = OwnerProblem::not_enabled;
      f.said = state->said;
      return f;
    }
    if (!d.current_owner.empty() && d.current_owner != kPassthru) {
      f.problem = OwnerProblem::pending;
      f.current_owner = d.current_owner;
      return f;
    }
    return std::nullopt;
  }
  if (!state || !state->enabled) return std::nullopt;
  f.problem = OwnerProblem::not_vmkernel;
  return f;
}

std::string_view to_string(HostKind kind) {
  switch (kind) {
    case HostKind::esxi:
      return "ESXi";
    case HostKind::kvm:
      return "Linux KVM host";
    case HostKind::bare_metal:
      return "Linux bare metal";
    case HostKind::unknown:
      break;
  }
  return "Linux, kind unknown";
}

std::optional<HostKind> parse_host_kind(std::string_view text) {
  if (text == "esxi") return HostKind::esxi;
  if (text == "kvm") return HostKind::kvm;
  if (text == "bare-metal") return HostKind::bare_metal;
  return std::nullopt;
}

HostKind detect_host_kind(const Host& host, const std::optional<KernelCmdline>& cmdline) {
  // An ESXi capture (esxcli) says who owns each device.
  if (std::any_of(host.devices().begin(), host.devices().end(),
                  [](const Device& d) { return esxi_passthrough(d).has_value(); })) {
    return HostKind::esxi;
  }
  const bool vfio_bound = std::any_of(host.devices().begin(), host.devices().end(),
                                      [](const Device& d) { return d.driver == "vfio-pci"; });
  const bool vfio_ids =
      cmdline && (cmdline->value("vfio-pci.ids") || cmdline->value("vfio_pci.ids"));
  return vfio_bound || vfio_ids ? HostKind::kvm : HostKind::unknown;
}

}  // namespace vmxkit::pci
