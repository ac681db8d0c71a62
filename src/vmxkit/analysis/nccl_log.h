// SPDX-License-Identifier: Apache-2.0
// What NCCL decided in a guest, as data: its log's GPU Direct RDMA decisions with their numbers
// named (the numbers of NCCL's path types changed with its versions), the guest devices the log
// names, how its channels crossed the network, and where NCCL's own path types (its log, its
// NCCL_TOPO_DUMP_FILE) differ from the ones vmxkit computes from the guest's lspci
// (nccl_view.h). The GUEST016-GUEST020 checks judge it.
//
// Facts from NCCL's source (github NVIDIA/nccl, tags v2.6.4-1 to v2.30.7-1, commit 5067397c):
// topoPathTypeStr and PATH_* (src/graph/paths.cc, src/graph/topo.h, src/include/graph.h),
// ncclTopoCheckGdr (paths.cc), int64ToBusId (src/misc/utils.cc); docs/guest-check.md.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/model/guest.h"

namespace vmxkit::guest {

/// NCCL's version as its log gives it (`2.21.5+cuda12.4` -> {2, 21, 5}), or nullopt.
std::optional<std::array<unsigned, 3>> nccl_log_version(const NcclLog& log);

/// The path type that a number in NCCL's log (`distance 8 > 5`) stands for in that version of
/// NCCL, or nullopt when the version is not known or the number is none of its types.
std::optional<NcclPathType> nccl_log_path_type(const std::optional<std::array<unsigned, 3>>& v,
                                               int number);

/// NCCL's default NCCL_NET_GDR_LEVEL: PXB since 2.8 (`netGdrLevel = PATH_PXB`, paths.cc).
inline constexpr NcclPathType kNcclDefaultGdrLevel = NcclPathType::pxb;

/// A guest device from NCCL's int64 bus id in hex as its log prints it (`1b000` is
/// 0000:1b:00.0, int64ToBusId), or nullopt.
std::optional<std::size_t> nccl_log_bus_device(const Guest& g, std::string_view hex);

/// One `GPU Direct RDMA Disabled|Enabled for GPU ... (distance D > L)` line, interpreted.
struct NcclGdrDecision {
  const NcclGdrLine* line = nullptr;
  std::optional<NcclPathType> distance;  ///< named, when the log gives NCCL's version
  std::optional<NcclPathType> level;
  std::optional<std::size_t> gpu_index;  ///< the guest GPU, when the log lets it be told
  std::optional<unsigned> hca_index;     ///< NCCL's net device index of the HCA
  std::string nic_name;                  ///< `mlx5_0`, from the log's `NET/IB : Using` list
  const Fact* level_override = nullptr;  ///< `NCCL_NET_GDR_LEVEL set by environment to ...`
};
/// The log's decisions, in its order (one per GPU and HCA: the first line of each pair).
std::vector<NcclGdrDecision> nccl_gdr_decisions(const Guest& g);

/// How the log's channels crossed the network.
struct NcclNetUse {
  std::vector<const NcclChannelLine*> with_gdr;     ///< `via NET/IB/0/GDRDMA`
  std::vector<const NcclChannelLine*> without_gdr;  ///< `via NET/IB/0`
  std::vector<const NcclChannelLine*> socket;       ///< `via NET/Socket/0`
  std::size_t other = 0;                            ///< P2P, SHM, CollNet
};
NcclNetUse nccl_net_use(const NcclLog& log);

/// The guest GPU a NET channel line's local end is (`[send]`: the first, `[receive]`: the
/// second): through the log's Init lines (rank, nvmlDev, busId) or a bus id printed in the
/// brackets (NCCL before 2.18.3); nullopt when the log does not say.
std::optional<std::size_t> nccl_channel_gpu(const Guest& g, const NcclChannelLine& c);

/// A GPU and NIC whose path type NCCL computed otherwise than vmxkit from the guest's lspci.
struct NcclPathDiff {
  std::size_t gpu_index = 0;
  std::size_t nic_index = 0;
  NcclPathType nccl = NcclPathType::dis;
  pci::PathClass vmxkit = pci::PathClass::unknown;
  bool from_dump = false;  ///< NCCL's NCCL_TOPO_DUMP_FILE, else its log's distance
  pci::Origin where;       ///< the dump's `<pci>` of the NIC, or the log's line
};

/// The pairs of `view` (GPU and nearest NIC from lspci) whose path type in NCCL's dump differs.
std::vector<NcclPathDiff> nccl_dump_path_diffs(const Guest& g, const NcclTopoInput& dump,
                                               const std::vector<NcclPair>& view);
/// The pairs of `view` whose path type in the log's decisions (`distance D`) differs. The
/// decision's HCA is the pair's NIC by name, or, where no input names the guest's NICs, by
/// its index among the guest's RDMA NICs in PCI order (the order mlx5 registers them, which
/// NCCL's IB plugin keeps).
std::vector<NcclPathDiff> nccl_log_path_diffs(const Guest& g,
                                              const std::vector<NcclGdrDecision>& decisions,
                                              const std::vector<NcclPair>& view);

/// The path class NCCL's path type is (pix, pxb, phb, sys), or unknown for NVLink, PXN, C2C...
pci::PathClass class_of_nccl(NcclPathType t);

}  // namespace vmxkit::guest
