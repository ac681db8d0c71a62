// SPDX-License-Identifier: Apache-2.0
#include "cli/report.h"

#include <unistd.h>

#include <fmt/format.h>

#include <iostream>
#include <ostream>
#include <string>

namespace vmxkit::cli {
namespace {

std::string_view severity_color(Severity s) {
  switch (s) {
    case Severity::error: return "\x1b[1;31m";
    case Severity::warning: return "\x1b[1;35m";
    case Severity::info: return "\x1b[1;36m";
    case Severity::style: return "\x1b[1;34m";
  }
  return "";
}

// Control bytes would garble a terminal; show them as VMware escapes.
std::string printable(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t') {
      out += fmt::format("|{:02X}", c);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

void print_location_line(std::ostream& os, std::string_view path, const Location& at,
                         Severity severity, std::string_view label, std::string_view message,
                         std::string_view id, bool color) {
  const std::string_view bold = color ? "\x1b[1m" : "";
  const std::string_view reset = color ? "\x1b[0m" : "";
  const std::string_view sev_color = color ? severity_color(severity) : "";
  os << bold << path << ':' << at.line << ':' << at.column << ": " << reset << sev_color << label
     << ": " << reset << bold << message << reset;
  if (!id.empty()) os << " [" << id << ']';
  os << '\n';
}

void print_source(std::ostream& os, std::string_view text, const LineIndex& index,
                  std::size_t offset, const Location& at, bool color) {
  const std::string_view line = index.line_text(text, offset);
  os << printable(line) << '\n';
  std::string pad;
  for (std::size_t i = 0; i + 1 < at.column && i < line.size(); ++i) {
    pad.push_back(line[i] == '\t' ? '\t' : ' ');
  }
  os << pad << (color ? "\x1b[1;32m^\x1b[0m" : "^") << '\n';
}

}  // namespace

bool use_color(ColorChoice choice, bool terminal, const char* no_color) {
  switch (choice) {
    case ColorChoice::always:
      return true;
    case ColorChoice::never:
      return false;
    case ColorChoice::automatic:
      break;
  }
  return terminal && (no_color == nullptr || *no_color == '\0');
}

bool is_terminal(const std::ostream& os) {
  if (&os == &std::cout) return ::isatty(STDOUT_FILENO) == 1;
  if (&os == &std::cerr || &os == &std::clog) return ::isatty(STDERR_FILENO) == 1;
  return false;
}

void print_diagnostic(std::ostream& os, std::string_view path, std::string_view text,
                      const LineIndex& index, const Diagnostic& d, bool color) {
  const Location at = index.location(d.begin);
  print_location_line(os, path, at, d.severity, to_string(d.severity), d.message, d.rule_id,
                      color);
  print_source(os, text, index, d.begin, at, color);
  std::uint32_t shown_line = at.line;  // a source line is shown once in a row
  for (const Note& note : d.notes) {
    const Location nat = index.location(note.begin);
    print_location_line(os, path, nat, Severity::info, "note", note.message, {}, color);
    if (nat.line != shown_line) print_source(os, text, index, note.begin, nat, color);
    shown_line = nat.line;
  }
  if (d.fix) {
    os << "help: " << d.fix->title;
    if (d.fix->safety == FixSafety::unsafe) {
      os << " (unsafe fix: apply with `vmxkit fix --unsafe-fixes`)";
    } else if (d.fix->safety == FixSafety::display_only) {
      os << " (not applied automatically)";
    }
    os << '\n';
  }
}

}  // namespace vmxkit::cli
