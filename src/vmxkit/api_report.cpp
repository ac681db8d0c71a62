// SPDX-License-Identifier: Apache-2.0
// The facade's reports (vmxkit/vmxkit.h): the text and JSON the command line prints, rendered
// by report/ from the facade's values, so a command writes what the API hands out.
#include <fmt/format.h>

#include <sstream>
#include <string>

#include "vmxkit/checks/check.h"
#include "vmxkit/report/check_docs.h"
#include "vmxkit/report/diagnostic_text.h"
#include "vmxkit/report/json.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

namespace {

// A report's JSON document, as write_json_document writes it.
std::string json_document(const report::Json& doc) {
  std::ostringstream out;
  report::write_json_document(out, doc);
  return std::move(out).str();
}

}  // namespace

// --- the format table

std::string render_formats_json(const std::vector<FormatInfo>& formats) {
  report::Json items = report::Json::array();
  for (const FormatInfo& f : formats) {
    items.push_back({{"name", f.name},
                     {"subject", f.subject},
                     {"summary", f.summary},
                     {"input", f.input},
                     {"output", f.output},
                     {"carries",
                      {{"host_address", f.host_address},
                       {"dynamic_directpath", f.dynamic_directpath},
                       {"vgpu", f.vgpu},
                       {"sriov", f.sriov},
                       {"device_groups", f.device_groups},
                       {"dvx", f.dvx}}}});
  }
  return json_document({{"formats", std::move(items)}});
}

// --- diagnostics

std::string render_diagnostic(std::string_view path, std::string_view text, const LineIndex& lines,
                              const Diagnostic& diagnostic, bool color) {
  report::DiagnosticPrinter printer(path, text, lines, color);
  std::string out;
  printer.print(out, diagnostic);
  return out;
}

// --- pciPassthru.64bitMMIOSizeGB

namespace {

report::Json json_texts(const std::vector<std::string>& strings) {
  report::Json array = report::Json::array();
  for (const std::string& s : strings) array.push_back(report::json_text(s));
  return array;
}

}  // namespace

std::string render_mmio_json(const MmioSize& size) {
  using report::Json, report::json_text;
  Json bars = Json::array();
  for (const MmioBar& b : size.bars) {
    bars.push_back({{"device", json_text(b.device)},
                    {"bar", json_text(b.bar)},
                    {"size", b.size},
                    {"offset", b.offset},
                    {"source", json_text(b.source)}});
  }
  return json_document({{"size_gb", size.size_gb},
                        {"kb323402_gb", size.kb_gb ? Json(*size.kb_gb) : Json(nullptr)},
                        {"estimated", size.estimated},
                        {"total_bytes", size.total_bytes},
                        {"bars", std::move(bars)},
                        {"unknown", json_texts(size.unknown)},
                        {"unknown_gpus", json_texts(size.unknown_gpus)},
                        {"below_4g", json_texts(size.below_4g)},
                        {"unassigned", json_texts(size.unassigned)},
                        {"lines", json_texts(size.lines)}});
}

// --- host checks

namespace {

report::Json optional_bool(const std::optional<bool>& b) {
  return b ? report::Json(*b) : report::Json(nullptr);
}

// The vGPU types the host offers with what a VM holding each may do; null when not known.
report::Json vgpu_types_json(const std::optional<HostVgpuTypes>& types) {
  if (!types) return nullptr;
  report::Json list = report::Json::array();
  for (const VgpuTypeOffer& v : types->offered) {
    list.push_back({{"vgpu", report::json_text(v.profile)},
                    {"disk_snapshot_supported", optional_bool(v.disk_snapshot)},
                    {"memory_snapshot_supported", optional_bool(v.memory_snapshot)},
                    {"suspend_supported", optional_bool(v.suspend)},
                    {"migrate_supported", optional_bool(v.migrate)}});
  }
  return list;
}

}  // namespace

std::string render_host_check_json(const HostCheckReport& checked) {
  using report::Json, report::json_text;
  Json list = Json::array();
  for (const CheckFinding& f : checked.findings) {
    list.push_back({{"id", f.rule_id},
                    {"name", f.rule_name},
                    {"severity", to_string(f.severity)},
                    {"subject", json_text(f.subject)},
                    {"message", json_text(f.message)},
                    {"fix", f.fix.empty() ? Json(nullptr) : Json(json_text(f.fix))}});
  }
  return json_document(
      {{"host_kind",
        checked.kind == HostKind::unknown ? Json(nullptr) : Json(to_string(checked.kind))},
       {"findings", std::move(list)},
       {"vgpu_types", vgpu_types_json(checked.vgpu_types)}});
}

// --- the rule catalogue

namespace {

// The catalogue's own check behind a RuleInfo (its strings are views of the check's).
const checks::Check& check_of(const RuleInfo& rule) {
  const checks::Check* c = checks::find_check(rule.id);
  if (c == nullptr) throw Error(fmt::format("no check '{}'", rule.id));
  return *c;
}

report::Json rule_json(const RuleInfo& r) {
  using report::Json;
  return {{"id", r.id},
          {"name", r.name},
          {"kind", to_string(r.kind)},
          {"severity", to_string(r.severity)},
          {"fix", to_string(r.fix)},
          {"fix_safety", r.fix == RuleFix::none ? Json(nullptr) : Json(to_string(r.fix_safety))},
          {"needs_host", r.needs_host},
          {"status", r.removed ? "removed" : "stable"},
          {"summary", r.summary}};
}

}  // namespace

std::string render_rule_page(const RuleInfo& rule) { return checks::rule_page(check_of(rule)); }

std::string render_rules_markdown() { return checks::catalogue_markdown(); }

std::string render_rules_json(const std::vector<RuleInfo>& rules) {
  report::Json items = report::Json::array();
  for (const RuleInfo& r : rules) items.push_back(rule_json(r));
  return json_document({{"checks", std::move(items)}});
}

}  // namespace vmxkit
