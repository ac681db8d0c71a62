// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <string>
#include <vector>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host013 {

constexpr std::string_view kDoc = R"md(
## What it does
Names each host check the inputs could not answer, and the input that would: the IOMMU without
a kernel command line, sysfs or esxcli capture; SR-IOV, ATS or ACS of devices whose capabilities
the capture does not show (`lspci -tv`, esxcli, or `lspci -vvv` run without root).

## Why is this bad?
It is not a problem of the host, but a host is never called ready on checks nobody made: the
summary of `vmxkit host-check` does not say "ready" while one is left.

## Example
`ATS of 0000:3b:00.0: not checked (needs: an lspci -vvv capture of the host, run as root)`

## Fix safety
Nothing to fix: give the input it names.

## References
- pciutils `lspci(8)`: capabilities are shown only to root ("Capabilities: <access denied>")
)md";

constexpr std::string_view kCaps = "an lspci -vvv capture of the host, run as root";

// Whether lspci read the device's PCI Express capability (not inferred from the tree shape):
// `lspci -tv`, esxcli and `lspci -vvv` run without root do not.
bool express_read(const pci::Device& d) {
  return d.port_type != pci::PortType::unknown && !d.port_type_inferred;
}

// Whether lspci listed any capability of the device.
bool capabilities_read(const pci::Device& d) {
  return express_read(d) || d.acs || d.ats_present || d.sriov || d.link_cap;
}

std::string list_some(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 6;
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > kShown) out += fmt::format(" and {} more", items.size() - kShown);
  return out;
}

void check(const HostContext& ctx, FindingSink& sink) {
  bool iommu_groups = false;
  std::vector<std::string> nics_sriov, nics_ats, bridges;
  for (const pci::Device& d : ctx.host().devices()) {
    iommu_groups = iommu_groups || d.iommu_group.has_value();
    if (d.role == pci::Role::rdma_nic) {
      if (!d.sriov && !capabilities_read(d)) nics_sriov.push_back(d.bdf.to_string());
      if (!d.ats_present && !express_read(d)) nics_ats.push_back(d.bdf.to_string());
    } else if (d.role == pci::Role::bridge && d.secondary_bus && !d.acs && !capabilities_read(d)) {
      bridges.push_back(d.bdf.to_string());
    }
  }
  // On ESXi the IOMMU (VT-d, AMD-Vi) is a firmware setting, and esxcli's Passthru Capable
  // reflects it; on Linux the kernel command line or the IOMMU groups in sysfs say.
  if (!ctx.cmdline() && !ctx.esxi() && !iommu_groups) {
    sink.report(kHOST013, "",
                "IOMMU: not checked (needs: --cmdline /proc/cmdline, a sysfs capture, or an "
                "esxcli hardware pci list capture)");
  }
  if (!nics_sriov.empty()) {
    sink.report(kHOST013, "",
                fmt::format("SR-IOV of {}: not checked (needs: {})", list_some(nics_sriov), kCaps));
  }
  if (!nics_ats.empty()) {
    sink.report(kHOST013, "",
                fmt::format("ATS of {}: not checked (needs: {})", list_some(nics_ats), kCaps));
  }
  if (!bridges.empty()) {
    sink.report(
        kHOST013, "",
        fmt::format("ACS of the bridges {}: not checked (needs: {})", list_some(bridges), kCaps));
  }
}

}  // namespace host013

extern const Check kHOST013{
    .id = "HOST013",
    .name = "not-checked",
    .kind = Kind::host,
    .severity = Severity::info,
    .summary = "a host check the inputs could not answer, with the input that would",
    .doc = host013::kDoc,
    .check_host = &host013::check,
};

}  // namespace vmxkit::checks
