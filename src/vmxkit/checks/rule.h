// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/diagnostic.h"

namespace vmxkit::checks {

class Context;
class Sink;

/// Whether a rule offers fixes (ruff's FixAvailability).
enum class FixAvailability : unsigned char { none, sometimes, always };
std::string_view to_string(FixAvailability availability);

/// A retired rule stays in the table as `removed`, so old suppressions still resolve.
enum class RuleStatus : unsigned char { stable, removed };

/// One rule of the catalogue: metadata, its user documentation and its check.
struct Rule {
  std::string_view id;    ///< PREFIX + 3 digits, never reused: VMX, PT, P2P, MMIO, TOPO, XML, OVF
  std::string_view name;  ///< kebab-case, reads well after "allow": "duplicate-key"
  Severity severity = Severity::warning;
  FixAvailability fix = FixAvailability::none;
  FixSafety fix_safety = FixSafety::safe;  ///< of the fixes it offers
  RuleStatus status = RuleStatus::stable;
  std::string_view summary;  ///< one line
  /// Markdown with the headings `## What it does`, `## Why is this bad?`, `## Example`,
  /// `## Fix safety` and `## References`.
  std::string_view doc;
  void (*check)(const Context&, Sink&) = nullptr;
  bool needs_host = false;  ///< only runs with --host
};

/// The whole catalogue, sorted by id.
const std::vector<const Rule*>& all_rules();
/// A rule by id (exact, uppercase), or nullptr.
const Rule* find_rule(std::string_view id);

}  // namespace vmxkit::checks
