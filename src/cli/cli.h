// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace vmxkit::cli {

/// Exit codes of the command line (DESIGN.md).
enum ExitCode : int {
  kExitClean = 0,     ///< nothing at or above --fail-on
  kExitFindings = 1,  ///< findings at or above --fail-on (or: get found no such key, fmt --check)
  kExitInput = 2,     ///< usage error, unreadable or unusable input, refused write
  kExitInternal = 3,  ///< a bug
};

/// Runs the command line with `args` (without the program name). Reads `-` from `in`, writes
/// results to `out` and messages to `err`, returns the exit code. Never calls exit().
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

/// The subcommands run() builds for `args`: the one they name, none for `--version`, and all of
/// them otherwise (`--help`, no command, a misspelt one). For tests.
std::vector<std::string> commands_set_up_for(const std::vector<std::string>& args);

/// Installs the process's SIGBUS handler for inputs read through a mapping (vmxkit::InputFile)
/// and lets the library map them: a fault in the mapped input (its file truncated by another
/// program while vmxkit read it) is `vmxkit: error: FILE: truncated by another program while
/// vmxkit read it` on stderr and exit code 2, never a crash; any other SIGBUS gets the
/// disposition it had before. For main(): it changes the process's signal handling.
void install_mapped_input_guard();

}  // namespace vmxkit::cli
