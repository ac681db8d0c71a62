// SPDX-License-Identifier: Apache-2.0
// The one JSON writer. Every JSON document it prints (lint, SARIF, topo,
// mmio, host-check) is built as a `Json` value and written by write_json_document; strings that
// come from input bytes (paths, messages, device names) go in through json_text.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace vmxkit::report {

/// A JSON value whose object members keep the order they were added in.
using Json = nlohmann::ordered_json;

/// A JSON string from input bytes: each byte that is not part of well-formed UTF-8 (a legacy
/// code page, a truncated or overlong sequence, a code point above U+10FFFF) becomes U+FFFD.
std::string json_text(std::string_view bytes);

/// Writes `doc` with two-space indentation, UTF-8 as it is (not \u-escaped), and a final
/// newline. A string that reached the document without json_text has its invalid bytes replaced
/// by U+FFFD too, instead of failing the run.
void write_json_document(std::ostream& os, const Json& doc);

}  // namespace vmxkit::report
