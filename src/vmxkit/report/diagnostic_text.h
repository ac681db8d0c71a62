// SPDX-License-Identifier: Apache-2.0
// Diagnostics as text, GCC style: the location, the message, the source line and a caret,
// bounded however long the line or many the findings. Colour is the caller's decision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/source_file.h"

namespace vmxkit::report {

/// Bounds on what one finding prints, so a huge line or many findings on one line cannot make
/// huge output: a source line is shown as a window of at most kMaxSourceColumns bytes around
/// the caret (`...` marks the cut ends); a line is shown with at most kMaxExcerptsPerLine
/// findings (and notes) of one file, later ones print their location line only; a message is
/// cut after kMaxMessageBytes.
inline constexpr std::size_t kMaxSourceColumns = 200;
inline constexpr std::size_t kMaxExcerptsPerLine = 10;
inline constexpr std::size_t kMaxMessageBytes = 1000;

/// Prints the diagnostics of one file GCC style, with the source line and a caret under the
/// column:
///
///     vm.vmx:3:5: error: expected '=' after key 'key' [VMX001]
///     key "value1"
///         ^
///
/// and remembers which lines it showed (kMaxExcerptsPerLine). Appends to a string, so a caller
/// writes a file's findings with one write.
class DiagnosticPrinter {
 public:
  DiagnosticPrinter(std::string_view path, std::string_view text, const LineIndex& index,
                    bool color)
      : path_(path), text_(text), index_(index), color_(color) {}

  void print(std::string& out, const Diagnostic& d);

 private:
  void location_line(std::string& out, const Location& at, Severity severity,
                     std::string_view label, std::string_view message, std::string_view id) const;
  void source(std::string& out, std::size_t offset, const Location& at);

  std::string_view path_;
  std::string_view text_;
  const LineIndex& index_;
  bool color_;
  std::unordered_map<std::uint32_t, std::size_t> shown_;  ///< line -> excerpts printed
};

/// Prints one diagnostic (a DiagnosticPrinter of its own).
void print_diagnostic(std::ostream& os, std::string_view path, std::string_view text,
                      const LineIndex& index, const Diagnostic& d, bool color);

}  // namespace vmxkit::report
