// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/pci/host.h"

namespace vmxkit::pci {

/// nvidia-smi `topo -m` path classes, closest first.
enum class PathClass : unsigned char {
  self,     ///< X: the same function
  pix,      ///< at most a single PCIe bridge (one switch)
  pxb,      ///< several bridges, below the host bridge
  phb,      ///< through one PCIe host bridge
  node,     ///< between host bridges of one NUMA node
  sys,      ///< across the SMP interconnect between NUMA nodes
  unknown,  ///< NODE or SYS (no NUMA node known), or a device the inputs could not place
};
/// "X", "PIX", "PXB", "PHB", "NODE", "SYS", "?".
std::string_view to_string(PathClass cls);

/// How two devices reach each other.
struct Path {
  PathClass cls = PathClass::unknown;
  std::vector<std::size_t> bridges;        ///< bridges on the path: up from a, then down to b
  std::optional<std::size_t> common;       ///< lowest common bridge, when below the host bridge
  unsigned switches = 0;                   ///< switch levels crossed (upstream ports on the path)
  std::vector<std::size_t> acs_redirect;   ///< bridges on the path whose ACSCtl redirects P2P
  std::string detail;                      ///< why this class ("different host bridges ...")
};

/// Classifies the path between devices `a` and `b` (indices in host.devices()).
Path classify(const Host& host, std::size_t a, std::size_t b);

/// GPUDirect/P2P verdict for a pair.
enum class Verdict : unsigned char { ok, degraded, unsupported };
std::string_view to_string(Verdict verdict);

/// Why a pair is not simply ok (or, for `path`, why it is).
enum class ReasonKind : unsigned char {
  path,               ///< the path class
  path_unknown,       ///< NODE vs SYS cannot be told
  acs_redirect,       ///< a bridge on the path redirects P2P to the root complex
  gpu_no_gdr,         ///< the GPU model has no GPUDirect RDMA/P2P (GeForce)
  nic_no_gdr,         ///< the NIC has no GPUDirect RDMA
  gdr_unknown,        ///< support of a device is not known
  small_bar1,         ///< a 256 MiB BAR1 limits GPUDirect RDMA mappings
  iommu_translating,  ///< the IOMMU translates (not off / pass-through) on bare metal
  vf,                 ///< the NIC is an SR-IOV virtual function
  ats_disabled,       ///< ATS off on the NIC: in a VM with ACS on, P2P goes via the root complex
};
std::string_view to_string(ReasonKind kind);

struct Reason {
  ReasonKind kind = ReasonKind::path;
  Verdict effect = Verdict::ok;  ///< the worst verdict this reason alone leads to
  std::string text;
  std::string fix;  ///< a command or setting that fixes it, when there is one
};

struct PairVerdict {
  std::size_t a = 0;
  std::size_t b = 0;
  Path path;
  Verdict verdict = Verdict::ok;
  std::vector<Reason> reasons;
};

/// Facts about the host that are not in the PCI inputs.
struct AnalysisOptions {
  /// The IOMMU translates DMA (on, not pass-through); nullopt = not known.
  std::optional<bool> iommu_translating;
  bool all_nics = false;  ///< list every NIC, not only RDMA-capable ones
};

/// Verdict for one GPU<->NIC or GPU<->GPU pair.
PairVerdict judge_pair(const Host& host, std::size_t a, std::size_t b, const AnalysisOptions& options);

/// The GPU/NIC matrix like `nvidia-smi topo -m`: GPUs and NICs in PCI address order, every pair.
struct Topology {
  std::vector<std::size_t> gpus;
  std::vector<std::size_t> nics;
  /// Indexed [row][col] over gpus then nics.
  std::vector<std::vector<PathClass>> matrix;
  /// GPU<->GPU and GPU<->NIC pairs, GPU pairs first.
  std::vector<PairVerdict> pairs;
  /// Per GPU (same order as gpus): index into nics of the best NIC, if any.
  std::vector<std::optional<std::size_t>> best_nic;

  /// The label of row/column i ("GPU0", "NIC1").
  std::string label(std::size_t i) const;
  std::size_t size() const { return gpus.size() + nics.size(); }
  std::size_t device(std::size_t i) const { return i < gpus.size() ? gpus[i] : nics[i - gpus.size()]; }
};

Topology analyze(const Host& host, const AnalysisOptions& options);

/// The matrix and legends in the layout of `nvidia-smi topo -m` (tabs, `X` cells, CPU/NUMA
/// affinity columns, `Legend:` and `NIC Legend:`), then the verdicts and the best NIC per GPU.
std::string render_topology_text(const Host& host, const Topology& topo);

}  // namespace vmxkit::pci
