// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace vmx006 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a UTF-8 byte order mark (`EF BB BF`) at the start of the file.

## Why is this bad?
VMware's own reader skips a BOM, but users report Workstation calling a `.vmx` saved by Notepad
with a BOM "corrupted", and VMware's writer never writes one. Other tools that read `.vmx` files
(Packer, govmx, GNS3) read the BOM as part of the first key.

## Example
A file saved as "UTF-8 with BOM" by a Windows editor.

## Fix safety
Safe: the three bytes carry no setting.

## References
- open-vm-tools `lib/dict/dictll.c` (`DictLL_ReadUTF8BOM`)
- Tyleraltight/SafeExamBrowser_bypass issue #1 (a BOM reported to corrupt the file)
)md";

void check(const Context& ctx, Sink& sink) {
  if (ctx.document() == nullptr || !ctx.document()->has_bom()) return;
  Diagnostic& d = sink.report(kVMX006, 0, 3, "file starts with a UTF-8 byte order mark");
  d.fix = Fix{"Remove the byte order mark", FixSafety::safe, {{0, 3, ""}}};
}

}  // namespace vmx006

extern const Check kVMX006{
    .id = "VMX006",
    .name = "byte-order-mark",
    .severity = Severity::warning,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::safe,
    .summary = "A UTF-8 byte order mark at the start of the file",
    .doc = vmx006::kDoc,
    .check = &vmx006::check,
};

}  // namespace vmxkit::checks
