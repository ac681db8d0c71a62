// SPDX-License-Identifier: Apache-2.0
// The words of a pair verdict's reasons (pci::Reason, data): one sentence that says why, and the
// command or setting that fixes it. topo's text and JSON, generate's plan and the public API's
// PairReason all say a reason in these words.
#pragma once

#include <string>

#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"
#include "vmxkit/model/smi_topo.h"

namespace vmxkit::report {

/// Why `reason` (one of `verdict`'s, judged on `host`) bears on the pair: the path's class and
/// detail, the devices by address and model, the bridges and their ACSCtl, the BAR1 size, the
/// NVLink count and the `nvidia-smi topo -m` it comes from.
std::string reason_text(const pci::Host& host, const pci::PairVerdict& verdict,
                        const pci::Reason& reason);

/// The command or setting that fixes `reason`; empty when there is none. Some reasons that do
/// not worsen the verdict have one too (a GPU model not in the catalogue): a report that prints
/// only what to fix skips those.
std::string reason_fix(const pci::Host& host, const pci::PairVerdict& verdict,
                       const pci::Reason& reason);

/// The same for a pair of a host known only from `nvidia-smi topo -m`: said by the pair's cell
/// ("PIX", "NV18") and the matrix's labels.
std::string reason_text(const pci::SmiTopo& topo, const pci::SmiPairVerdict& verdict,
                        const pci::Reason& reason);
std::string reason_fix(const pci::SmiTopo& topo, const pci::SmiPairVerdict& verdict,
                       const pci::Reason& reason);

}  // namespace vmxkit::report
