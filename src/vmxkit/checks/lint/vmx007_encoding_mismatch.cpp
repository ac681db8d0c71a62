// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace vmx007 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a file whose `.encoding` is `UTF-8` but whose bytes are not valid UTF-8, pointing at the
first invalid sequence.

## Why is this bad?
VMware and libvirt decode the file with the declared encoding. Bytes that are not UTF-8 under a
UTF-8 declaration are typically a file written in a legacy code page (windows-1252, cp949) with a
wrong declaration, or a multi-byte character cut in half; the value is not what it looks like, and
a cut character can swallow the closing quote of the line.

## Example
```
.encoding = "UTF-8"
displayName = "caf\xE9"
```
Declare the real encoding (`.encoding = "windows-1252"`) or re-save the file as UTF-8.

## Fix safety
No automatic fix: vmxkit never transcodes, and which encoding was meant cannot be known.

## References
- libvirt `src/vmx/vmx.c` (`.encoding` decides how the file is converted)
- corpus file from LanRenLan/config-backup (UTF-8 declared, truncated CJK bytes)
)md";

void check(const Context& ctx, Sink& sink) {
  const vmx::Document* doc = ctx.document();
  if (doc == nullptr) return;
  const vmx::Line* enc = doc->find(".encoding");
  if (enc == nullptr) return;
  const std::string_view name = doc->raw_value(*enc);
  if (!iequals(name, "UTF-8") && !iequals(name, "UTF8")) return;
  const std::size_t bad = find_invalid_utf8(doc->bytes());
  if (bad == std::string_view::npos) return;
  Diagnostic& d = sink.report(
      kVMX007, bad, bad + 1,
      fmt::format("byte 0x{:02X} is not valid UTF-8, but the file declares .encoding = \"{}\"",
                  static_cast<unsigned char>(doc->bytes()[bad]), name));
  d.notes.push_back({enc->value_begin, enc->value_end, "encoding declared here"});
}

}  // namespace vmx007

extern const Check kVMX007{
    .id = "VMX007",
    .name = "encoding-mismatch",
    .severity = Severity::error,
    .summary = "Bytes that are not valid in the declared .encoding",
    .doc = vmx007::kDoc,
    .check = &vmx007::check,
};

}  // namespace vmxkit::checks
