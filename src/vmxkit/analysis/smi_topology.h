// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m` as a host input: verdicts from the matrix alone, and where it and the
// PCI inputs disagree.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"
#include "vmxkit/model/smi_topo.h"

namespace vmxkit::pci {

/// The class of a `nvidia-smi topo -m` cell: X, PIX, PXB, PHB, NODE, SYS (and SOC, the name
/// drivers before NODE existed gave SYS); nullopt for `NV#` and anything else.
std::optional<PathClass> parse_path_class(std::string_view cell);

/// A GPU<->GPU or GPU<->NIC pair of the matrix, judged by its cell alone.
struct SmiPairVerdict {
  std::size_t a = 0;  ///< label indices of SmiTopo
  std::size_t b = 0;
  std::string cell;  ///< as printed: "NV18", "PIX", "SYS"
  Verdict verdict = Verdict::ok;
  std::vector<Reason> reasons;
};

/// What a host known only from `nvidia-smi topo -m` gives: each pair's verdict by its class or
/// NVLink, the best NIC per GPU, and what the matrix cannot tell.
struct SmiMatrixVerdicts {
  std::vector<SmiPairVerdict> pairs;  ///< GPU pairs first, then GPU<->NIC
  /// Per GPU label (in label order): the label index of its nearest NIC, when it has one.
  std::vector<std::optional<std::size_t>> best_nic;
  /// What the matrix does not carry, each with the input that would tell it.
  std::vector<std::string> not_known;
};

/// Judges every GPU<->GPU and GPU<->NIC pair of the matrix as topo judges a PCI host's, from the
/// class alone: NV# and PIX/PXB ok, PHB/NODE degraded, SYS unsupported, other text unknown.
SmiMatrixVerdicts judge_smi_matrix(const SmiTopo& topo);

/// Warnings about a host with both `nvidia-smi topo -m` and PCI inputs: GPU counts that differ
/// (nothing matched), and each matched pair whose class in the matrix is not the class the PCI
/// tree gives (at most `limit`, then how many more).
std::vector<std::string> smi_warnings(const Host& host, std::size_t limit = 12);

/// Whether the host is known from `nvidia-smi topo -m` alone: a matrix, and no GPU or RDMA NIC
/// from a PCI input.
bool smi_only(const Host& host);

}  // namespace vmxkit::pci
