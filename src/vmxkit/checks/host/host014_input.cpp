// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/host_context.h"

namespace vmxkit::checks {
namespace host014 {

constexpr std::string_view kDoc = R"md(
## What it does
Reports what the host loaders skipped or could not tell in the inputs, each at its file and
line: a line of tool noise (`lspci:`, `pcilib:`) in a capture taken with `2>&1`, a device the
tree could not place, a field out of range.

## Why is this bad?
A skipped line may be a device the other checks then do not see; the finding says where, so the
capture can be taken again.

## Example
`host.txt:3: skipped a message of lspci, not a device`

## Fix safety
Nothing to fix in the host: take the capture again (`lspci -vvv -nn -D > host.txt`, without
`2>&1`).

## References
- pciutils `lspci(8)`
)md";

void check(const HostContext& ctx, FindingSink& sink) {
  for (const pci::HostWarning& w : ctx.host().warnings()) {
    sink.report(kHOST014, w.where.path.empty() ? "" : w.where.to_string(), w.message, {},
                FindingOrigin{w.where.path, w.where.line});
  }
}

}  // namespace host014

extern const Check kHOST014{
    .id = "HOST014",
    .name = "input",
    .kind = Kind::host,
    .severity = Severity::info,
    .summary = "what the host loaders skipped or could not tell, at its file and line",
    .doc = host014::kDoc,
    .check_host = &host014::check,
};

}  // namespace vmxkit::checks
