// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/host_context.h"

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {

HostContext::HostContext(const pci::Host& host, const std::optional<pci::KernelCmdline>& cmdline,
                         pci::HostKind kind)
    : host_(host), cmdline_(cmdline), detected_(pci::detect_host_kind(host, cmdline)) {
  kind_ = kind == pci::HostKind::unknown ? detected_ : kind;
}

const pci::Topology& HostContext::topology() const {
  if (!topology_) topology_ = std::make_unique<pci::Topology>(pci::analyze(host_, {}));
  return *topology_;
}

std::vector<Finding> check_host(const pci::Host& host,
                                const std::optional<pci::KernelCmdline>& cmdline,
                                pci::HostKind kind) {
  const HostContext ctx(host, cmdline, kind);
  FindingSink sink(kHOST013);
  for (const Check* c : checks_of(Kind::host)) {
    if (c->check_host != nullptr && c->status == CheckStatus::stable) c->check_host(ctx, sink);
  }
  return std::move(sink.findings());
}

}  // namespace vmxkit::checks
