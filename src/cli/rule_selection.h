// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "vmxkit/vmxkit.h"

namespace CLI {
class App;
}

namespace vmxkit::cli {

/// `--select`, `--extend-select`, `--ignore`, `--extend-ignore`, with ruff's names and meaning
/// (vmxkit::RuleSelection): each takes a rule id (`PT004`), a prefix of ids (`PT`, `MMIO0`) or
/// `ALL`, repeated or comma-separated.
void add_rule_selection(CLI::App& sub, RuleSelection& selection);

}  // namespace vmxkit::cli
