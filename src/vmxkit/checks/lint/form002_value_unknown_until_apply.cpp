// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/checks/util.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace form002 {

constexpr std::string_view kDoc = R"md(
## What it does
Names each value of a Terraform plan that Terraform knows only after apply (`after_unknown`:
an `extra_config` value computed from another resource, a `pci_device_id` from a data source
not read yet, `firmware` from a variable...), and turns a finding that would say the setting it
gives is missing (MMIO001, MMIO002, MMIO004, MMIO005, P2P001, P2P002, PT008) into this note:
the setting is not known until apply, so vmxkit cannot say it is missing.

## Why is this bad?
It is not: it is information. vmxkit checks the plan without the unknown value; a verdict that
depends on it is left to a run on the state after apply (`terraform show -json`), or on the VM.

## Example
```json
"after_unknown": { "extra_config": { "pciPassthru.64bitMMIOSizeGB": true } }
```
MMIO002 is not reported: the size is not known until apply.

## Fix safety
No automatic fix: nothing is known to be wrong.

## References
- Terraform JSON output format, `after_unknown`:
  <https://developer.hashicorp.com/terraform/internals/json-format>
)md";

struct Judged {
  std::string_view rule;
  std::array<std::string_view, 2> keys;
};

// The rules that report a setting as missing or too small, and the settings they judge.
constexpr std::array<Judged, 7> kJudged{{
    {"MMIO001", {kUse64bitMmio, {}}},
    {"MMIO002", {kMmioSizeGb, {}}},
    {"MMIO004", {kMmioSizeGb, {}}},
    {"MMIO005", {"firmware", {}}},
    {"P2P001", {kAllowP2P, {}}},
    {"P2P002", {kRelaxAcs, {}}},
    {"PT008", {"sched.mem.min", "sched.mem.pin"}},
}};

// Settings that are arguments of their own, never extraConfig keys: a wholly unknown
// `extra_config` (`*`) does not give them.
constexpr std::array<std::string_view, 3> kNotExtraConfig{"firmware", "sched.mem.min",
                                                          "sched.mem.pin"};

// Whether an unknown value's key (`*` ends a prefix) would give `key`.
bool covers(std::string_view pattern, std::string_view key) {
  if (pattern.empty() || key.empty()) return false;
  if (pattern == "*") {
    return std::find(kNotExtraConfig.begin(), kNotExtraConfig.end(), key) == kNotExtraConfig.end();
  }
  if (pattern.back() == '*') {
    const std::string_view prefix = pattern.substr(0, pattern.size() - 1);
    return key.size() >= prefix.size() && iequals(key.substr(0, prefix.size()), prefix);
  }
  return iequals(pattern, key);
}

// The unknown value a rule's verdict depends on: one that gives the very setting first, then
// one that may (a whole map, a device).
const UnknownValue* unknown_for(std::string_view rule, std::span<const UnknownValue> unknown) {
  const auto* judged =
      std::find_if(kJudged.begin(), kJudged.end(), [&](const Judged& j) { return j.rule == rule; });
  if (judged == kJudged.end()) return nullptr;
  for (const bool exact : {true, false}) {
    for (const UnknownValue& u : unknown) {
      for (const std::string& pattern : u.keys) {
        if (exact == (!pattern.empty() && pattern.back() == '*')) continue;
        for (std::string_view key : judged->keys) {
          if (covers(pattern, key)) return &u;
        }
      }
    }
  }
  return nullptr;
}

}  // namespace form002

// Found from the Terraform reader's unknown values, so there is no check function: the engine
// calls defer_unknown() on the VM's findings.
extern const Check kFORM002{
    .id = "FORM002",
    .name = "value-unknown-until-apply",
    .severity = Severity::info,
    .summary = "A Terraform plan value known only after apply, so not judged missing",
    .doc = form002::kDoc,
    .check = nullptr,
};

void defer_unknown(std::vector<Diagnostic>& found, std::span<const UnknownValue> unknown) {
  if (unknown.empty()) return;
  for (Diagnostic& d : found) {
    const UnknownValue* u = form002::unknown_for(d.rule_id, unknown);
    if (u == nullptr) continue;
    d.message = fmt::format(
        "{} not judged: {} is not known until apply, and the verdict depends on it ({})", d.rule_id,
        u->attribute, d.message);
    d.rule_id = kFORM002.id;
    d.severity = kFORM002.severity;
    d.fix.reset();
    d.notes.push_back({u->where.begin, u->where.end, "Terraform knows this value after apply"});
  }
  Sink sink;
  for (const UnknownValue& u : unknown) {
    sink.report(
        kFORM002, u.where,
        fmt::format("{} is not known until apply: vmxkit reads the VM without it", u.attribute));
  }
  for (Diagnostic& d : sink.diagnostics()) found.push_back(std::move(d));
}

}  // namespace vmxkit::checks
