// SPDX-License-Identifier: Apache-2.0
#include "cli/color.h"

#include <unistd.h>

#include <iostream>

namespace vmxkit::cli {

bool use_color(ColorChoice choice, bool terminal, const char* no_color, const char* force_color) {
  switch (choice) {
    case ColorChoice::always:
      return true;
    case ColorChoice::never:
      return false;
    case ColorChoice::automatic:
      break;
  }
  if (force_color != nullptr && *force_color != '\0') return true;
  return terminal && (no_color == nullptr || *no_color == '\0');
}

bool is_terminal(const std::ostream& os) {
  if (&os == &std::cout) return ::isatty(STDOUT_FILENO) == 1;
  if (&os == &std::cerr || &os == &std::clog) return ::isatty(STDERR_FILENO) == 1;
  return false;
}

}  // namespace vmxkit::cli
