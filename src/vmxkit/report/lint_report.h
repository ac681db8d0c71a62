// SPDX-License-Identifier: Apache-2.0
// The lint report in its three forms: text for people, JSON for scripts (docs/json-output.md),
// SARIF for code-scanning tools; written file by file as the results come in.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/checks/engine.h"

namespace vmxkit::report {

/// One file's findings as the writers read them: a view of a checks::LintResult, or of the
/// facade's LintReport, which holds the same (vmxkit.h), so either is written without a copy.
struct LintedFile {
  std::string_view path;
  std::string_view bytes;
  std::string_view format;  ///< the format table's name of what was read
  const std::vector<Diagnostic>& diagnostics;
  const LineIndex& lines;  ///< of `bytes`

  Location location(std::size_t offset) const { return lines.location(offset); }
};
/// The view of `result` ("vmx" for a result without a format).
LintedFile linted_file(const checks::LintResult& result);

/// Counts of findings by severity.
struct Summary {
  std::size_t files = 0;
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  std::size_t styles = 0;
  std::size_t fixable = 0;  ///< with a safe fix
  std::size_t unsafe_fixable = 0;
  std::size_t unread = 0;  ///< files that could not be read or parsed (their errors on stderr)

  /// Adds one file's findings.
  void add(const std::vector<Diagnostic>& diagnostics);
};
Summary summarize(const std::vector<checks::LintResult>& results);

/// A lint report written while the results come in, file by file in order, so a run over many
/// files holds one file's result at a time: add() each result, then finish() once. What it
/// writes is what the write_* functions below write for all the results at once.
class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  void add(const checks::LintResult& result) { add_file(linted_file(result)); }
  virtual void add_file(const LintedFile& file) = 0;
  virtual void finish() = 0;
  /// Counts a file that could not be read: the summary must not read as if it were clean.
  void add_unread() { ++summary_.unread; }
  const Summary& summary() const { return summary_; }

 protected:
  Summary summary_;
};

/// `format` is text, json or sarif.
std::unique_ptr<ReportWriter> make_report_writer(std::string_view format, std::ostream& os,
                                                 bool color);

/// GCC-style diagnostics with source lines and carets, then a summary line.
void write_text(std::ostream& os, const std::vector<checks::LintResult>& results, bool color);
/// The documented JSON report (docs/json-output.md).
void write_json(std::ostream& os, const std::vector<checks::LintResult>& results);
/// SARIF 2.1.0 for code-scanning tools: the rules with their help text, results with regions,
/// related locations and fixes.
void write_sarif(std::ostream& os, const std::vector<checks::LintResult>& results);

}  // namespace vmxkit::report
