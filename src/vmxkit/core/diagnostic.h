// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/text_edit.h"

namespace vmxkit {

/// How bad a finding is (shellcheck's four levels).
enum class Severity : unsigned char { error, warning, info, style };

std::string_view to_string(Severity severity);

/// Whether a fix may be applied without asking (ruff's applicability levels).
enum class FixSafety : unsigned char {
  safe,          ///< applied by `vmxkit fix`
  unsafe,        ///< applied only with `--unsafe-fixes`
  display_only,  ///< shown as advice, never applied
};

std::string_view to_string(FixSafety safety);

/// A change that resolves a diagnostic, as text edits on the original bytes.
struct Fix {
  std::string title;
  FixSafety safety = FixSafety::safe;
  std::vector<TextEdit> edits;
};

/// A secondary location that explains a diagnostic (e.g. the first of two duplicate keys).
struct Note {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string message;
};

/// A problem in a user's file. Positions are byte offsets into the file's bytes; line and column
/// are computed when printing, from the file's line index.
struct Diagnostic {
  std::string_view rule_id;  ///< "VMX001"; points at static storage (the rule table)
  Severity severity = Severity::error;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string message;  ///< no trailing period; names the thing found
  std::vector<Note> notes;
  std::optional<Fix> fix;
};

inline std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "info";
    case Severity::style:
      return "style";
  }
  return "error";
}

inline std::string_view to_string(FixSafety safety) {
  switch (safety) {
    case FixSafety::safe:
      return "safe";
    case FixSafety::unsafe:
      return "unsafe";
    case FixSafety::display_only:
      return "display-only";
  }
  return "safe";
}

}  // namespace vmxkit
