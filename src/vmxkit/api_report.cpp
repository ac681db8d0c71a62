// SPDX-License-Identifier: Apache-2.0
// The facade's reports (vmxkit/vmxkit.h): the text and JSON the command line prints, rendered
// by report/ from the facade's values, so a command writes what the API hands out.
#include <string>

#include "vmxkit/report/diagnostic_text.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

// --- diagnostics

std::string render_diagnostic(std::string_view path, std::string_view text, const LineIndex& lines,
                              const Diagnostic& diagnostic, bool color) {
  report::DiagnosticPrinter printer(path, text, lines, color);
  std::string out;
  printer.print(out, diagnostic);
  return out;
}

}  // namespace vmxkit
