// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <cctype>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace pt003 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `pciPassthruN.deviceId` or `vendorId` of a DirectPath entry that is not `0x` followed by
one to four hex digits (`"0x2331"`, `"0x10de"`).

## Why is this bad?
vSphere writes these ids as `0x`-prefixed hex. A decimal id (`"4318"` for NVIDIA, the signed-short
API value) or hex without `0x` does not match the device, and power-on fails with "the deviceId
and vendorId do not match the device currently at ...". govc 0.24 had exactly this bug
(decimal passed as hex).

## Example
```
pciPassthru0.vendorId = "4318"
```
Use instead:
```
pciPassthru0.vendorId = "0x10de"
```

## Fix safety
No automatic fix: `"7684"` could be decimal or hex without its prefix.

## References
- govmomi issue #2248 and PR #2249 (deviceId written in the wrong base)
- vmware-vmx-and-configspec reference §2.1 (signed short API types)
)md";

bool is_0x_hex(std::string_view v) {
  if (v.size() < 3 || v.size() > 6 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return false;
  for (const char c : v.substr(2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    const PassthroughKind kind = v.entry->kind();
    if (kind != PassthroughKind::directpath) continue;
    for (const std::string_view field : {"deviceId", "vendorId"}) {
      const Setting* s = ctx.device_setting(*v.entry, field);
      if (s == nullptr || is_0x_hex(s->value)) continue;
      sink.report(
          kPT003, s->value_span,
          fmt::format("{} '{}' is not 0x-prefixed hex (such as \"0x10de\")", s->key, s->value));
    }
  }
}

}  // namespace pt003

extern const Check kPT003{
    .id = "PT003",
    .name = "passthrough-id-not-hex",
    .severity = Severity::error,
    .summary = "A deviceId or vendorId that is not 0x-prefixed hex",
    .doc = pt003::kDoc,
    .check = &pt003::check,
};

}  // namespace vmxkit::checks
