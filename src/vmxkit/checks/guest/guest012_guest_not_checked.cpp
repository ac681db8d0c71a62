// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest012 {

constexpr std::string_view kDoc = R"md(
## What it does
Names each guest check the inputs could not answer, and the inputs that would: the subject is
the id of that check. The other guest checks report these (FindingSink::not_checked): the kernel
path without `lsmod`, BAR1, ATS, ACS and links without `lspci -vvv`, RDMA ports without
`ibv_devinfo`, NCCL's view with an `NCCL_TOPO_FILE` that was not given, and so on.

## Why is this bad?
It is not a problem of the guest, but a guest is never called ready on checks nobody made: the
summary of `vmxkit guest-check` does not say "ready" while one is left.

## Example
``GUEST010: info: RDMA port state (rdma-port-down): not checked (needs: `ibv_devinfo`)``

## Fix safety
Nothing to fix: give the inputs it names (docs/guest-check.md has one loop that captures them
all).

## References
- pciutils `lspci(8)`: capabilities are shown only to root ("Capabilities: <access denied>")
- docs/guest-check.md, "Inputs": which command answers which check
)md";

}  // namespace guest012

// Its findings are the other checks' (FindingSink::not_checked): it runs nothing of its own.
extern const Check kGUEST012{
    .id = "GUEST012",
    .name = "guest-not-checked",
    .kind = Kind::guest,
    .severity = Severity::info,
    .summary = "a check the inputs could not answer, with the input that would",
    .doc = guest012::kDoc,
};

}  // namespace vmxkit::checks
