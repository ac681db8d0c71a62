// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/readiness.h"
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/owner_words.h"
#include "vmxkit/checks/vm_pairs.h"

namespace vmxkit::checks {
namespace topo009 {

constexpr std::string_view kDoc = R"md(
## What it does
With an ESXi `--host` capture (`esxcli hardware pci list`, or `esxcli hardware pci pcipassthru
list` with a tree from another capture), flags a passthrough entry whose host device is not
ready for it: a DirectPath I/O device that is not enabled for passthrough (`Configured Owner`
is not `VM Passthru`, or `Enabled` is false), that waits for a reboot to apply it (`Current Owner`
still the VMkernel), or that cannot be passed through (`Passthru Capable: false`); and an SR-IOV
VF entry whose physical function is itself enabled for passthrough, so no VMkernel driver
creates the VFs.

## Why is this bad?
The VM does not power on: ESXi cannot give it a device that the VMkernel still owns, and a PF
handed to passthrough has no VFs to give.

## Example
```
pciPassthru2.id = "00000:069:00.0"
```
where `esxcli hardware pci list` shows `0000:45:00.0` with `Configured Owner: VMkernel`.

## Fix safety
No automatic fix: the change is on the host. The diagnostic gives the command,
`esxcli hardware pci pcipassthru set -d BDF -e true -a` (ESXi 7.0 and later; `-e false` for an
SR-IOV PF), or the vSphere Client's Configure > PCI Devices page.

## References
- `esxcli hardware pci list` fields (`Configured Owner`, `Current Owner`, `Passthru Capable`)
- `esxcli hardware pci pcipassthru list` (`Device ID  Enabled`) and `set` (ESXi 7.0 and later)
)md";

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    const auto index = host_device(ctx, v);
    if (!index) continue;
    const auto use = v.entry->kind() == PassthroughKind::sriov_vf ? pci::PassthroughUse::sriov_pf
                                                                  : pci::PassthroughUse::full;
    const auto finding = pci::esxi_owner_problem(ctx.host()->at(*index), use);
    if (!finding) continue;
    Diagnostic& d = sink.report(
        kTOPO009, id_span(ctx, v),
        "pciPassthru" + std::to_string(v.entry->index) + ": " + owner_message(*finding));
    d.fix = Fix{owner_fix(*finding), FixSafety::display_only, {}};
  }
}

}  // namespace topo009

extern const Check kTOPO009{
    .id = "TOPO009",
    .name = "passthrough-device-not-enabled",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::display_only,
    .summary = "A passthrough device the ESXi host has not enabled for passthrough",
    .doc = topo009::kDoc,
    .check = &topo009::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
