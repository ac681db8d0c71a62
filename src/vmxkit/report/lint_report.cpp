// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/lint_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/checks/check.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/report/diagnostic_text.h"
#include "vmxkit/report/json.h"
#include "vmxkit/report/sarif.h"

namespace vmxkit::report {
namespace {

constexpr std::string_view kToolVersion = VMXKIT_VERSION;  // project(VERSION)

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The code points before each offset of a text, for SARIF's columns: a count every kStep
// bytes, and the bytes since counted, so a column costs at most kStep steps. Counted from its
// line's start, a column cost the line's length: a line of 80,000 `|` (as many findings) took
// 6.4 s as SARIF, 0.18 s as JSON.
class CodePoints {
 public:
  explicit CodePoints(std::string_view text) : text_(text) {
    marks_.reserve(text.size() / kStep + 1);
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (i % kStep == 0) marks_.push_back(count);
      count += lead(text[i]);
    }
    marks_.push_back(count);  // for an offset at a multiple of kStep past the end's block
  }
  std::size_t before(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    std::size_t count = marks_[offset / kStep];
    for (std::size_t i = offset / kStep * kStep; i < offset; ++i) count += lead(text_[i]);
    return count;
  }

 private:
  static constexpr std::size_t kStep = 64;
  static std::size_t lead(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }
  std::string_view text_;
  std::vector<std::size_t> marks_;
};

// SARIF columns count Unicode code points (run.columnKind = unicodeCodePoints).
Json sarif_region(const LintedFile& r, const CodePoints& points, std::size_t begin,
                  std::size_t end) {
  auto point = [&](std::size_t offset) {
    const Location at = r.location(offset);
    const std::size_t line_start = offset - (at.column - 1);
    const std::size_t col = points.before(offset) - points.before(line_start) + 1;
    return std::pair{at.line, col};
  };
  const auto [sl, sc] = point(begin);
  const auto [el, ec] = point(end);
  return {{"startLine", sl}, {"startColumn", sc}, {"endLine", el}, {"endColumn", ec}};
}

}  // namespace

LintedFile linted_file(const checks::LintResult& r) {
  return {r.path, r.bytes, r.format == nullptr ? "vmx" : r.format->name, r.diagnostics, r.lines};
}

void Summary::add(const std::vector<Diagnostic>& diagnostics) {
  ++files;
  for (const Diagnostic& d : diagnostics) {
    switch (d.severity) {
      case Severity::error:
        ++errors;
        break;
      case Severity::warning:
        ++warnings;
        break;
      case Severity::info:
        ++infos;
        break;
      case Severity::style:
        ++styles;
        break;
    }
    if (d.fix && !d.fix->edits.empty()) {
      if (d.fix->safety == FixSafety::safe) ++fixable;
      if (d.fix->safety == FixSafety::unsafe) ++unsafe_fixable;
    }
  }
}

Summary summarize(const std::vector<checks::LintResult>& results) {
  Summary s;
  for (const auto& r : results) s.add(r.diagnostics);
  return s;
}

namespace {

class TextWriter final : public ReportWriter {
 public:
  TextWriter(std::ostream& os, bool color) : os_(os), color_(color) {}

  void add_file(const LintedFile& r) override {
    summary_.add(r.diagnostics);
    if (r.diagnostics.empty()) return;
    DiagnosticPrinter printer(r.path, r.bytes, r.lines, color_);
    std::string out;
    for (const Diagnostic& d : r.diagnostics) {
      printer.print(out, d);
      if (out.size() >= (1u << 16)) {
        os_ << out;
        out.clear();
      }
    }
    os_ << out;
  }

  void finish() override {
    const Summary& s = summary_;
    const std::size_t total = s.errors + s.warnings + s.infos + s.styles;
    const std::string unread =
        s.unread == 0 ? std::string()
                      : fmt::format(" {} could not be read.", plural(s.unread, "file"));
    if (total == 0) {
      os_ << "No problems found in " << plural(s.files, "file") << "." << unread << "\n";
      return;
    }
    std::vector<std::string> parts;
    if (s.errors) parts.push_back(plural(s.errors, "error"));
    if (s.warnings) parts.push_back(plural(s.warnings, "warning"));
    if (s.infos) parts.push_back(plural(s.infos, "info"));
    if (s.styles) parts.push_back(plural(s.styles, "style note"));
    os_ << "Found " << plural(total, "problem") << " (" << fmt::format("{}", fmt::join(parts, ", "))
        << ") in " << plural(s.files, "file") << ".";
    if (s.fixable) os_ << " " << s.fixable << " fixable with `vmxkit fix`.";
    if (s.unsafe_fixable) os_ << " " << s.unsafe_fixable << " more with `--unsafe-fixes`.";
    os_ << unread << '\n';
  }

 private:
  std::ostream& os_;
  bool color_;
};

void position_json(JsonStream& j, const LintedFile& r, std::size_t offset) {
  const Location at = r.location(offset);
  j.begin_object();
  j.key("line");
  j.value(std::size_t{at.line});
  j.key("column");
  j.value(std::size_t{at.column});
  j.key("offset");
  j.value(offset);
  j.end_object();
}

// The "start" and "end" members of a span of the input, each a position.
void span_json(JsonStream& j, const LintedFile& r, std::size_t begin, std::size_t end) {
  j.key("start");
  position_json(j, r, begin);
  j.key("end");
  position_json(j, r, end);
}

// One element of "files", nested `depth` levels deep, appended to `out`, which is written to
// `os` whenever it holds 64 KiB: a file with a million findings is not held as one text.
void file_json(std::ostream& os, std::string& out, std::size_t depth, const LintedFile& r) {
  JsonStream j(out, depth);
  j.begin_object();
  j.key("path");
  j.value(r.path);
  j.key("format");
  j.value(r.format);
  j.key("diagnostics");
  j.begin_array();
  for (const Diagnostic& d : r.diagnostics) {
    const checks::Check* rule = checks::find_check(d.rule_id);
    j.begin_object();
    j.key("rule");
    j.value(d.rule_id);
    j.key("name");
    j.value(rule != nullptr ? rule->name : std::string_view());
    j.key("severity");
    j.value(to_string(d.severity));
    j.key("message");
    j.value(d.message);
    span_json(j, r, d.begin, d.end);
    j.key("notes");
    j.begin_array();
    for (const Note& n : d.notes) {
      j.begin_object();
      span_json(j, r, n.begin, n.end);
      j.key("message");
      j.value(n.message);
      j.end_object();
    }
    j.end_array();
    j.key("fix");
    if (d.fix) {
      j.begin_object();
      j.key("title");
      j.value(d.fix->title);
      j.key("safety");
      j.value(to_string(d.fix->safety));
      j.key("edits");
      j.begin_array();
      for (const TextEdit& e : d.fix->edits) {
        j.begin_object();
        span_json(j, r, e.begin, e.end);
        j.key("replacement");
        j.value(e.replacement);
        j.end_object();
      }
      j.end_array();
      j.end_object();
    } else {
      j.null();
    }
    j.end_object();
    if (out.size() >= (1u << 16)) {
      os << out;
      out.clear();
    }
  }
  j.end_array();
  j.end_object();
}

// {"tool", "version", "files": [...], "summary": {...}}, the files written as they come.
class JsonWriter final : public ReportWriter {
 public:
  explicit JsonWriter(std::ostream& os) : os_(os) {
    os_ << "{\n  \"tool\": \"vmxkit\",\n  \"version\": " << Json(kToolVersion).dump()
        << ",\n  \"files\": ";
  }

  void add_file(const LintedFile& r) override {
    summary_.add(r.diagnostics);
    std::string out = summary_.files == 1 ? "[\n    " : ",\n    ";
    file_json(os_, out, 2, r);
    os_ << out;
  }

  void finish() override {
    os_ << (summary_.files == 0 ? "[]" : "\n  ]");
    const Summary& s = summary_;
    const Json summary = {{"files", s.files},
                          {"errors", s.errors},
                          {"warnings", s.warnings},
                          {"infos", s.infos},
                          {"styles", s.styles},
                          {"fixable", s.fixable},
                          {"unsafe_fixable", s.unsafe_fixable},
                          {"unread", s.unread}};
    os_ << ",\n  \"summary\": " << dump_nested(summary, 1) << "\n}\n";
  }

 private:
  std::ostream& os_;
};

// SARIF with every check as the driver's rules, a result per finding with its region, related
// locations for its notes and its fix as artifactChanges; written as the files come.
class SarifWriter final : public ReportWriter {
 public:
  explicit SarifWriter(std::ostream& os) : log_(os, checks::all_checks()) {}

  void add_file(const LintedFile& r) override {
    summary_.add(r.diagnostics);
    const Json artifact = artifact_location(r.path);
    const CodePoints points(r.bytes);
    for (const Diagnostic& d : r.diagnostics) log_.add(result_json(r, points, d, artifact));
  }

  void finish() override { log_.finish(); }

 private:
  Json result_json(const LintedFile& r, const CodePoints& points, const Diagnostic& d,
                   const Json& artifact) const {
    Json result = log_.result(
        d.rule_id, d.severity, d.message,
        Json::array({{{"physicalLocation",
                       physical_location(artifact, sarif_region(r, points, d.begin, d.end))}}}));
    if (!d.notes.empty()) {
      Json related = Json::array();
      int id = 1;
      for (const Note& n : d.notes) {
        related.push_back({{"id", id++},
                           {"message", {{"text", json_text(n.message)}}},
                           {"physicalLocation",
                            physical_location(artifact, sarif_region(r, points, n.begin, n.end))}});
      }
      result["relatedLocations"] = related;
    }
    if (d.fix && !d.fix->edits.empty() && d.fix->safety != FixSafety::display_only) {
      Json replacements = Json::array();
      for (const TextEdit& e : d.fix->edits) {
        replacements.push_back({{"deletedRegion", sarif_region(r, points, e.begin, e.end)},
                                {"insertedContent", {{"text", json_text(e.replacement)}}}});
      }
      result["fixes"] = Json::array(
          {{{"description", {{"text", json_text(d.fix->title)}}},
            {"artifactChanges",
             Json::array({{{"artifactLocation", artifact}, {"replacements", replacements}}})}}});
    }
    return result;
  }

  SarifLog log_;
};

void write_all(ReportWriter& writer, const std::vector<checks::LintResult>& results) {
  for (const auto& r : results) writer.add(r);
  writer.finish();
}

}  // namespace

std::unique_ptr<ReportWriter> make_report_writer(std::string_view format, std::ostream& os,
                                                 bool color) {
  if (format == "json") return std::make_unique<JsonWriter>(os);
  if (format == "sarif") return std::make_unique<SarifWriter>(os);
  return std::make_unique<TextWriter>(os, color);
}

void write_text(std::ostream& os, const std::vector<checks::LintResult>& results, bool color) {
  TextWriter writer(os, color);
  write_all(writer, results);
}

void write_json(std::ostream& os, const std::vector<checks::LintResult>& results) {
  JsonWriter writer(os);
  write_all(writer, results);
}

void write_sarif(std::ostream& os, const std::vector<checks::LintResult>& results) {
  SarifWriter writer(os);
  write_all(writer, results);
}

}  // namespace vmxkit::report
