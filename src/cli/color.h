// SPDX-License-Identifier: Apache-2.0
// Whether to colour what goes to stdout and stderr (`--color`, NO_COLOR, FORCE_COLOR, a
// terminal): the command line decides, the report writers take the answer as a bool.
#pragma once

#include <iosfwd>

namespace vmxkit::cli {

/// `--color`: `automatic` colours a stream when FORCE_COLOR is set and not empty
/// (force-color.org; it wins over NO_COLOR, as in Node.js), else when it is a terminal and
/// NO_COLOR is unset or empty (no-color.org); `always` colours even then; `never` never.
enum class ColorChoice : unsigned char { automatic, always, never };

/// Whether to colour what is written to one stream: `terminal` says whether that stream is a
/// terminal, `no_color` and `force_color` are the values of NO_COLOR and FORCE_COLOR (null when
/// unset).
bool use_color(ColorChoice choice, bool terminal, const char* no_color,
               const char* force_color = nullptr);

/// Whether `os` is the process's standard output or standard error and that is a terminal (a
/// string stream never is).
bool is_terminal(const std::ostream& os);

}  // namespace vmxkit::cli
