// SPDX-License-Identifier: Apache-2.0
// Helpers for the pci tests: hosts from text, matrices as cells.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vmxkit/pci/host.h"
#include "vmxkit/pci/topology.h"

namespace vmxkit::test {

/// A host from (name, text) inputs, each loaded as one HOST file would be.
pci::Host host_from(const std::vector<std::pair<std::string, std::string>>& inputs);

/// The square part of a `nvidia-smi topo -m` style matrix: labels and cells, whitespace split.
struct Cells {
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> rows;
};
Cells matrix_cells(const std::string& text);

/// A constructed `lspci -vvv -nn -D` capture with `devices` devices (a multiple of 256): one
/// domain per 256 devices (NUMA node = domain / 8), each a root port, one switch with 32
/// downstream ports, 4 GPUs, 4 ConnectX-7 and NVMe drives filling the rest.
std::string scale_host_text(unsigned devices);

}  // namespace vmxkit::test
