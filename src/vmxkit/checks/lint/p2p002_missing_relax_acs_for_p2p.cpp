// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/util.h"

namespace vmxkit::checks {
namespace p2p002 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a VM that passes a GPU together with a NIC or another GPU without
`pciPassthru.RelaxACSforP2P = "TRUE"`.

## Why is this bad?
With ACS (Access Control Services) redirect in force, peer-to-peer requests between the devices
are sent up to the root complex instead of across the PCIe switch they share. NVIDIA lists the key
next to `allowP2P` as required for GPUDirect RDMA on vSphere; VMware's Private AI design says to
"relax Access Control Services (ACS) in the virtual machine configuration settings". That design
is about vGPU ("GPUDirect on vSphere works by using the NVIDIA vGPU technology and RDMA-capable
network adapters"), so a vGPU with a NIC needs the key as a passthrough GPU does.

## Example
Add:
```
pciPassthru.RelaxACSforP2P = "TRUE"
```

## Fix safety
Unsafe: it relaxes an isolation feature between the VM's devices.

## References
- NVIDIA cloud-native-docs `gpu-operator/gpu-operator-rdma.rst`
- VMware Cloud Foundation Private AI Ready Infrastructure design (ACS relaxation for P2P)
)md";

void check(const Context& ctx, Sink& sink) {
  if (!ctx.wants_p2p() || ctx.config().get_bool(kRelaxAcs).value_or(false)) return;
  const Setting* existing = ctx.config().find(kRelaxAcs);
  const SourceSpan where = existing != nullptr ? existing->value_span : anchor_for_missing_key(ctx);
  Diagnostic& d = sink.report(
      kP2P002, where,
      "GPU passed with a peer device, but pciPassthru.RelaxACSforP2P is not TRUE: peer traffic "
      "is redirected to the root complex");
  d.fix = set_key_fix(ctx, kRelaxAcs, "TRUE", "Set pciPassthru.RelaxACSforP2P = \"TRUE\"",
                      FixSafety::unsafe);
}

}  // namespace p2p002

extern const Check kP2P002{
    .id = "P2P002",
    .name = "missing-relax-acs-for-p2p",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::unsafe,
    .summary = "GPU with a peer device but pciPassthru.RelaxACSforP2P not TRUE",
    .doc = p2p002::kDoc,
    .check = &p2p002::check,
};

}  // namespace vmxkit::checks
