// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "vmxkit/rules/engine.h"

namespace vmxkit::cli {

/// Counts of findings by severity.
struct Summary {
  std::size_t files = 0;
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  std::size_t styles = 0;
  std::size_t fixable = 0;  ///< with a safe fix
  std::size_t unsafe_fixable = 0;
};
Summary summarize(const std::vector<rules::LintResult>& results);

/// GCC-style diagnostics with source lines and carets, then a summary line.
void write_text(std::ostream& os, const std::vector<rules::LintResult>& results, bool color);
/// The documented JSON report (docs/json-output.md).
void write_json(std::ostream& os, const std::vector<rules::LintResult>& results);
/// SARIF 2.1.0 for code-scanning tools: the rules with their help text, results with regions,
/// related locations and fixes.
void write_sarif(std::ostream& os, const std::vector<rules::LintResult>& results);

}  // namespace vmxkit::cli
