// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"
#include "vmxkit/core/pci_address.h"

namespace vmxkit::checks {
namespace pt002 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags a `pciPassthruN.id` (or `pfId`) that is not in the decimal form vSphere writes into a `.vmx`,
`SSSSS:BBB:DD.F` (`00000:101:00.0` for host device `0000:65:00.0`), most often because the hex
address from `lspci`, `esxcli` or the vSphere API was pasted.

## Why is this bad?
The `.vmx` and the API write the same device differently: the API and `lspci` use hex
(`0000:65:00.0`), the `.vmx` uses decimal with a five-digit segment (`00000:101:00.0`, 0x65 = 101).
A hex id in the `.vmx` names another device or none, and power-on fails with
"AH No device hints found".

## Example
```
pciPassthru0.id = "0000:3b:00.0"
```
Use instead:
```
pciPassthru0.id = "00000:059:00.0"
```

## Fix safety
Safe for the hex form with a four-digit segment (`0000:3b:00.0`), which cannot be read as decimal:
it is converted. Other forms get no fix.

## References
- govmomi issue #2248 (`pciPassthru0.id = "00000:101:00.0"` for `0000:65:00.0`)
- Broadcom KB 309986 (esx.conf records the bus in decimal)
)md";

bool is_vmx_form(std::string_view id) {
  // %05d:%03d:%02d.%d
  if (id.size() != 14) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    const bool sep = i == 5 || i == 9 || i == 12;
    if (sep) {
      if (c != (i == 12 ? '.' : ':')) return false;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

void check_field(const Context& ctx, Sink& sink, const PassthroughDevice& d,
                 std::string_view field) {
  const Setting* s = ctx.device_setting(d, field);
  if (s == nullptr || is_vmx_form(s->value)) return;
  if (s->value.starts_with("Automatic")) return;  // SR-IOV PF pool choice
  if (s->value.starts_with("<fill in:")) return;  // PT009 reports placeholders
  const auto hex = parse_bdf(s->value);
  const bool api_form = hex && s->value.size() == 12 && s->value[4] == ':';
  if (api_form) {
    Diagnostic& diag =
        sink.report(kPT002, s->value_span,
                    fmt::format("{} '{}' is the hex form of the API and lspci; a .vmx needs '{}'",
                                s->key, s->value, hex->to_vmx()));
    if (ctx.document() != nullptr) {
      diag.fix = Fix{fmt::format("Write '{}'", hex->to_vmx()),
                     FixSafety::safe,
                     {{s->value_span.begin, s->value_span.end, hex->to_vmx()}}};
    }
    return;
  }
  if (parse_vmx_bdf(s->value)) return;  // older domain-less decimal form ESXi wrote
  sink.report(kPT002, s->value_span,
              fmt::format("{} '{}' is not a PCI address in the .vmx form SSSSS:BBB:DD.F", s->key,
                          s->value));
}

void check(const Context& ctx, Sink& sink) {
  for (const VmDevice& v : ctx.devices()) {
    check_field(ctx, sink, *v.entry, "id");
    check_field(ctx, sink, *v.entry, "pfId");
  }
}

}  // namespace pt002

extern const Check kPT002{
    .id = "PT002",
    .name = "hex-passthrough-id",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::safe,
    .summary = "A passthrough id not in the .vmx decimal form SSSSS:BBB:DD.F",
    .doc = pt002::kDoc,
    .check = &pt002::check,
};

}  // namespace vmxkit::checks
