// SPDX-License-Identifier: Apache-2.0
// The guest checks (GUEST001...): GPUDirect RDMA kernel path, what NCCL does at its defaults
// for each GPU and its nearest NIC, BAR1, ATS, ACS and links in the guest's lspci, drivers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/diagnostic.h"
#include "vmxkit/model/guest.h"

namespace vmxkit::guest {

/// One entry of the guest check table.
struct CheckInfo {
  std::string_view id;    ///< "GUEST001"; never reused
  std::string_view name;  ///< "gdr-kernel-path"
  Severity severity = Severity::warning;
  std::string_view summary;
  std::string_view source;  ///< where the fact the check rests on comes from
};

/// The guest checks, sorted by id.
const std::vector<CheckInfo>& checks();
/// The entry for an id, or nullptr.
const CheckInfo* find_check(std::string_view id);
/// `docs/guest-check.md#guest001-gdr-kernel-path`.
std::string check_doc(const CheckInfo& info);

/// One finding about the guest, with the command or setting that fixes it.
struct Finding {
  std::string_view id;
  std::string_view name;
  Severity severity = Severity::warning;
  std::string subject;  ///< the device (BDF) or module it is about; empty for the guest
  std::string message;
  std::string fix;    ///< empty when none
  pci::Origin where;  ///< the input line it rests on, when one does
};

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

/// Each GPU and its nearest NIC as NCCL sees them: from the guest's lspci tree, or with `topo`
/// from the tree NCCL builds from that file and the guest (nccl_guest_view).
std::vector<NcclPair> nccl_view(const Guest& g, const NcclTopoInput* topo = nullptr);

/// Runs every check; problems first (errors, warnings), then infos: the versions found and,
/// as GUEST012 "not checked (needs: ...)", each check the inputs could not answer. With `topo`,
/// also checks that file against the guest (GUEST015).
std::vector<Finding> check_guest(const Guest& g, const NcclTopoInput* topo = nullptr);

}  // namespace vmxkit::guest
