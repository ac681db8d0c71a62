// SPDX-License-Identifier: Apache-2.0
// What HOST003 and HOST004 share: the kernel command line's IOMMU arguments and the GRUB line
// that fixes them.
#pragma once

#include <string>

#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {

/// `path:line` of the command line, for the finding's subject.
std::string cmdline_where(const pci::KernelCmdline& cmdline);
/// The GRUB change that turns the IOMMU on in pass-through mode for the host's CPU vendor.
std::string iommu_grub_fix(pci::CpuVendor cpu);

}  // namespace vmxkit::checks
