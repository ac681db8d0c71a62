// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/owner_words.h"

#include <fmt/format.h>

namespace vmxkit::checks {

std::string owner_message(const pci::OwnerFinding& f) {
  const std::string bdf = f.bdf.to_string();
  const std::string what = f.model.empty() ? bdf : fmt::format("{} ({})", bdf, f.model);
  switch (f.problem) {
    case pci::OwnerProblem::incapable:
      return fmt::format("{} cannot be passed through on this host (Passthru Capable: false)",
                         what);
    case pci::OwnerProblem::not_enabled:
      return fmt::format("{} is not enabled for passthrough ({}): the VM will not power on with it",
                         what, f.said);
    case pci::OwnerProblem::pending:
      return fmt::format(
          "{} is enabled for passthrough but still owned by the {} until the change is applied",
          what, f.current_owner);
    case pci::OwnerProblem::not_vmkernel:
      break;
  }
  return fmt::format("{} is enabled for passthrough, but {} needs it owned by the VMkernel", what,
                     f.use == pci::PassthroughUse::vgpu
                         ? "vGPU (the NVIDIA vGPU manager)"
                         : "SR-IOV (the driver that creates the VFs)");
}

std::string owner_fix(const pci::OwnerFinding& f) {
  const std::string bdf = f.bdf.to_string();
  switch (f.problem) {
    case pci::OwnerProblem::incapable:
      return "check the device's firmware and the host's BIOS (VT-d/AMD-Vi, SR-IOV) settings, or "
             "use another device";
    case pci::OwnerProblem::not_enabled:
      return fmt::format(
          "esxcli hardware pci pcipassthru set -d {} -e true -a (ESXi 7.0+; earlier: enable it "
          "under Configure > PCI Devices and reboot)",
          bdf);
    case pci::OwnerProblem::pending:
      return fmt::format(
          "reboot the host, or esxcli hardware pci pcipassthru set -d {} -e true -a (ESXi 7.0+)",
          bdf);
    case pci::OwnerProblem::not_vmkernel:
      break;
  }
  return fmt::format(
      "esxcli hardware pci pcipassthru set -d {} -e false -a (ESXi 7.0+; earlier: Configure > "
      "PCI Devices and reboot)",
      bdf);
}

}  // namespace vmxkit::checks
