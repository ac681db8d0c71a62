// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/host/iommu_common.h"

#include <fmt/format.h>

namespace vmxkit::checks {

std::string cmdline_where(const pci::KernelCmdline& cmdline) {
  return cmdline.line ? fmt::format("{}:{}", cmdline.path, cmdline.line) : cmdline.path;
}

std::string iommu_grub_fix(pci::CpuVendor cpu) {
  if (cpu == pci::CpuVendor::unknown) {
    return "add intel_iommu=on (Intel) or amd_iommu=on (AMD) and iommu=pt to "
           "GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run update-grub (or grub2-mkconfig "
           "-o /boot/grub2/grub.cfg) and reboot";
  }
  return fmt::format(
      "add {} iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run update-grub (or "
      "grub2-mkconfig -o /boot/grub2/grub.cfg) and reboot",
      cpu == pci::CpuVendor::amd ? "amd_iommu=on" : "intel_iommu=on");
}

}  // namespace vmxkit::checks
