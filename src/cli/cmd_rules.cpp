// SPDX-License-Identifier: Apache-2.0
// vmxkit rules and vmxkit rule ID: the catalogue and each rule's documentation.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/report/check_docs.h"
#include "vmxkit/checks/rule.h"

namespace vmxkit::cli {

void setup_rules(CLI::App& app, Context& ctx) {
  auto format = std::make_shared<std::string>("text");
  auto* sub = app.add_subcommand("rules", "List the rule catalogue");
  sub->add_option("--format", *format, "text, or markdown for the catalogue page")
      ->check(CLI::IsMember({"text", "markdown"}));
  sub->callback([format, &ctx] {
    if (*format == "markdown") {
      ctx.out << checks::catalogue_markdown();
      return;
    }
    ctx.out << fmt::format("{:<8} {:<40} {:<8} {}\n", "ID", "NAME", "SEVERITY", "FIX");
    for (const checks::Rule* r : checks::all_rules()) {
      const std::string fix =
          r->fix == checks::FixAvailability::none ? "-" : std::string(to_string(r->fix_safety));
      ctx.out << fmt::format("{:<8} {:<40} {:<8} {}\n", r->id, r->name, to_string(r->severity),
                             fix);
    }
  });
}

void setup_rule(CLI::App& app, Context& ctx) {
  auto id = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("rule", "Print a rule's documentation");
  sub->add_option("ID", *id, "Rule id (P2P001) or name (missing-allow-p2p)")->required();
  sub->callback([id, &ctx] {
    for (const checks::Rule* r : checks::all_rules()) {
      if (iequals(r->id, *id) || r->name == *id) {
        ctx.out << checks::rule_page(*r);
        return;
      }
    }
    throw Error(fmt::format("no rule '{}' (see `vmxkit rules`)", *id));
  });
}

}  // namespace vmxkit::cli
