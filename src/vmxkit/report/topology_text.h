// SPDX-License-Identifier: Apache-2.0
// `vmxkit topo`'s text: a host's GPU/NIC analysis as `nvidia-smi topo -m` prints its matrix.
#pragma once

#include <string>

#include "vmxkit/analysis/nvlink_note.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"

namespace vmxkit::report {

/// The matrix and legends in the layout of `nvidia-smi topo -m` (tabs, `X` cells, CPU/NUMA
/// affinity columns, `Legend:` and `NIC Legend:`), then the verdicts and the best NIC per GPU.
/// A `listed` topology prints its note and each GPU's nearest peers in place of the matrix and
/// the verdicts.
std::string render_topology_text(const pci::Host& host, const pci::Topology& topo);

/// Why `topo` is `listed` (each GPU's nearest peers instead of the matrix): its size against
/// kFullMatrixLimit, and how to get the matrix. Empty when it is not listed.
std::string listing_note(const pci::Topology& topo);

/// One sentence for a note of pci::nvlink_notes(): the GPUs' addresses and model, what their
/// NVLink is (a bridge, or the baseboard's NVLink/NVSwitch), that the GPU<->GPU verdicts are
/// PCIe-only, how to include NVLink (`nvidia-smi topo -m` with --host), and the catalogue row's
/// NVLink source. `topo` prints it after the legends, `generate` after its pair verdicts.
std::string nvlink_note_text(const pci::Host& host, const pci::NvlinkNote& note);

}  // namespace vmxkit::report
