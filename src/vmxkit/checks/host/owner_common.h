// SPDX-License-Identifier: Apache-2.0
// What HOST005, HOST006 and HOST007 share: ESXi's ownership of the host's GPUs and RDMA NICs.
#pragma once

#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {

/// Reports, for each GPU and RDMA NIC whose ESXi ownership for DirectPath I/O has `problem`,
/// a finding of `check`.
void report_owner_problems(const HostContext& ctx, FindingSink& sink, const Check& check,
                           pci::OwnerProblem problem);

}  // namespace vmxkit::checks
