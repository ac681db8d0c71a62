// SPDX-License-Identifier: Apache-2.0
// vmxkit rules and vmxkit rule ID: the check catalogue and each check's documentation.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct RulesOptions {
  std::string format = "text";
  std::string kind;  ///< empty: every kind
};

// ASCII case-insensitive, as rule ids are matched (`vmxkit rule p2p001`).
bool same_id(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](char x, char y) { return lower(x) == lower(y); });
}

void list_checks(const RulesOptions& o, Context& ctx) {
  if (o.format == "markdown") {
    ctx.out << render_rules_markdown();
    return;
  }
  std::vector<RuleInfo> list;
  for (const RuleInfo& r : all_rules()) {
    if (o.kind.empty() || to_string(r.kind) == o.kind) list.push_back(r);
  }
  if (o.format == "json") {
    ctx.out << render_rules_json(list);
    return;
  }
  ctx.out << fmt::format("{:<8} {:<40} {:<5} {:<8} {}\n", "ID", "NAME", "KIND", "SEVERITY", "FIX");
  for (const RuleInfo& r : list) {
    const std::string fix = r.fix == RuleFix::none ? "-" : std::string(to_string(r.fix_safety));
    ctx.out << fmt::format("{:<8} {:<40} {:<5} {:<8} {}\n", r.id, r.name, to_string(r.kind),
                           to_string(r.severity), fix);
  }
}

}  // namespace

void setup_rules(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RulesOptions>();
  auto* sub = app.add_subcommand(
      "rules", "List every check: lint rules, host checks and guest checks, with their kind");
  sub->add_option("--format", o->format, "text, json, or markdown for the catalogue page")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  sub->add_option("--kind", o->kind, "only the checks of one kind: lint, host or guest")
      ->check(CLI::IsMember({"lint", "host", "guest"}));
  sub->callback([o, &ctx] { list_checks(*o, ctx); });
}

void setup_rule(CLI::App& app, Context& ctx) {
  auto id = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("rule", "Print a check's documentation (any kind)");
  sub->add_option("ID", *id, "Check id (P2P001) or name (missing-allow-p2p)")->required();
  sub->callback([id, &ctx] {
    for (const RuleInfo& r : all_rules()) {
      if (same_id(r.id, *id) || r.name == *id) {
        ctx.out << render_rule_page(r);
        return;
      }
    }
    throw Error(fmt::format("no check '{}' (see `vmxkit rules`)", *id));
  });
}

}  // namespace vmxkit::cli
