// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <map>

#include "vmxkit/checks/all.h"
#include "vmxkit/core/pci_address.h"

namespace vmxkit::checks {
namespace pt004 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags two present DirectPath entries that pass the same host device (the same `id`, in any of
its written forms).

## Why is this bad?
A host device can be given to a VM once. The second entry makes power-on fail; it is usually a
copy-paste of the entry above with the index changed and the address not.

## Example
```
pciPassthru0.id = "00000:059:00.0"
pciPassthru1.id = "00000:059:00.0"
```

## Fix safety
No automatic fix: which device was meant for the second entry cannot be known. SR-IOV VF entries
are not flagged: several VFs of one port share the port's address in `id`.

## References
- Broadcom KB 309986 (configuring VMDirectPath I/O)
)md";

void check(const Context& ctx, Sink& sink) {
  std::map<Bdf, const VmDevice*> seen;
  for (const VmDevice& v : ctx.devices()) {
    if (v.entry->kind() != PassthroughKind::directpath) continue;
    const Setting* id = ctx.device_setting(*v.entry, "id");
    if (id == nullptr) continue;
    auto bdf = parse_vmx_bdf(id->value);
    if (!bdf) bdf = parse_bdf(id->value);
    if (!bdf) continue;
    const auto [it, inserted] = seen.emplace(*bdf, &v);
    if (inserted) continue;
    Diagnostic& d = sink.report(
        kPT004, id->value_span,
        fmt::format("pciPassthru{} passes host device {} again", v.entry->index, bdf->to_string()));
    if (const Setting* first = ctx.device_setting(*it->second->entry, "id")) {
      d.notes.push_back({first->value_span.begin, first->value_span.end,
                         fmt::format("already passed as pciPassthru{}", it->second->entry->index)});
    }
  }
}

}  // namespace pt004

extern const Check kPT004{
    .id = "PT004",
    .name = "duplicate-passthrough-device",
    .severity = Severity::error,
    .summary = "The same host device passed twice",
    .doc = pt004::kDoc,
    .check = &pt004::check,
};

}  // namespace vmxkit::checks
