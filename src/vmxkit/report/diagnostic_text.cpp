// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/diagnostic_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <ostream>
#include <string>

namespace vmxkit::report {
namespace {

std::string_view severity_color(Severity s) {
  switch (s) {
    case Severity::error:
      return "\x1b[1;31m";
    case Severity::warning:
      return "\x1b[1;35m";
    case Severity::info:
      return "\x1b[1;36m";
    case Severity::style:
      return "\x1b[1;34m";
  }
  return "";
}

// Control bytes would garble a terminal; show them as VMware escapes.
void append_printable(std::string& out, std::string_view line) {
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t') {
      fmt::format_to(std::back_inserter(out), "|{:02X}", c);
    } else {
      out.push_back(ch);
    }
  }
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// `text` cut to at most `max` bytes at a character boundary, and whether it was cut.
std::string_view cut(std::string_view text, std::size_t max, bool& was_cut) {
  was_cut = text.size() > max;
  if (!was_cut) return text;
  std::size_t n = max;
  while (n > 0 && is_continuation(text[n])) --n;
  return text.substr(0, n);
}

}  // namespace

void DiagnosticPrinter::location_line(std::string& out, const Location& at, Severity severity,
                                      std::string_view label, std::string_view message,
                                      std::string_view id) const {
  const std::string_view bold = color_ ? "\x1b[1m" : "";
  const std::string_view reset = color_ ? "\x1b[0m" : "";
  const std::string_view sev_color = color_ ? severity_color(severity) : "";
  bool was_cut = false;
  const std::string_view shown = cut(message, kMaxMessageBytes, was_cut);
  fmt::format_to(std::back_inserter(out), "{}{}:{}:{}: {}{}{}: {}{}{}{}", bold, path_, at.line,
                 at.column, reset, sev_color, label, reset, bold, shown, was_cut ? "..." : "");
  out.append(reset);
  if (!id.empty()) fmt::format_to(std::back_inserter(out), " [{}]", id);
  out.push_back('\n');
}

void DiagnosticPrinter::source(std::string& out, std::size_t offset, const Location& at) {
  std::size_t& shown = shown_[at.line];
  if (shown == kMaxExcerptsPerLine) {
    fmt::format_to(std::back_inserter(out),
                   "(line {} was shown {} times; later findings on it are shown without it)\n",
                   at.line, kMaxExcerptsPerLine);
  }
  if (shown++ >= kMaxExcerptsPerLine) return;
  const std::string_view line = index_.line_text(text_, offset);
  const std::size_t caret = std::min<std::size_t>(at.column - 1, line.size());
  // A window of at most kMaxSourceColumns bytes with the caret in it, cut at characters.
  std::size_t begin = 0;
  std::size_t end = line.size();
  if (line.size() > kMaxSourceColumns) {
    begin = caret > kMaxSourceColumns / 2 ? caret - kMaxSourceColumns / 2 : 0;
    begin = std::min(begin, line.size() - kMaxSourceColumns);
    end = begin + kMaxSourceColumns;
    while (begin > 0 && is_continuation(line[begin])) --begin;
    while (end < line.size() && is_continuation(line[end])) ++end;
  }
  const bool cut_left = begin > 0;
  const bool cut_right = end < line.size();
  if (cut_left) out.append("...");
  append_printable(out, line.substr(begin, end - begin));
  if (cut_right) out.append("...");
  out.push_back('\n');
  if (cut_left) out.append("   ");
  for (std::size_t i = begin; i < caret; ++i) out.push_back(line[i] == '\t' ? '\t' : ' ');
  out.append(color_ ? "\x1b[1;32m^\x1b[0m" : "^");
  out.push_back('\n');
}

void DiagnosticPrinter::print(std::string& out, const Diagnostic& d) {
  const Location at = index_.location(d.begin);
  location_line(out, at, d.severity, to_string(d.severity), d.message, d.rule_id);
  source(out, d.begin, at);
  std::uint32_t shown_line = at.line;  // a source line is shown once in a row
  for (const Note& note : d.notes) {
    const Location nat = index_.location(note.begin);
    location_line(out, nat, Severity::info, "note", note.message, {});
    if (nat.line != shown_line) source(out, note.begin, nat);
    shown_line = nat.line;
  }
  if (d.fix) {
    out.append("help: ");
    out.append(d.fix->title);
    if (d.fix->safety == FixSafety::unsafe) {
      out.append(" (unsafe fix: apply with `vmxkit fix --unsafe-fixes`)");
    } else if (d.fix->safety == FixSafety::display_only) {
      out.append(" (not applied automatically)");
    }
    out.push_back('\n');
  }
}

void print_diagnostic(std::ostream& os, std::string_view path, std::string_view text,
                      const LineIndex& index, const Diagnostic& d, bool color) {
  DiagnosticPrinter printer(path, text, index, color);
  std::string out;
  printer.print(out, d);
  os << out;
}

}  // namespace vmxkit::report
