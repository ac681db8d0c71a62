// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <iosfwd>
#include <string_view>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/source_file.h"

namespace vmxkit::cli {

/// `--color`: `automatic` colours a stream when it is a terminal and NO_COLOR is unset or empty
/// (no-color.org); `always` colours even then, as most tools do; `never` never.
enum class ColorChoice : unsigned char { automatic, always, never };

/// Whether to colour what is written to one stream: `terminal` says whether that stream is a
/// terminal, `no_color` is the value of the NO_COLOR environment variable (null when unset).
bool use_color(ColorChoice choice, bool terminal, const char* no_color);

/// Whether `os` is the process's standard output or standard error and that is a terminal (a
/// string stream never is).
bool is_terminal(const std::ostream& os);

/// Prints a diagnostic GCC style, with the source line and a caret under the column:
///
///     vm.vmx:3:5: error: expected '=' after key 'key' [VMX001]
///     key "value1"
///         ^
void print_diagnostic(std::ostream& os, std::string_view path, std::string_view text,
                      const LineIndex& index, const Diagnostic& d, bool color);

}  // namespace vmxkit::cli
