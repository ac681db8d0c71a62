// SPDX-License-Identifier: Apache-2.0
// `vmxkit topo`'s text: a host's GPU/NIC analysis as `nvidia-smi topo -m` prints its matrix.
#pragma once

#include <string>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"

namespace vmxkit::report {

/// The matrix and legends in the layout of `nvidia-smi topo -m` (tabs, `X` cells, CPU/NUMA
/// affinity columns, `Legend:` and `NIC Legend:`), then the verdicts and the best NIC per GPU.
/// A `listed` topology prints its note and each GPU's nearest peers in place of the matrix and
/// the verdicts.
std::string render_topology_text(const pci::Host& host, const pci::Topology& topo);

}  // namespace vmxkit::report
