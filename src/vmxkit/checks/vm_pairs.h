// SPDX-License-Identifier: Apache-2.0
// The VM's passthrough devices placed on the --host capture, and the GPU<->peer pairs among
// them with their P2P verdicts; shared by the TOPO rules.
#pragma once

#include <optional>
#include <vector>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/checks/context.h"

namespace vmxkit::checks {

/// The host device a passthrough entry names: `id` for DirectPath and SR-IOV VF entries (the
/// PF), in the .vmx decimal form or the hex form. nullopt without a host or address.
std::optional<std::size_t> host_device(const Context& ctx, const VmDevice& v);

/// Where a device entry names its host device (the `id` value), for diagnostics.
SourceSpan id_span(const Context& ctx, const VmDevice& v);

struct PeerPair {
  const VmDevice* gpu = nullptr;
  const VmDevice* peer = nullptr;  ///< a NIC (or VF) or another GPU
  pci::PairVerdict verdict;
};

/// The pairs of the VM whose devices are on the host and that P2P traffic uses, when the VM is
/// meant for P2P (Context::wants_p2p()): every GPU<->GPU pair, and each GPU with its nearest
/// NICs in the VM (those at its lowest path class), as NCCL pairs a GPU only with its local
/// NICs (`ncclTopoGetLocalNet` in `src/graph/search.cc`). A NIC nearer to another GPU is not
/// judged against this one: in a rail-aligned VM every GPU has its own.
std::vector<PeerPair> peer_pairs(const Context& ctx);

struct HostNic {
  std::size_t index = 0;                         ///< into the host's devices
  pci::PathClass cls = pci::PathClass::unknown;  ///< its path to the GPU
};

/// The RDMA NIC (physical function) of the host nearest to the host device of `gpu`, or nullopt
/// (no host, no address, no RDMA NIC): what the VM could have instead of what it has.
std::optional<HostNic> nearest_host_nic(const Context& ctx, const VmDevice& gpu);

/// Reports a pair at the peer's address with a note at the GPU's, and the command that fixes it
/// as a display-only fix when there is one.
void report_pair(const Context& ctx, Sink& sink, const Check& rule, const PeerPair& p,
                 std::string message, const std::string& fix = {});

/// The reasons of a pair of one kind.
std::vector<const pci::Reason*> reasons_of(const PeerPair& p, pci::ReasonKind kind);

}  // namespace vmxkit::checks
