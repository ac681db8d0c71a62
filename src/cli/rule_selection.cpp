// SPDX-License-Identifier: Apache-2.0
#include "cli/rule_selection.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace vmxkit::cli {

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
