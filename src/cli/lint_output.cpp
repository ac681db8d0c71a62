// SPDX-License-Identifier: Apache-2.0
#include "cli/lint_output.h"

#include <fmt/format.h>

#include <map>
#include <ostream>

#include "cli/json_output.h"
#include "cli/report.h"
#include "vmxkit/rules/rule.h"

namespace vmxkit::cli {
namespace {

constexpr std::string_view kToolVersion = VMXKIT_VERSION;  // project(VERSION)

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

Json position(const rules::LintResult& r, std::size_t offset) {
  const Location at = r.location(offset);
  return {{"line", at.line}, {"column", at.column}, {"offset", offset}};
}

Json fix_json(const rules::LintResult& r, const Fix& fix) {
  Json edits = Json::array();
  for (const TextEdit& e : fix.edits) {
    edits.push_back({{"start", position(r, e.begin)},
                     {"end", position(r, e.end)},
                     {"replacement", json_text(e.replacement)}});
  }
  return {{"title", json_text(fix.title)}, {"safety", to_string(fix.safety)}, {"edits", edits}};
}

std::string_view format_name(rules::InputFormat f) {
  return f == rules::InputFormat::vmx ? "vmx" : "configspec";
}

// SARIF columns count Unicode code points (run.columnKind = unicodeCodePoints).
Json sarif_region(const rules::LintResult& r, std::size_t begin, std::size_t end) {
  auto point = [&](std::size_t offset) {
    const Location at = r.location(offset);
    const std::size_t line_start = offset - (at.column - 1);
    std::size_t col = 1;
    for (std::size_t i = line_start; i < offset && i < r.bytes.size(); ++i) {
      if ((static_cast<unsigned char>(r.bytes[i]) & 0xC0) != 0x80) ++col;
    }
    return std::pair{at.line, col};
  };
  const auto [sl, sc] = point(begin);
  const auto [el, ec] = point(end);
  return {{"startLine", sl}, {"startColumn", sc}, {"endLine", el}, {"endColumn", ec}};
}

std::string sarif_level(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    default: return "note";
  }
}

// A relative path as a URI reference: '/' separators, reserved bytes percent-encoded.
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

}  // namespace

Summary summarize(const std::vector<rules::LintResult>& results) {
  Summary s;
  s.files = results.size();
  for (const auto& r : results) {
    for (const Diagnostic& d : r.diagnostics) {
      switch (d.severity) {
        case Severity::error: ++s.errors; break;
        case Severity::warning: ++s.warnings; break;
        case Severity::info: ++s.infos; break;
        case Severity::style: ++s.styles; break;
      }
      if (d.fix && !d.fix->edits.empty()) {
        if (d.fix->safety == FixSafety::safe) ++s.fixable;
        if (d.fix->safety == FixSafety::unsafe) ++s.unsafe_fixable;
      }
    }
  }
  return s;
}

void write_text(std::ostream& os, const std::vector<rules::LintResult>& results, bool color) {
  for (const auto& r : results) {
    for (const Diagnostic& d : r.diagnostics) {
      print_diagnostic(os, r.path, r.bytes, r.lines, d, color);
    }
  }
  const Summary s = summarize(results);
  const std::size_t total = s.errors + s.warnings + s.infos + s.styles;
  if (total == 0) {
    os << "No problems found in " << plural(s.files, "file") << ".\n";
    return;
  }
  std::vector<std::string> parts;
  if (s.errors) parts.push_back(plural(s.errors, "error"));
  if (s.warnings) parts.push_back(plural(s.warnings, "warning"));
  if (s.infos) parts.push_back(plural(s.infos, "info"));
  if (s.styles) parts.push_back(plural(s.styles, "style note"));
  os << "Found " << plural(total, "problem") << " (" << fmt::format("{}", fmt::join(parts, ", "))
     << ") in " << plural(s.files, "file") << ".";
  if (s.fixable) os << " " << s.fixable << " fixable with `vmxkit fix`.";
  if (s.unsafe_fixable) os << " " << s.unsafe_fixable << " more with `--unsafe-fixes`.";
  os << '\n';
}

void write_json(std::ostream& os, const std::vector<rules::LintResult>& results) {
  Json files = Json::array();
  for (const auto& r : results) {
    Json diags = Json::array();
    for (const Diagnostic& d : r.diagnostics) {
      const rules::Rule* rule = rules::find_rule(d.rule_id);
      Json notes = Json::array();
      for (const Note& n : d.notes) {
        notes.push_back({{"start", position(r, n.begin)},
                         {"end", position(r, n.end)},
                         {"message", json_text(n.message)}});
      }
      Json j = {{"rule", d.rule_id},
                {"name", rule != nullptr ? rule->name : std::string_view()},
                {"severity", to_string(d.severity)},
                {"message", json_text(d.message)},
                {"start", position(r, d.begin)},
                {"end", position(r, d.end)},
                {"notes", notes},
                {"fix", d.fix ? fix_json(r, *d.fix) : Json(nullptr)}};
      diags.push_back(std::move(j));
    }
    files.push_back(
        {{"path", json_text(r.path)}, {"format", format_name(r.format)}, {"diagnostics", diags}});
  }
  const Summary s = summarize(results);
  const Json doc = {{"tool", "vmxkit"},
                    {"version", kToolVersion},
                    {"files", files},
                    {"summary",
                     {{"files", s.files},
                      {"errors", s.errors},
                      {"warnings", s.warnings},
                      {"infos", s.infos},
                      {"styles", s.styles},
                      {"fixable", s.fixable},
                      {"unsafe_fixable", s.unsafe_fixable}}}};
  write_json_document(os, doc);
}

void write_sarif(std::ostream& os, const std::vector<rules::LintResult>& results) {
  Json rules_json = Json::array();
  std::map<std::string_view, std::size_t> rule_index;
  for (const rules::Rule* rule : rules::all_rules()) {
    rule_index[rule->id] = rules_json.size();
    rules_json.push_back(
        {{"id", rule->id},
         {"name", rule->name},
         {"shortDescription", {{"text", rule->summary}}},
         {"fullDescription", {{"text", rule->summary}}},
         {"help", {{"text", std::string(rule->doc)}, {"markdown", std::string(rule->doc)}}},
         {"defaultConfiguration", {{"level", sarif_level(rule->severity)}}},
         {"properties", {{"fix", to_string(rule->fix)}, {"fixSafety", to_string(rule->fix_safety)}}}});
  }
  Json sarif_results = Json::array();
  for (const auto& r : results) {
    const std::string uri = uri_reference(r.path);
    const Json artifact = {{"uri", uri}};
    for (const Diagnostic& d : r.diagnostics) {
      Json result = {
          {"ruleId", d.rule_id},
          {"level", sarif_level(d.severity)},
          {"message", {{"text", json_text(d.message)}}},
          {"locations", Json::array({{{"physicalLocation",
                                       {{"artifactLocation", artifact},
                                        {"region", sarif_region(r, d.begin, d.end)}}}}})}};
      if (const auto it = rule_index.find(d.rule_id); it != rule_index.end()) {
        result["ruleIndex"] = it->second;
      }
      if (!d.notes.empty()) {
        Json related = Json::array();
        int id = 1;
        for (const Note& n : d.notes) {
          related.push_back(
              {{"id", id++},
               {"message", {{"text", json_text(n.message)}}},
               {"physicalLocation",
                {{"artifactLocation", artifact}, {"region", sarif_region(r, n.begin, n.end)}}}});
        }
        result["relatedLocations"] = related;
      }
      if (d.fix && !d.fix->edits.empty() && d.fix->safety != FixSafety::display_only) {
        Json replacements = Json::array();
        for (const TextEdit& e : d.fix->edits) {
          replacements.push_back({{"deletedRegion", sarif_region(r, e.begin, e.end)},
                                  {"insertedContent", {{"text", json_text(e.replacement)}}}});
        }
        result["fixes"] = Json::array(
            {{{"description", {{"text", json_text(d.fix->title)}}},
              {"artifactChanges",
               Json::array({{{"artifactLocation", artifact}, {"replacements", replacements}}})}}});
      }
      sarif_results.push_back(std::move(result));
    }
  }
  const Json doc = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       Json::array(
           {{{"tool",
              {{"driver", {{"name", "vmxkit"}, {"version", kToolVersion}, {"rules", rules_json}}}}},
             {"columnKind", "unicodeCodePoints"},
             {"results", sarif_results}}})}};
  write_json_document(os, doc);
}

}  // namespace vmxkit::cli
