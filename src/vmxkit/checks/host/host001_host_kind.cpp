// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host001 {

constexpr std::string_view kDoc = R"md(
## What it does
Notes a host whose kind the inputs do not show (no `esxcli` capture, no device bound to
`vfio-pci`, no `vfio-pci.ids` on the kernel command line, no `--host-kind`), so that the advice
of the other host checks covers both a KVM host and bare metal; and a `--host-kind` that
contradicts what the inputs show. `vmxkit host-check` prints the kind it advises for first.

## Why is this bad?
The right IOMMU setting depends on the kind: a KVM host needs the IOMMU on to assign devices to
VMs; bare-metal GPUDirect RDMA wants it off or in pass-through mode; ESXi sets it in the server
firmware, not on a command line. Advice for the wrong kind is wrong advice.

## Example
A Linux host's `lspci -vvv` whose GPU is bound to `nvidia` and no `--host-kind`.

## Fix safety
Nothing to fix; `--host-kind esxi|kvm|bare-metal` says the kind where the inputs do not.

## References
- Linux `Documentation/driver-api/vfio.rst` (device assignment needs an IOMMU)
- NVIDIA GPUDirect RDMA guide, "Supported Systems" (IOMMU off or pass-through on bare metal)
- `esxcli hardware pci list` (`Configured Owner`, `Current Owner`)
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  const pci::HostKind kind = ctx.kind();
  if (kind == pci::HostKind::unknown) {
    sink.report(kHOST001, "",
                "host: Linux, kind unknown (no vfio-pci binding or esxcli capture; say "
                "--host-kind kvm or bare-metal): the advice covers both");
  } else if (ctx.detected() != pci::HostKind::unknown && ctx.detected() != kind) {
    sink.report(kHOST001, "",
                fmt::format("--host-kind says {}, but the inputs show {}: the advice is for {}",
                            to_string(kind), to_string(ctx.detected()), to_string(kind)));
  }
}

}  // namespace host001

extern const Check kHOST001{
    .id = "HOST001",
    .name = "host-kind",
    .kind = Kind::host,
    .severity = Severity::info,
    .summary =
        "the host's kind is not known (the advice covers KVM and bare metal), or contradicted",
    .doc = host001::kDoc,
    .check_host = &host001::check,
};

}  // namespace vmxkit::checks
