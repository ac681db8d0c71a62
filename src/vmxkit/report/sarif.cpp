// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/sarif.h"

#include <fmt/format.h>

#include <cctype>
#include <ostream>
#include <utility>

namespace vmxkit::report {

constexpr std::string_view kToolVersion = VMXKIT_VERSION;  // project(VERSION)

std::string sarif_level(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    default:
      return "note";
  }
}

std::string uri_reference(std::string_view path) {
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || std::string_view("-._~/").find(ch) != std::string_view::npos) {
      out.push_back(ch);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

Json sarif_rule(const checks::Check& check) {
  return {{"id", check.id},
          {"name", check.name},
          {"shortDescription", {{"text", check.summary}}},
          {"fullDescription", {{"text", check.summary}}},
          {"help", {{"text", std::string(check.doc)}, {"markdown", std::string(check.doc)}}},
          {"defaultConfiguration", {{"level", sarif_level(check.severity)}}},
          {"properties",
           {{"fix", checks::to_string(check.fix)}, {"fixSafety", to_string(check.fix_safety)}}}};
}

Json artifact_location(std::string_view path) { return {{"uri", uri_reference(path)}}; }

Json physical_location(const Json& artifact, Json region) {
  Json location = {{"artifactLocation", artifact}};
  if (!region.empty()) location["region"] = std::move(region);
  return location;
}

// The log is written with an empty "results", the last member of the run, and cut there: the
// head is written now, the results as they come, the tail by finish().
SarifLog::SarifLog(std::ostream& os, const std::vector<const checks::Check*>& rules)
    : os_(os), results_(os, 3) {
  Json rules_json = Json::array();
  for (const checks::Check* rule : rules) {
    rule_index_[rule->id] = rules_json.size();
    rules_json.push_back(sarif_rule(*rule));
  }
  const Json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                    {"version", "2.1.0"},
                    {"runs", Json::array({{{"tool",
                                            {{"driver",
                                              {{"name", "vmxkit"},
                                               {"version", kToolVersion},
                                               {"rules", std::move(rules_json)}}}}},
                                           {"columnKind", "unicodeCodePoints"},
                                           {"results", Json::array()}}})}};
  const std::string text = doc.dump(2, ' ', false, Json::error_handler_t::replace);
  const std::size_t at = text.rfind("[]");  // the empty results
  os_ << std::string_view(text).substr(0, at);
  tail_ = text.substr(at + 2);
}

Json SarifLog::result(std::string_view rule_id, Severity severity, std::string_view message,
                      Json locations) const {
  Json result = {{"ruleId", rule_id},
                 {"level", sarif_level(severity)},
                 {"message", {{"text", json_text(message)}}}};
  if (!locations.empty()) result["locations"] = std::move(locations);
  if (const auto it = rule_index_.find(rule_id); it != rule_index_.end()) {
    result["ruleIndex"] = it->second;
  }
  return result;
}

void SarifLog::finish() {
  results_.close();
  os_ << tail_ << '\n';
}

}  // namespace vmxkit::report
