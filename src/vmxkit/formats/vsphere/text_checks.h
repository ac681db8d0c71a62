// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/core/wide_encoding.h"

/// Checks the vSphere readers share on the text they are given, and the quoting of values in
/// their messages.
namespace vmxkit::vsphere {

/// Throws vmxkit::Error at 1:1 for UTF-16 or UTF-32 text ("UTF-16 text: save it as UTF-8"):
/// every vSphere reader reads UTF-8 only, and reading wide text byte by byte finds nothing.
void refuse_wide_encoding(const SourceFile& source);

/// `value` in double quotes for a message: `"`, `\` and bytes that are not printable (control
/// bytes, DEL, bytes that are not well-formed UTF-8) are escaped as `\"`, `\\` and `\xNN`, so a
/// NUL cannot cut the message short and a terminal shows what the bytes were.
std::string quote_for_message(std::string_view value);

/// A writer's refusal of a text its form cannot carry (bytes that are not UTF-8 in JSON, XML or
/// HCL, a control byte in XML): `text()` is that key or value, so that a caller that knows
/// where the settings came from names the place (formats::locate_text).
class UncarriedText : public Error {
 public:
  UncarriedText(std::string_view text, const std::string& message) : Error(message), text_(text) {}
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// A byte as messages show it: `0xE9`.
std::string hex_byte(char byte);

}  // namespace vmxkit::vsphere
