// SPDX-License-Identifier: Apache-2.0
// The words of the 64-bit MMIO window's arithmetic (pci::MmioResult::steps, data): one line per
// step. The MMIO rules' notes (mmio_requirement.h), generate's comment block, `vmxkit mmio` and
// the public MmioSize::lines say it in these words; it lives here, below report/, for the rules.
#pragma once

#include <string>
#include <vector>

#include "vmxkit/analysis/mmio.h"

namespace vmxkit::checks {

/// One line per step of `result`: each BAR placed ("128 GiB at +0        BAR1  0000:18:00.0
/// (H100 PCIe)  [lspci FILE:LINE]"), the packed total, what the BARs need, KB 323402's figure
/// and whom it sizes, NVIDIA's floors, "=> pciPassthru.64bitMMIOSizeGB = N", and what was not
/// counted.
std::vector<std::string> mmio_lines(const pci::MmioResult& result);

/// Why a BAR without space matters, naming its dmesg line ("dmesg FILE:LINE: the kernel found no
/// space for BAR1 (128G, 64-bit) of 0000:3b:00.0 (H100 PCIe): in a VM the classic sign of ...").
std::string unassigned_text(const pci::MmioUnassigned& unassigned);

/// The line of one step of `result`.
std::string mmio_line(const pci::MmioResult& result, const pci::MmioStep& step);

}  // namespace vmxkit::checks
