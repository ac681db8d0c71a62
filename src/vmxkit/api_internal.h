// SPDX-License-Identifier: Apache-2.0
// What the command line and the facade's own files (api*.cpp) reach behind the public API
// (vmxkit.h) and users do not: not installed.
#pragma once

#include "vmxkit/devices/catalog.h"
#include "vmxkit/model/host.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {
namespace apply {
struct Change;
}  // namespace apply
namespace checks {
struct Finding;
struct LintOptions;
struct LintResult;
}  // namespace checks
}  // namespace vmxkit

namespace vmxkit::detail {

/// A public Host around a finalized pci::Host (one read from the vSphere API, say).
Host wrap_host(pci::Host host, const Catalog& catalog);
/// The pci::Host behind a public Host.
const pci::Host& internal_host(const Host& host);
/// The pci::Catalog behind a public Catalog.
const pci::Catalog& internal_catalog(const Catalog& catalog);
/// The rule engine's options for public ones: the host's catalogue unless one is given.
checks::LintOptions internal_lint_options(const LintOptions& options);
/// A public LintReport of a lint result (`format` stays "vmx" for one that has no format).
LintReport to_lint_report(checks::LintResult&& result);
/// A public CheckFinding of a host or guest check's finding.
CheckFinding to_check_finding(checks::Finding&& finding);
/// A public ConfigChange of an apply::Change, its spec written as XML.
ConfigChange to_config_change(const apply::Change& change);

}  // namespace vmxkit::detail
