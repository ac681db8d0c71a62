// SPDX-License-Identifier: Apache-2.0
// What the guest checks (checks/guest/) look at, and the run of all of them
// (`vmxkit guest-check`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/model/guest.h"

namespace vmxkit::checks {

/// One guest and what its inputs say about it, built once for all guest checks: its GPUs and
/// RDMA NICs, the NCCL topology file it runs with (when given) and NCCL's view, computed once.
class GuestContext {
 public:
  /// `nccl_topo`: the file given with `--nccl-topo`, or nullptr; `nccl_dump`: the guest's
  /// NCCL_TOPO_DUMP_FILE (Guest::nccl_topo_dump()) read, or nullptr. All must outlive the context.
  explicit GuestContext(const guest::Guest& guest, const guest::NcclTopoInput* nccl_topo = nullptr,
                        const guest::NcclTopoInput* nccl_dump = nullptr);

  const guest::Guest& guest() const { return guest_; }
  /// The guest's PCI tree (its lspci).
  const pci::Host& pci() const { return guest_.pci(); }
  /// Indices in pci().devices() of the GPUs and of the RDMA NICs and VFs (guest::is_guest_gpu,
  /// guest::is_guest_rdma_nic), in PCI order.
  const std::vector<std::size_t>& gpus() const { return gpus_; }
  const std::vector<std::size_t>& nics() const { return nics_; }
  /// Whether an input shows the guest's GPUs: a full lspci, or nvidia-smi.
  bool gpus_known() const { return guest_.has_full_lspci() || !guest_.smi_gpus().empty(); }
  const guest::NcclTopoInput* nccl_topo() const { return nccl_topo_; }
  /// The topology NCCL detected in the guest (NCCL_TOPO_DUMP_FILE), when given.
  const guest::NcclTopoInput* nccl_dump() const { return nccl_dump_; }
  /// Each GPU and its nearest NIC as NCCL sees them (guest::nccl_view), computed on first use.
  const std::vector<guest::NcclPair>& nccl_view() const;

  /// "0000:03:00.0 (H100 SXM5 80GB)".
  std::string describe(std::size_t device) const { return pci().describe(device); }
  /// The input line a device was read from (its first), or no origin.
  FindingOrigin origin_of(std::size_t device) const;

 private:
  const guest::Guest& guest_;
  const guest::NcclTopoInput* nccl_topo_;
  const guest::NcclTopoInput* nccl_dump_;
  std::vector<std::size_t> gpus_;
  std::vector<std::size_t> nics_;
  mutable std::unique_ptr<std::vector<guest::NcclPair>> nccl_view_;
};

/// An input line as a finding's origin.
FindingOrigin origin(const pci::Origin& where);

/// The guest checks for GPUDirect RDMA (every check of kind guest, in id order): the kernel path,
/// NCCL's view, BAR1, ATS, ACS and links in the guest's lspci, drivers, RDMA ports, versions and,
/// as GUEST012, each check the inputs could not answer. Problems first (errors, then warnings),
/// then infos; by check id within a severity (GUEST012's in the order of the checks they name).
std::vector<Finding> check_guest(const GuestContext& ctx);
/// The same for a guest and, when given, the topology file it runs NCCL with.
std::vector<Finding> check_guest(const guest::Guest& guest,
                                 const guest::NcclTopoInput* nccl_topo = nullptr,
                                 const guest::NcclTopoInput* nccl_dump = nullptr);

}  // namespace vmxkit::checks
