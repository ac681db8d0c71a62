// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/guest_context.h"

#include <algorithm>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {

GuestContext::GuestContext(const guest::Guest& guest, const guest::NcclTopoInput* nccl_topo,
                           const guest::NcclTopoInput* nccl_dump)
    : guest_(guest), nccl_topo_(nccl_topo), nccl_dump_(nccl_dump) {
  const pci::Host& h = guest.pci();
  for (std::size_t i = 0; i < h.devices().size(); ++i) {
    if (guest::is_guest_gpu(h.at(i))) gpus_.push_back(i);
    if (guest::is_guest_rdma_nic(h.at(i))) nics_.push_back(i);
  }
}

const std::vector<guest::NcclPair>& GuestContext::nccl_view() const {
  if (!nccl_view_) {
    nccl_view_ =
        std::make_unique<std::vector<guest::NcclPair>>(guest::nccl_view(guest_, nccl_topo_));
  }
  return *nccl_view_;
}

FindingOrigin GuestContext::origin_of(std::size_t device) const {
  const pci::Device& d = pci().at(device);
  return d.origins.empty() ? FindingOrigin{} : origin(d.origins.front());
}

FindingOrigin origin(const pci::Origin& where) { return FindingOrigin{where.path, where.line}; }

std::vector<Finding> check_guest(const GuestContext& ctx) {
  FindingSink sink(kGUEST012);
  for (const Check* c : checks_of(Kind::guest)) {
    if (c->check_guest != nullptr && c->status == CheckStatus::stable) c->check_guest(ctx, sink);
  }
  // Problems first; within a severity by check id, so the versions found (GUEST011) come
  // before the checks not made (GUEST012), which keep the order of the checks they name.
  std::vector<Finding> findings = std::move(sink.findings());
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return a.severity != b.severity ? a.severity < b.severity : a.check->id < b.check->id;
  });
  return findings;
}

std::vector<Finding> check_guest(const guest::Guest& guest, const guest::NcclTopoInput* nccl_topo,
                                 const guest::NcclTopoInput* nccl_dump) {
  return check_guest(GuestContext(guest, nccl_topo, nccl_dump));
}

}  // namespace vmxkit::checks
