// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/checks/engine.h"

namespace CLI {
class App;
}

namespace vmxkit::cli {

/// `--select`, `--extend-select`, `--ignore`, `--extend-ignore`, with ruff's names and meaning:
/// each takes a rule id (`PT004`), a prefix of ids (`PT`, `MMIO0`) or `ALL`, repeated or
/// comma-separated. `--select` replaces the default (every rule), `--extend-select` adds to it;
/// `--ignore` and `--extend-ignore` (the same here: there is no configuration file to extend)
/// take rules away. Where a rule matches both, the longer (more specific) selector wins, and
/// `--ignore` wins a tie, as in ruff ("more specific prefixes override less specific
/// prefixes. `ignore` takes precedence over `select` if the same prefix appears in both").
struct RuleSelection {
  std::vector<std::string> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  std::vector<std::string> extend_ignore;

  /// Throws vmxkit::Error naming a selector that matches no lint rule.
  void validate() const;
  /// Whether diagnostics of `rule_id` are reported.
  bool enabled(std::string_view rule_id) const;
  /// Removes the diagnostics of rules not enabled; nothing to do when no option was given.
  void apply(checks::LintResult& result) const;
  bool empty() const {
    return select.empty() && extend_select.empty() && ignore.empty() && extend_ignore.empty();
  }
};

void add_rule_selection(CLI::App& sub, RuleSelection& selection);

}  // namespace vmxkit::cli
