// SPDX-License-Identifier: Apache-2.0
// SARIF 2.1.0 (OASIS), the log code-scanning tools read: one builder for every command that
// writes it (lint, guest-check). The log is written as the results come in, so a run over many
// files holds none of them.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/checks/check.h"
#include "vmxkit/core/diagnostic.h"
#include "vmxkit/report/json.h"

namespace vmxkit::report {

/// SARIF's level for a severity: error, warning, note.
std::string sarif_level(Severity s);
/// A relative path as a SARIF URI reference: '/' separators, reserved bytes percent-encoded.
std::string uri_reference(std::string_view path);

/// A check as the driver's rule (a reportingDescriptor), one shape for lint rules, host checks
/// and guest checks: id, name, the summary as shortDescription and fullDescription, the doc as
/// help (text and markdown), the severity as defaultConfiguration's level, and the fix it
/// offers and that fix's safety as properties.
Json sarif_rule(const checks::Check& check);

/// {"uri": uri_reference(path)}: a file as a result's locations name it.
Json artifact_location(std::string_view path);
/// {"artifactLocation": artifact, "region": region}: where in a file a result rests; no region
/// when `region` is empty (the whole file).
Json physical_location(const Json& artifact, Json region);

/// One run's SARIF log, written as it goes: the head with the tool (vmxkit, its version) and
/// `rules` as the driver's rules, then each result as it is added, then finish(). Columns
/// count Unicode code points (run.columnKind).
class SarifLog {
 public:
  SarifLog(std::ostream& os, const std::vector<const checks::Check*>& rules);

  /// A result: ruleId, level, the message's text, `locations` when there are any, and
  /// ruleIndex when the rule is one of the driver's. The caller adds what else it knows
  /// (relatedLocations, fixes, properties) before add().
  Json result(std::string_view rule_id, Severity severity, std::string_view message,
              Json locations) const;
  void add(const Json& result) { results_.add(result); }
  /// Closes the results and the log.
  void finish();

 private:
  std::ostream& os_;
  JsonArrayStream results_;
  std::string tail_;  // what follows the results
  std::map<std::string_view, std::size_t> rule_index_;
};

}  // namespace vmxkit::report
