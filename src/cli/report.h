// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <iosfwd>
#include <string_view>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/source_file.h"

namespace vmxkit::cli {

/// Prints a diagnostic GCC style, with the source line and a caret under the column:
///
///     vm.vmx:3:5: error: expected '=' after key 'key' [VMX001]
///     key "value1"
///         ^
void print_diagnostic(std::ostream& os, std::string_view path, std::string_view text,
                      const LineIndex& index, const Diagnostic& d, bool color);

}  // namespace vmxkit::cli
