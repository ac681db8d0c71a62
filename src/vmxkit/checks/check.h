// SPDX-License-Identifier: Apache-2.0
// The one check type: lint rules (a VM's configuration), host checks (the host's readiness for
// passthrough and GPUDirect RDMA) and guest checks (inside the VM) are all a `Check`, defined
// one per file as `<kind>/<id>_<name>.cpp` and registered by the build from those file names
// (registry.cpp). `vmxkit rules` lists them, `vmxkit rule ID` documents any of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/diagnostic.h"

namespace vmxkit::checks {

class Context;
class Sink;
class HostContext;
class GuestContext;
class FindingSink;

/// What a check judges: a VM's configuration (`vmxkit lint`), a host (`vmxkit host-check`) or
/// a guest (`vmxkit guest-check`).
enum class Kind : unsigned char { lint, host, guest };
/// "lint", "host", "guest".
std::string_view to_string(Kind kind);

/// Whether a check offers fixes (ruff's FixAvailability).
enum class FixAvailability : unsigned char { none, sometimes, always };
std::string_view to_string(FixAvailability availability);

/// A retired check stays in the table as `removed`, so old suppressions still resolve.
enum class CheckStatus : unsigned char { stable, removed };

/// One check: metadata, its user documentation and the function that runs it.
struct Check {
  /// PREFIX + 3 digits, never reused: VMX, PT, P2P, MMIO, TOPO, XML, OVF (lint), HOST, GUEST.
  std::string_view id;
  std::string_view name;  ///< kebab-case, reads well after "allow": "duplicate-key"
  Kind kind = Kind::lint;
  Severity severity = Severity::warning;
  FixAvailability fix = FixAvailability::none;
  FixSafety fix_safety = FixSafety::safe;  ///< of the fixes it offers (lint)
  CheckStatus status = CheckStatus::stable;
  std::string_view summary;  ///< one line
  /// Markdown with the headings `## What it does`, `## Why is this bad?`, `## Example`,
  /// `## Fix safety` and `## References` (the sources of the claim it makes).
  std::string_view doc;
  void (*check)(const Context&, Sink&) = nullptr;                    ///< kind lint
  bool needs_host = false;                                           ///< lint: only with --host
  void (*check_host)(const HostContext&, FindingSink&) = nullptr;    ///< kind host
  void (*check_guest)(const GuestContext&, FindingSink&) = nullptr;  ///< kind guest
};

/// Every check, sorted by id.
const std::vector<const Check*>& all_checks();
/// The checks of one kind, sorted by id.
std::vector<const Check*> checks_of(Kind kind);
/// A check by id (exact, uppercase), or nullptr.
const Check* find_check(std::string_view id);

/// Where a host or guest finding rests: an input file and its 1-based line (0: the whole file;
/// empty path: no one input).
struct FindingOrigin {
  std::string path;
  std::uint32_t line = 0;
};

/// A host or guest check's finding, with the command or setting that fixes it.
struct Finding {
  const Check* check = nullptr;
  Severity severity = Severity::warning;  ///< the check's, or lower where the check says why
  std::string subject;  ///< the device (BDF), module or file it is about; empty for the whole
  std::string message;
  std::string fix;  ///< empty when none
  FindingOrigin where;
};

/// Where host and guest checks report. `not_checked` says that a check could not be answered
/// from the inputs and which input would answer it: a host or guest is never called ready on
/// checks nobody made.
class FindingSink {
 public:
  /// `not_checked_check`: the kind's "not-checked" check, whose findings not_checked() makes.
  explicit FindingSink(const Check& not_checked_check) : not_checked_(not_checked_check) {}

  Finding& report(const Check& check, std::string subject, std::string message,
                  std::string fix = {}, FindingOrigin where = {});
  void not_checked(const Check& check, std::string_view what, std::string_view needs);
  std::vector<Finding>& findings() { return findings_; }

 private:
  const Check& not_checked_;
  std::vector<Finding> findings_;
};

}  // namespace vmxkit::checks
