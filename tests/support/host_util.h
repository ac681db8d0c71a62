// SPDX-License-Identifier: Apache-2.0
// Helpers for the pci tests: hosts from text, matrices as cells.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"

namespace vmxkit::test {

/// A host from (name, text) inputs, each loaded as one HOST file would be.
/// One host bridge (root bus rb, NUMA node numa) with a root port and a switch, as
/// `lspci -vvv -nn -D` text; below the switch one device per entry of `endpoints` ("gpu", an
/// H100 PCIe; "gpu-geforce", "gpu-small-bar" (RTX A6000), "gpu-l40s", "gpu-a30", "gpu-sxm"
/// (H100 SXM5 80GB), "nic", "nic-ats-off"). `acs` sets ACSCtl on the switch's downstream ports.
std::string socket(unsigned rb, int numa, const std::vector<std::string>& endpoints,
                   bool acs = false);

pci::Host host_from(const std::vector<std::pair<std::string, std::string>>& inputs);

/// The square part of a `nvidia-smi topo -m` style matrix: labels and cells, whitespace split.
struct Cells {
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> rows;
};
Cells matrix_cells(const std::string& text);

/// A capture of the shared topology corpus with its expected `nvidia-smi topo -m` matrix, as
/// described by `tests/data/pci/corpus/<capture>.expected` (which lines are which input).
struct CorpusCapture {
  std::vector<std::pair<std::string, std::string>> inputs;  ///< (name:line, text) per input
  std::string expected;      ///< the expected matrix as written in the .expected file
  std::string matrix_lines;  ///< the capture's own matrix lines the .expected file names
};
/// The GPU-server captures of the corpus topology folder (each with the nvidia-smi matrix of its
/// machine), sorted, without their .source.txt files.
std::vector<std::filesystem::path> corpus_captures();
/// The `esxcli hardware pci list` captures of the corpus topology folder (no matrix), sorted.
std::vector<std::filesystem::path> corpus_esxcli_captures();
/// Reads a capture's .expected file and cuts the inputs out of the capture. Fails the test
/// (REQUIRE) when the .expected file is missing or names lines the capture does not have.
CorpusCapture load_corpus_capture(const std::filesystem::path& capture);

/// A constructed `lspci -vvv -nn -D` capture with `devices` devices (a multiple of 256): one
/// domain per 256 devices (NUMA node = domain / 8), each a root port, one switch with 32
/// downstream ports, 4 GPUs, 4 ConnectX-7 and NVMe drives filling the rest.
std::string scale_host_text(unsigned devices);

/// The `lspci -vvv -nn -D` host of bench/ratios.py write_lspci(): `gpus` H100s, each under its
/// own root port, 127 per domain, NUMA node alternating 0 and 1.
std::string gpu_farm_text(unsigned gpus);

}  // namespace vmxkit::test
