// SPDX-License-Identifier: Apache-2.0
// NCCL's view inside a guest, as data: for each GPU the nearest RDMA NIC and the path class NCCL
// computes between them, from the guest's lspci tree, from `nvidia-smi topo -m`, or from the tree
// NCCL builds from a topology file and the guest. `vmxkit guest-check` prints it and GUEST002
// judges it; both read the one view (checks::GuestContext::nccl_view).
//
// Facts from NCCL's source, github NVIDIA/nccl commit 5067397c (2.30.7): src/graph/xml.cc
// ncclTopoGetXmlFromSys, src/graph/paths.cc ncclTopoSetPaths and ncclTopoCheckGdr;
// docs/guest-check.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/guest.h"

namespace vmxkit::guest {

/// A GPU as guest-check counts it: the pci module's role, or, where a plain `lspci` (without -nn)
/// gave no ids, a display controller lspci names "NVIDIA Corporation".
bool is_guest_gpu(const pci::Device& d);
/// An RDMA NIC or a VF of one, as guest-check counts it: the pci module's roles, or, without
/// ids, a network controller lspci names "Mellanox Technologies".
bool is_guest_rdma_nic(const pci::Device& d);

/// The path class NCCL computes between two devices of the guest's PCI tree (its
/// ncclTopoGetXmlFromSys/ncclTopoSetPaths): nvidia-smi's NODE is PHB for NCCL; devices on root
/// buses with no NUMA node are under one CPU node (numaid -1), hence PHB.
pci::PathClass nccl_path_class(const pci::Host& host, std::size_t a, std::size_t b);

/// What NCCL will do for one GPU and its nearest NIC.
struct NcclPair {
  std::optional<std::size_t> gpu_index;  ///< in the guest's pci().devices(), from lspci
  std::optional<std::size_t> nic_index;
  std::string gpu_label;  ///< "GPU0" of nvidia-smi topo -m, when there is no lspci
  std::string nic_label;  ///< "NIC0"
  std::string nic_name;   ///< "mlx5_0" when an input says
  pci::PathClass cls = pci::PathClass::unknown;
  bool from_smi_topo = false;   ///< the class is from `nvidia-smi topo -m`, not from lspci
  bool from_nccl_topo = false;  ///< the class is NCCL's with the topology file given
  bool gdr = false;             ///< within NCCL's default NCCL_NET_GDR_LEVEL (PXB)
};

/// A topology file given to guest-check (`--nccl-topo FILE`), read.
struct NcclTopoInput {
  std::string path;
  NcclTopoTree tree;
};

/// Each GPU and its nearest NIC as NCCL sees them (smallest path class, then PCI order): from the
/// guest's lspci tree, else `nvidia-smi topo -m`; with `topo`, from the tree NCCL builds from that
/// file and the guest (nccl_guest_view) for the devices NCCL places by it. Empty where no input
/// places a pair, and where a capture shows NCCL running with an NCCL_TOPO_FILE that `topo` is
/// not: NCCL's view then depends on that file.
std::vector<NcclPair> nccl_view(const Guest& g, const NcclTopoInput* topo = nullptr);

}  // namespace vmxkit::guest
