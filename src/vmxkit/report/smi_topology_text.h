// SPDX-License-Identifier: Apache-2.0
// topo's report of a host known only from `nvidia-smi topo -m`: text and JSON.
#pragma once

#include <string>

#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/report/json.h"

namespace vmxkit::report {

/// The matrix as read (with the affinity columns and legends), what it cannot tell, each pair's
/// verdict and the best NIC per GPU, in the layout of topo's report of a PCI host.
std::string smi_topology_text(const pci::SmiTopo& topo, const pci::SmiMatrixVerdicts& verdicts);

/// The same as data: labels, matrix cells as printed, pairs, best NICs, `not_known`.
Json smi_topology_json(const pci::SmiTopo& topo, const pci::SmiMatrixVerdicts& verdicts);

}  // namespace vmxkit::report
