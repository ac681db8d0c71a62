// SPDX-License-Identifier: Apache-2.0
#include "cli/rule_selection.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "vmxkit/checks/check.h"
#include "vmxkit/core/error.h"

namespace vmxkit::cli {
namespace {

// How specific `selector` is for `rule_id`: its length (ALL: 0), or -1 when it does not match.
int match_length(std::string_view selector, std::string_view rule_id) {
  if (selector == "ALL") return 0;
  return rule_id.starts_with(selector) ? static_cast<int>(selector.size()) : -1;
}

int best_match(const std::vector<std::string>& a, const std::vector<std::string>& b,
               std::string_view rule_id) {
  int best = -1;
  for (const auto* list : {&a, &b}) {
    for (const std::string& s : *list) best = std::max(best, match_length(s, rule_id));
  }
  return best;
}

}  // namespace

void RuleSelection::validate() const {
  for (const auto* list : {&select, &extend_select, &ignore, &extend_ignore}) {
    for (const std::string& s : *list) {
      const auto& checks = checks::all_checks();
      const bool known = std::any_of(checks.begin(), checks.end(), [&](const checks::Check* c) {
        return c->kind == checks::Kind::lint && match_length(s, c->id) >= 0;
      });
      if (!known) {
        throw Error(fmt::format(
            "'{}' selects no lint rule: give a rule id (PT004), a prefix of ids (PT, MMIO0) or "
            "ALL; `vmxkit rules --kind lint` lists them",
            s));
      }
    }
  }
}

bool RuleSelection::enabled(std::string_view rule_id) const {
  // No --select: every rule, as `--select ALL`.
  const int selected = select.empty() ? std::max(0, best_match({}, extend_select, rule_id))
                                      : best_match(select, extend_select, rule_id);
  const int ignored = best_match(ignore, extend_ignore, rule_id);
  return selected >= 0 && selected > ignored;
}

void RuleSelection::apply(checks::LintResult& result) const {
  if (empty()) return;
  auto& d = result.diagnostics;
  d.erase(std::remove_if(d.begin(), d.end(),
                         [this](const Diagnostic& x) { return !enabled(x.rule_id); }),
          d.end());
}

void add_rule_selection(CLI::App& sub, RuleSelection& selection) {
  const auto add = [&sub](const char* name, std::vector<std::string>& list, const char* help) {
    sub.add_option(name, list, help)->delimiter(',');
  };
  add("--select", selection.select,
      "Report only these rules: ids (PT004), prefixes (PT, MMIO0) or ALL; repeatable or "
      "comma-separated (default ALL)");
  add("--extend-select", selection.extend_select, "Add these rules to --select's");
  add("--ignore", selection.ignore,
      "Do not report these rules (ids or prefixes); a more specific --select wins");
  add("--extend-ignore", selection.extend_ignore, "The same as --ignore (ruff's name)");
}

}  // namespace vmxkit::cli
