// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/model/host.h"

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

/// Where two devices meet, which decides their path's class.
enum class PathKind : unsigned char {
  self,          ///< the same function
  one_device,    ///< functions of one device
  below_bridge,  ///< below a common bridge (Path::common), across Path::switches switch levels
  unplaced,      ///< Path::device is not placed in the tree
  host_bridge,   ///< through one host bridge (Path::roots[0])
  /// Between two host bridges (Path::roots), on NUMA nodes Path::numa; when one is not known
  /// (class unknown: NODE or SYS), Path::device is the first device of the pair without one.
  host_bridges,
};

/// How two devices reach each other: the class and the facts it rests on, which the report
/// words (checks::path_detail).
struct Path {
  PathClass cls = PathClass::unknown;
  PathKind kind = PathKind::self;
  std::vector<std::size_t> bridges;       ///< bridges on the path: up from a, then down to b
  std::optional<std::size_t> common;      ///< lowest common bridge, when below the host bridge
  unsigned switches = 0;                  ///< switch levels crossed (upstream ports on the path)
  std::vector<std::size_t> acs_redirect;  ///< bridges on the path whose ACSCtl redirects P2P
  /// host_bridge, host_bridges: the host bridges (indices into Host::roots()) of a, then b.
  std::array<std::size_t, 2> roots{};
  /// host_bridges: the NUMA nodes of a and b (the device's own, else its host bridge's).
  std::array<std::optional<int>, 2> numa;
  /// unplaced: the device not in the tree; host_bridges: the device without a NUMA node.
  std::optional<std::size_t> device;
};

/// Classifies the path between devices `a` and `b` (indices in host.devices()).
Path classify(const Host& host, std::size_t a, std::size_t b);

/// The ACS redirect of `path` (classify(host, a, b)) does not stop the pair's peer transfers:
/// every redirecting bridge has ACS Direct Translated P2P on (`DirectTrans+`) and every device
/// that starts them (the NIC of a GPU and a NIC, both GPUs of a pair) has ATS on, so their
/// translated requests go peer to peer, as in NVIDIA's VM configuration. False when nothing
/// redirects.
bool acs_redirect_bypassed(const Host& host, std::size_t a, std::size_t b, const Path& path);

/// classify(host, a, b).cls without the path's details: walks up from both devices to their
/// lowest common bridge (O(tree depth)) and allocates nothing.
PathClass path_class(const Host& host, std::size_t a, std::size_t b);

/// GPUDirect/P2P verdict for a pair.
enum class Verdict : unsigned char { ok, degraded, unsupported };
std::string_view to_string(Verdict verdict);

/// Why a pair is not simply ok (or, for `path`, why it is).
enum class ReasonKind : unsigned char {
  path,          ///< the path class
  path_unknown,  ///< NODE vs SYS cannot be told
  acs_redirect,  ///< a bridge on the path redirects P2P to the root complex
  /// ACS redirects on the path, but DirectTrans there lets the initiator's translated requests
  /// (ATS on) go peer to peer: NVIDIA's VM configuration, not a problem.
  acs_direct_translated,
  gpu_no_gdr,         ///< the GPU model has no GPUDirect RDMA/P2P (GeForce)
  nic_no_gdr,         ///< the NIC has no GPUDirect RDMA
  gdr_unknown,        ///< support of a device is not known
  small_bar1,         ///< a 256 MiB BAR1 limits GPUDirect RDMA mappings
  iommu_translating,  ///< the IOMMU translates (not off / pass-through) on bare metal
  vf,                 ///< the NIC is an SR-IOV virtual function
  ats_disabled,       ///< ATS off on the NIC: in a VM with ACS on, P2P goes via the root complex
  /// The GPU pair is joined by NVLink (`NV#` in `nvidia-smi topo -m`): P2P goes over it, which
  /// NCCL prefers to any PCIe path (PATH_NVL), so the PCIe path does not limit it.
  nvlink,
};
std::string_view to_string(ReasonKind kind);

/// What a pair's peer transfers are: GPUDirect RDMA between a GPU and a NIC, GPU P2P between two
/// GPUs.
enum class Traffic : unsigned char { gpudirect_rdma, gpu_p2p };

/// NCCL's P2P level on AMD CPUs as it bears on a GPU pair through the CPU (a `path` reason of
/// class PHB, NODE or SYS): NCCL allows GPU P2P up to SYS when the CPU is AMD and it sees at
/// most 2 GPUs, else up to PXB (src/graph/paths.cc, ncclTopoCheckP2p).
enum class AmdTwoGpus : unsigned char {
  no,           ///< does not bear on the pair
  used,         ///< AMD and at most 2 GPUs: NCCL uses the P2P through the CPU all the same
  own_vm,       ///< AMD but more GPUs: a VM of these 2 GPUs alone would get the P2P
  cpu_unknown,  ///< the CPU vendor is not known (nvidia-smi topo -m alone): it may apply
};

/// One reason of a pair's verdict, as data: what it is, its effect, and the facts that say it
/// (report::reason_text and report::reason_fix word it). The path's class, detail and
/// redirecting bridges are the pair's (PairVerdict::path).
struct Reason {
  ReasonKind kind = ReasonKind::path;
  Verdict effect = Verdict::ok;               ///< the worst verdict this reason alone leads to
  Traffic traffic = Traffic::gpudirect_rdma;  ///< the pair's transfers
  /// The device it is about (index into Host::devices()): the GPU or NIC of gpu_no_gdr,
  /// nic_no_gdr, gdr_unknown, small_bar1 and vf; for ats_disabled the NIC whose ATS is off (a
  /// VF's PF). nullopt for reasons about the path.
  std::optional<std::size_t> subject;
  std::optional<std::size_t> pf;  ///< vf: the VF's physical function, when the inputs name it
  /// acs_direct_translated: the devices that start the pair's peer transfers (the NIC of a GPU
  /// and a NIC, or its PF; both GPUs of a pair), whose translated requests pass the redirect.
  std::vector<std::size_t> initiators;
  std::uint64_t bar1_bytes = 0;  ///< small_bar1: the GPU's BAR1 size
  unsigned nvlinks = 0;          ///< nvlink: bonded links between the GPUs
  /// path (PXB): NCCL merges the two levels of this Broadcom PEX switch and sees PIX
  /// (ncclTopoFlattenBcmSwitches).
  bool bcm_flattened = false;
  AmdTwoGpus amd_two_gpus = AmdTwoGpus::no;  ///< path: NCCL's AMD rule
};

struct PairVerdict {
  std::size_t a = 0;
  std::size_t b = 0;
  Path path;  ///< the PCIe path, also for a pair joined by NVLink
  /// Bonded NVLinks between the two GPUs, per `nvidia-smi topo -m` (Host::nvlinks).
  std::optional<unsigned> nvlinks;
  Verdict verdict = Verdict::ok;
  std::vector<Reason> reasons;
};

/// Above this many GPUs and NICs together, analyze() lists each GPU's nearest peers instead of
/// the full matrix, whose cells and pair verdicts grow with the square of that number. Real
/// servers have at most about 16 GPUs and 16 NICs.
inline constexpr std::size_t kFullMatrixLimit = 64;
/// How many NICs, and how many GPU peers, that listing names for each GPU.
inline constexpr std::size_t kNearestPeers = 4;

/// Facts about the host that are not in the PCI inputs, and what to compute.
struct AnalysisOptions {
  /// The IOMMU translates DMA (on, not pass-through); nullopt = not known.
  std::optional<bool> iommu_translating;
  bool all_nics = false;  ///< list every NIC, not only RDMA-capable ones
  /// The full matrix and every pair's verdict whatever the host's size (`topo --matrix`).
  bool full_matrix = false;
  /// How many GPUs NCCL will see (a VM's, when judging its pairs); nullopt: the host's. NCCL
  /// allows GPU P2P up to SYS on AMD CPUs with at most 2 GPUs, else up to PXB.
  std::optional<std::size_t> nccl_gpus;
};

/// Verdict for one GPU<->NIC or GPU<->GPU pair.
PairVerdict judge_pair(const Host& host, std::size_t a, std::size_t b,
                       const AnalysisOptions& options);

/// A square matrix of path classes, stored flat; `m[row][col]` and range-for over rows work.
class PathMatrix {
 public:
  PathMatrix() = default;
  explicit PathMatrix(std::size_t n) : n_(n), cells_(n * n, PathClass::unknown) {}
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  PathClass at(std::size_t row, std::size_t col) const { return cells_[row * n_ + col]; }
  void set(std::size_t row, std::size_t col, PathClass cls) { cells_[row * n_ + col] = cls; }
  std::span<const PathClass> operator[](std::size_t row) const {
    return std::span<const PathClass>(cells_).subspan(row * n_, n_);
  }

  class RowIterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::span<const PathClass>;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::span<const PathClass>;
    RowIterator() = default;
    RowIterator(const PathMatrix* m, std::size_t row) : m_(m), row_(row) {}
    std::span<const PathClass> operator*() const { return (*m_)[row_]; }
    RowIterator& operator++() {
      ++row_;
      return *this;
    }
    RowIterator operator++(int) {
      RowIterator old = *this;
      ++row_;
      return old;
    }
    bool operator==(const RowIterator& o) const { return row_ == o.row_; }

   private:
    const PathMatrix* m_ = nullptr;
    std::size_t row_ = 0;
  };
  RowIterator begin() const { return RowIterator(this, 0); }
  RowIterator end() const { return RowIterator(this, n_); }

 private:
  std::size_t n_ = 0;
  std::vector<PathClass> cells_;
};

/// A GPU's peer in the large-host listing.
struct Peer {
  std::size_t index = 0;               ///< into Topology::nics, or Topology::gpus for a GPU peer
  PathClass cls = PathClass::unknown;  ///< the PCIe class, also for a GPU joined by NVLink
  /// A GPU peer's bonded NVLinks per `nvidia-smi topo -m` (Host::nvlinks); nullopt: none.
  std::optional<unsigned> nvlinks;
  Verdict verdict = Verdict::ok;
};

/// A GPU's nearest NICs and GPU peers: up to kNearestPeers each, closest first. GPU peers joined
/// by NVLink in `nvidia-smi topo -m` come first (most links first, then PCI address), as NCCL
/// takes NVLink before any PCIe path; then, as NICs, by path class, then PCI address.
struct NearestPeers {
  std::vector<Peer> nics;
  std::vector<Peer> gpus;
};

/// The GPU/NIC matrix like `nvidia-smi topo -m`: GPUs and NICs in PCI address order, every pair.
/// A host with more than kFullMatrixLimit GPUs and NICs (unless AnalysisOptions::full_matrix)
/// gets `listed` instead: no matrix and no pairs, but each GPU's nearest peers.
struct Topology {
  std::vector<std::size_t> gpus;
  std::vector<std::size_t> nics;
  /// Indexed [row][col] over gpus then nics; empty when `listed`.
  PathMatrix matrix;
  /// Bonded NVLinks per cell, same indexing as `matrix` (0: none); empty when the host has no
  /// `nvidia-smi topo -m` matched to its GPUs. nvidia-smi prints such a cell as `NV#`.
  std::vector<unsigned> nvlinks;
  /// The cell's text as nvidia-smi prints it: `NV18` for an NVLink pair, else the class.
  std::string cell_text(std::size_t row, std::size_t col) const;
  /// GPU<->GPU and GPU<->NIC pairs, GPU pairs first; empty when `listed`.
  std::vector<PairVerdict> pairs;
  /// Per GPU (same order as gpus): index into nics of the best NIC, if any. When `listed`, the
  /// best of its nearest NICs.
  std::vector<std::optional<std::size_t>> best_nic;
  /// The host is too large for the full matrix: `nearest` holds what is listed instead.
  bool listed = false;
  /// Per GPU (same order as gpus), when `listed`.
  std::vector<NearestPeers> nearest;

  /// The label of row/column i ("GPU0", "NIC1").
  std::string label(std::size_t i) const;
  std::size_t size() const { return gpus.size() + nics.size(); }
  std::size_t device(std::size_t i) const {
    return i < gpus.size() ? gpus[i] : nics[i - gpus.size()];
  }
  /// The verdict of the pair GPU `gpu` <-> NIC `nic` (indices into gpus and nics), without
  /// `listed`.
  const PairVerdict& gpu_nic_pair(std::size_t gpu, std::size_t nic) const {
    return pairs[gpus.size() * (gpus.size() - 1) / 2 + gpu * nics.size() + nic];
  }
};

Topology analyze(const Host& host, const AnalysisOptions& options);

/// Each device's nearest devices among `candidates`, found without classifying every pair: the
/// index that lists a large host's nearest peers (Topology::listed), for a plan as large.
class PeerFinder {
 public:
  /// `candidates`: device indices of `host` in PCI address order.
  PeerFinder(const Host& host, std::vector<std::size_t> candidates);
  ~PeerFinder();
  PeerFinder(const PeerFinder&) = delete;
  PeerFinder& operator=(const PeerFinder&) = delete;
  /// Up to `k` candidates nearest to device `a` (never `a` itself), closest first (path class,
  /// then PCI address): each its class and its position in `candidates`.
  std::vector<std::pair<PathClass, std::size_t>> nearest(std::size_t a, std::size_t k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vmxkit::pci
