// SPDX-License-Identifier: Apache-2.0
// SARIF 2.1.0 (OASIS), the log code-scanning tools read.
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/core/diagnostic.h"

namespace vmxkit::report {

/// SARIF's level for a severity: error, warning, note.
std::string sarif_level(Severity s);
/// A relative path as a SARIF URI reference: '/' separators, reserved bytes percent-encoded.
std::string uri_reference(std::string_view path);

}  // namespace vmxkit::report
