// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace pt007 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags an SR-IOV virtual function entry (a `pciPassthruN` with `pfId`, or `systemId = "BYPASS"`)
that lacks one of the fields ESXi writes for it: `pfId` (the physical function, `.vmx` decimal
form), `id`, `systemId = "BYPASS"`, and a network (`networkName` or `dvs.portgroupId`).

## Why is this bad?
ESXi picks the VF at power-on from these fields. Without the PF it cannot choose a VF, and
without a network the VF has no port group; the VM fails to power on or comes up without its NIC.

## Example
```
pciPassthru28.present = "TRUE"
pciPassthru28.pfId = "00000:026:00.1"
pciPassthru28.systemId = "BYPASS"
```
Add `pciPassthru28.id = "00000:026:00.1"` and `pciPassthru28.networkName = "VM Network"` (or a
`dvs.portgroupId`).

## Fix safety
No automatic fix: the network and PF come from your environment.

## References
- ESXi-written SR-IOV entries (govmomi SR-IOV lab report; corpus fragment
  `FRAGMENT_log_esxi_sriov_vf_BYPASS_pfId_plus_directpath_VF.vmx`)
- vSphere API `VirtualSriovEthernetCard` / `SriovBackingInfo`
)md";

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    const PassthroughDevice& d = *v.entry;
    if (d.kind() != PassthroughKind::sriov_vf) continue;
    std::vector<std::string> missing;
    if (!d.pf_id) missing.emplace_back("pfId");
    if (!d.id) missing.emplace_back("id");
    if (!d.system_id || !iequals(*d.system_id, "BYPASS")) {
      missing.emplace_back("systemId = \"BYPASS\"");
    }
    if (ctx.device_setting(d, "networkName") == nullptr &&
        ctx.device_setting(d, "dvs.portgroupId") == nullptr) {
      missing.emplace_back("networkName or dvs.portgroupId");
    }
    if (missing.empty()) continue;
    sink.report(
        kPT007, ctx.device_span(d),
        fmt::format("SR-IOV VF entry pciPassthru{} lacks {}", d.index, fmt::join(missing, "; ")));
  }
}

}  // namespace pt007

extern const Check kPT007{
    .id = "PT007",
    .name = "incomplete-sriov-vf",
    .severity = Severity::error,
    .summary = "An SR-IOV VF entry without pfId, id, BYPASS systemId or network",
    .doc = pt007::kDoc,
    .check = &pt007::check,
};

}  // namespace vmxkit::checks
