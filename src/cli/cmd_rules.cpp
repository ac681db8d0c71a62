// SPDX-License-Identifier: Apache-2.0
// vmxkit rules and vmxkit rule ID: the check catalogue and each check's documentation.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/report/check_docs.h"
#include "vmxkit/report/json.h"

namespace vmxkit::cli {

using report::Json, report::json_text, report::write_json_document;

namespace {

struct RulesOptions {
  std::string format = "text";
  std::string kind;  ///< empty: every kind
};

Json check_json(const checks::Check& c) {
  return {{"id", c.id},
          {"name", c.name},
          {"kind", to_string(c.kind)},
          {"severity", to_string(c.severity)},
          {"fix", to_string(c.fix)},
          {"fix_safety",
           c.fix == checks::FixAvailability::none ? Json(nullptr) : Json(to_string(c.fix_safety))},
          {"needs_host", c.needs_host},
          {"status", c.status == checks::CheckStatus::stable ? "stable" : "removed"},
          {"summary", c.summary}};
}

void list_checks(const RulesOptions& o, Context& ctx) {
  if (o.format == "markdown") {
    ctx.out << checks::catalogue_markdown();
    return;
  }
  std::vector<const checks::Check*> list;
  for (const checks::Check* c : checks::all_checks()) {
    if (o.kind.empty() || to_string(c->kind) == o.kind) list.push_back(c);
  }
  if (o.format == "json") {
    Json items = Json::array();
    for (const checks::Check* c : list) items.push_back(check_json(*c));
    write_json_document(ctx.out, {{"checks", std::move(items)}});
    return;
  }
  ctx.out << fmt::format("{:<8} {:<40} {:<5} {:<8} {}\n", "ID", "NAME", "KIND", "SEVERITY", "FIX");
  for (const checks::Check* c : list) {
    const std::string fix =
        c->fix == checks::FixAvailability::none ? "-" : std::string(to_string(c->fix_safety));
    ctx.out << fmt::format("{:<8} {:<40} {:<5} {:<8} {}\n", c->id, c->name, to_string(c->kind),
                           to_string(c->severity), fix);
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
    for (const checks::Check* r : checks::all_checks()) {
      if (iequals(r->id, *id) || r->name == *id) {
        ctx.out << checks::rule_page(*r);
        return;
      }
    }
    throw Error(fmt::format("no check '{}' (see `vmxkit rules`)", *id));
  });
}

}  // namespace vmxkit::cli
