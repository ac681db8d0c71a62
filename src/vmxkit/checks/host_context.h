// SPDX-License-Identifier: Apache-2.0
// What the host checks (checks/host/) look at, and the run of all of them (`vmxkit host-check`).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "vmxkit/analysis/readiness.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/formats/host/cmdline.h"
#include "vmxkit/model/host.h"

namespace vmxkit::checks {

/// One host and what its inputs say about it, built once for all host checks.
class HostContext {
 public:
  /// `kind` unknown: detected from the inputs (pci::detect_host_kind).
  HostContext(const pci::Host& host, const std::optional<pci::KernelCmdline>& cmdline,
              pci::HostKind kind);

  const pci::Host& host() const { return host_; }
  const std::optional<pci::KernelCmdline>& cmdline() const { return cmdline_; }
  pci::HostKind kind() const { return kind_; }
  /// What the inputs show (never bare metal), whatever was given.
  pci::HostKind detected() const { return detected_; }
  /// ESXi has no GRUB and no kernel command line for the IOMMU (VT-d / AMD-Vi is in the firmware).
  bool esxi() const { return kind_ == pci::HostKind::esxi; }
  /// The GPU/NIC matrix of the host, computed on first use.
  const pci::Topology& topology() const;

 private:
  const pci::Host& host_;
  const std::optional<pci::KernelCmdline>& cmdline_;
  pci::HostKind kind_;
  pci::HostKind detected_;
  mutable std::unique_ptr<pci::Topology> topology_;
};

/// The host readiness checks for GPUDirect RDMA and SR-IOV (every check of kind host, in id
/// order): the host's kind, IOMMU on the kernel command line (when given), ESXi passthrough
/// ownership of GPUs and RDMA NICs, SR-IOV VFs, ATS, ACS on the GPU/NIC paths, what the inputs
/// could not answer (HOST013) and the loaders' warnings (HOST014).
std::vector<Finding> check_host(const pci::Host& host,
                                const std::optional<pci::KernelCmdline>& cmdline,
                                pci::HostKind kind = pci::HostKind::unknown);

}  // namespace vmxkit::checks
