// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "support/support.h"
#include "vmxkit/rules/docs.h"
#include "vmxkit/rules/rule.h"

using namespace vmxkit::rules;

TEST_CASE("rule ids are unique, sorted and of the form PREFIX plus three digits",
          "[rules][registry]") {
  const std::regex id_form("^(VMX|PT|P2P|MMIO|TOPO|XML)[0-9]{3}$");
  const std::regex name_form("^[a-z0-9]+(-[a-z0-9]+)*$");
  std::set<std::string_view> ids, names;
  std::string_view previous;
  for (const Rule* r : all_rules()) {
    INFO(r->id);
    CHECK(std::regex_match(std::string(r->id), id_form));
    CHECK(std::regex_match(std::string(r->name), name_form));
    CHECK(ids.insert(r->id).second);
    CHECK(names.insert(r->name).second);
    CHECK(previous < r->id);
    previous = r->id;
    CHECK(find_rule(r->id) == r);
    CHECK_FALSE(r->summary.empty());
  }
}

TEST_CASE("every rule doc has the five headings in order", "[rules][registry]") {
  for (const Rule* r : all_rules()) {
    INFO(r->id);
    std::size_t pos = 0;
    for (const char* heading : {"## What it does", "## Why is this bad?", "## Example",
                                "## Fix safety", "## References"}) {
      const std::size_t at = r->doc.find(heading, pos);
      CHECK(at != std::string_view::npos);
      if (at != std::string_view::npos) pos = at;
    }
  }
}

TEST_CASE("docs/rules.md is the catalogue the registry renders", "[rules][registry][docs]") {
  // Regenerate with: vmxkit rules --format markdown > docs/rules.md
  CHECK(vmxkit::test::read_bytes(vmxkit::test::source_path("docs/rules.md")) ==
        catalogue_markdown());
}
