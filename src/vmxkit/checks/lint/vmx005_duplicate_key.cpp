// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <utility>

#include "vmxkit/checks/all.h"
#include "vmxkit/formats/vmx/edit.h"

namespace vmxkit::checks {
namespace vmx005 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a key that appears more than once, including spellings that differ only in letter case
(`msg.autoAnswer` and `msg.autoanswer`).

## Why is this bad?
`.vmx` keys are case-insensitive, and a file with the same key twice is reported as corrupted:
the VM will not start until one of them is removed (Vagrant issue #2597). Tools that lower-case
keys on read and then write a mixed-case key back create exactly this.

## Example
```
msg.autoAnswer = "TRUE"
msg.autoanswer = "FALSE"
```
Use instead:
```
msg.autoAnswer = "TRUE"
```

## Fix safety
Unsafe: the fix keeps the first occurrence (the one libvirt and most tools read) and removes the
others, but which value you meant cannot be known.

## References
- hashicorp/vagrant issue #2597 (duplicate `msg.autoanswer` makes the VM refuse to start)
- hashicorp/packer issues #2574 and PR #2578, vmware/packer-plugin-vmware PR #31
)md";

void check(const Context& ctx, Sink& sink) {
  const vmx::Document* doc = ctx.document();
  if (doc == nullptr) return;
  // duplicate_keys() is one pass with a hash map of folded keys; each group's fix (on its first
  // duplicate) removes all the others, so one fix pass resolves every duplicate of a key.
  for (const auto& group : doc->duplicate_keys()) {
    const vmx::Line& first = *group.front();
    const std::string first_key = vmx::shorten(doc->key(first));
    std::vector<TextEdit> removals =
        vmx::remove_lines(*doc, std::span<const vmx::Line* const>(group).subspan(1));
    for (std::size_t i = 1; i < group.size(); ++i) {
      const vmx::Line& line = *group[i];
      Diagnostic& d = sink.report(
          kVMX005, line.key_begin, line.key_end,
          fmt::format("duplicate key '{}' (keys ignore letter case): VMware refuses the file",
                      vmx::shorten(doc->key(line))));
      d.notes.push_back(
          {first.key_begin, first.key_end, fmt::format("first defined here as '{}'", first_key)});
      if (i == 1) {
        d.fix = Fix{"Keep the first and remove the other lines", FixSafety::unsafe,
                    std::exchange(removals, {})};
      }
    }
  }
}

}  // namespace vmx005

extern const Check kVMX005{
    .id = "VMX005",
    .name = "duplicate-key",
    .severity = Severity::error,
    .fix = FixAvailability::always,
    .fix_safety = FixSafety::unsafe,
    .summary = "A key defined twice, also when the case differs",
    .doc = vmx005::kDoc,
    .check = &vmx005::check,
};

}  // namespace vmxkit::checks
