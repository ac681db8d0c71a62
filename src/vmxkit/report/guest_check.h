// SPDX-License-Identifier: Apache-2.0
// `vmxkit guest-check`'s report: the findings of the guest checks with what NCCL does at its
// defaults, what its log says it decided and the inputs read, as text, JSON or SARIF.
#pragma once

#include <iosfwd>
#include <vector>

#include "vmxkit/checks/check.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::report {

/// Whether the guest is ready: no error, no warning, and every check made (no GUEST012).
bool guest_ready(const std::vector<checks::Finding>& findings);

/// The findings, NCCL's view at its defaults, NCCL's log and the inputs read, as text, ending
/// with the verdict line.
void write_guest_check_text(std::ostream& out, const checks::GuestContext& ctx,
                            const std::vector<checks::Finding>& findings);

/// The same as one JSON document: inputs, nccl, nccl_log, findings (with each check's doc link
/// and sources) and ready.
void write_guest_check_json(std::ostream& out, const checks::GuestContext& ctx,
                            const std::vector<checks::Finding>& findings);

/// SARIF 2.1.0 as lint writes it, the guest checks as the driver's rules.
void write_guest_check_sarif(std::ostream& out, const std::vector<checks::Finding>& findings);

}  // namespace vmxkit::report
