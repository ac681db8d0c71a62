// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <array>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace vmx004 {

constexpr std::string_view kDoc = R"md(
## What it does
Flags characters pasted from web pages and word processors that look like `.vmx` syntax but are
not: curly quotes (`“ ” „ ‘ ’`) around a value, and curly quotes, no-break spaces, zero-width
spaces, fullwidth `＝` or dashes that are not `-` inside a key.

## Why is this bad?
`pciPassthru.use64bitMMIO=”TRUE”` reads as the unquoted value `”TRUE”` (with the UTF-8 bytes of
the quotes), which is not a boolean: the setting silently does nothing, and the GPU shows
"BAR1 is 0M" in the guest. A key with a no-break space is a different key from the one you meant.

## Example
```
pciPassthru.use64bitMMIO=”TRUE”
```
Use instead:
```
pciPassthru.use64bitMMIO="TRUE"
```

## Fix safety
Safe when a value is wrapped in curly quotes: they are replaced by `"` and the value between them
stays. Look-alikes inside keys have no automatic fix.

## References
- NVIDIA/gpu-operator issue #492 (settings posted with U+201D quotes; BAR1 0M in the guest)
- dntxos/TF2Kit `GPU_vmware_passthrough.md` (`“FALSE”`)
)md";

struct LookAlike {
  std::string_view bytes;
  std::string_view name;
  bool quote;
};

constexpr std::array<LookAlike, 10> kLookAlikes = {{
    {"\xE2\x80\x9C", "left double quotation mark U+201C", true},
    {"\xE2\x80\x9D", "right double quotation mark U+201D", true},
    {"\xE2\x80\x9E", "double low-9 quotation mark U+201E", true},
    {"\xE2\x80\x98", "left single quotation mark U+2018", true},
    {"\xE2\x80\x99", "right single quotation mark U+2019", true},
    {"\xC2\xA0", "no-break space U+00A0", false},
    {"\xE2\x80\x8B", "zero-width space U+200B", false},
    {"\xEF\xBC\x9D", "fullwidth equals sign U+FF1D", false},
    {"\xE2\x80\x93", "en dash U+2013", false},
    {"\xE2\x80\x94", "em dash U+2014", false},
}};

// Every look-alike starts with one of these lead bytes; ASCII text has none of them.
constexpr bool can_start_look_alike(unsigned char c) { return c == 0xE2 || c == 0xC2 || c == 0xEF; }

const LookAlike* look_alike_at(std::string_view text, std::size_t i) {
  if (!can_start_look_alike(static_cast<unsigned char>(text[i]))) return nullptr;
  for (const LookAlike& l : kLookAlikes) {
    if (text.substr(i, l.bytes.size()) == l.bytes) return &l;
  }
  return nullptr;
}

// True when `text` has a byte that can start a look-alike: most keys and values are ASCII.
bool may_have_look_alike(std::string_view text) {
  for (const char c : text) {
    if (can_start_look_alike(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

const LookAlike* curly_quote_prefix(std::string_view s) {
  for (const LookAlike& l : kLookAlikes) {
    if (l.quote && s.starts_with(l.bytes)) return &l;
  }
  return nullptr;
}

const LookAlike* curly_quote_suffix(std::string_view s) {
  for (const LookAlike& l : kLookAlikes) {
    if (l.quote && s.ends_with(l.bytes)) return &l;
  }
  return nullptr;
}

void check(const Context& ctx, Sink& sink) {
  const vmx::Document* doc = ctx.document();
  if (doc == nullptr) return;
  for (const vmx::Line& line : doc->lines()) {
    if (!line.is_entry()) continue;
    const std::string_view key = doc->key(line);
    const std::string_view raw = doc->raw_value(line);
    if (!may_have_look_alike(key) && !may_have_look_alike(raw)) continue;
    for (std::size_t i = 0; i < key.size(); ++i) {
      if (const LookAlike* l = look_alike_at(key, i)) {
        sink.report(kVMX004, line.key_begin + i, line.key_begin + i + l->bytes.size(),
                    fmt::format("key '{}' contains a {}", key, l->name));
        break;
      }
    }
    // A value wrapped in curly quotes (quoted or not): `=”TRUE”` or `= "“TRUE”"`.
    const LookAlike* open = curly_quote_prefix(raw);
    const LookAlike* close = open ? curly_quote_suffix(raw.substr(open->bytes.size())) : nullptr;
    if (open != nullptr && close != nullptr) {
      Diagnostic& d = sink.report(
          kVMX004, line.value_begin, line.value_end,
          fmt::format("value of '{}' is wrapped in curly quotes ({}), which are part of the value",
                      key, open->name));
      const std::size_t open_end = line.value_begin + open->bytes.size();
      const std::size_t close_begin = line.value_end - close->bytes.size();
      if (line.quoted) {
        d.fix = Fix{"Remove the curly quotes",
                    FixSafety::safe,
                    {{line.value_begin, open_end, ""}, {close_begin, line.value_end, ""}}};
      } else {
        d.fix = Fix{"Replace the curly quotes with \"",
                    FixSafety::safe,
                    {{line.value_begin, open_end, "\""}, {close_begin, line.value_end, "\""}}};
      }
    } else if (!line.quoted) {
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (const LookAlike* l = look_alike_at(raw, i)) {
          sink.report(kVMX004, line.value_begin + i, line.value_begin + i + l->bytes.size(),
                      fmt::format("unquoted value of '{}' contains a {}", key, l->name));
          break;
        }
      }
    }
  }
}

}  // namespace vmx004

extern const Check kVMX004{
    .id = "VMX004",
    .name = "look-alike-characters",
    .severity = Severity::error,
    .fix = FixAvailability::sometimes,
    .fix_safety = FixSafety::safe,
    .summary = "Curly quotes or other look-alikes pasted into a key or value",
    .doc = vmx004::kDoc,
    .check = &vmx004::check,
};

}  // namespace vmxkit::checks
