// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/host/owner_common.h"

#include <fmt/format.h>

#include "vmxkit/checks/owner_words.h"

namespace vmxkit::checks {

void report_owner_problems(const HostContext& ctx, FindingSink& sink, const Check& check,
                           pci::OwnerProblem problem) {
  for (const pci::Device& d : ctx.host().devices()) {
    if (d.role != pci::Role::gpu && d.role != pci::Role::rdma_nic) continue;
    const auto f = pci::esxi_owner_problem(d, pci::PassthroughUse::full);
    if (!f || f->problem != problem) continue;
    const std::string bdf = d.bdf.to_string();
    if (problem != pci::OwnerProblem::not_enabled) {
      sink.report(check, bdf, owner_message(*f), owner_fix(*f));
      continue;
    }
    // Which use the device is meant for is not known here: with the VMkernel is right for vGPU
    // and SR-IOV PFs, and needed to be changed only for DirectPath I/O.
    sink.report(check, bdf,
                fmt::format("{} is not enabled for passthrough ({}): right for {}, needed for "
                            "DirectPath I/O",
                            bdf, pci::esxi_passthrough(d)->said,
                            d.role == pci::Role::gpu ? "vGPU" : "SR-IOV VFs"),
                owner_fix(*f));
  }
}

}  // namespace vmxkit::checks
