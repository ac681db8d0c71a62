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

}  // namespace vmxkit::cli
