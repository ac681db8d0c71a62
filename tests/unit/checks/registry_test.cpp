// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "support/support.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/core/text.h"
#include "vmxkit/report/check_docs.h"

using namespace vmxkit::checks;

TEST_CASE("rule ids are unique, sorted and of the form PREFIX plus three digits",
          "[rules][registry]") {
  const std::regex id_form("^(VMX|PT|P2P|MMIO|TOPO|XML|OVF|FORM|HOST|GUEST)[0-9]{3}$");
  const std::regex name_form("^[a-z0-9]+(-[a-z0-9]+)*$");
  std::set<std::string_view> ids, names;
  std::string_view previous;
  for (const Check* r : all_checks()) {
    INFO(r->id);
    CHECK(std::regex_match(std::string(r->id), id_form));
    CHECK(std::regex_match(std::string(r->name), name_form));
    CHECK(ids.insert(r->id).second);
    CHECK(names.insert(r->name).second);
    CHECK(previous < r->id);
    previous = r->id;
    CHECK(find_check(r->id) == r);
    CHECK_FALSE(r->summary.empty());
  }
}

TEST_CASE("every check is defined in <kind>/<id>_<name>.cpp and every check file defines one",
          "[rules][registry]") {
  // `PT002` named `hex-passthrough-id` lives in
  // src/vmxkit/checks/lint/pt002_hex_passthrough_id.cpp, `HOST003` in checks/host/, `GUEST001` in
  // checks/guest/.
  const std::filesystem::path root = vmxkit::test::source_path("src/vmxkit/checks");
  std::set<std::string> expected;
  for (const Check* r : all_checks()) {
    std::string file;
    for (const char c : r->id) file.push_back(vmxkit::ascii_lower(c));
    file.push_back('_');
    for (const char c : r->name) file.push_back(c == '-' ? '_' : c);
    file.append(".cpp");
    INFO(r->id << " " << r->name);
    expected.insert(file);
    const std::filesystem::path dir = root / std::string(to_string(r->kind));
    const bool exists = std::filesystem::is_regular_file(dir / file);
    CHECK(exists);
    if (!exists) continue;
    const std::string text = vmxkit::test::read_bytes(dir / file);
    CHECK(text.find(".id = \"" + std::string(r->id) + "\"") != std::string::npos);
    CHECK(text.find(".name = \"" + std::string(r->name) + "\"") != std::string::npos);
  }
  const std::regex rule_file("^(vmx|pt|p2p|mmio|topo|xml|ovf|form|host|guest)[0-9]{3}_.*\\.cpp$");
  std::size_t rule_files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (!std::regex_match(file, rule_file)) continue;
    ++rule_files;
    INFO(file << " defines no registered rule under that name");
    CHECK(expected.count(file) == 1);
  }
  CHECK(rule_files == all_checks().size());
}

TEST_CASE("malformed lines are VMX002 for an unterminated quote and VMX001 otherwise",
          "[rules][registry][VMX001][VMX002]") {
  const auto doc = vmxkit::vmx::Document::parse("a = \"1\"\nkey value\nb = \"open\nc = x\"y\"\n");
  const auto problems = doc.problems();
  const auto diags = line_diagnostics(problems);
  REQUIRE(diags.size() == 3);
  CHECK(diags[0].rule_id == "VMX001");
  CHECK(diags[1].rule_id == "VMX002");
  CHECK(diags[2].rule_id == "VMX001");
  for (std::size_t i = 0; i < diags.size(); ++i) {
    CHECK(diags[i].severity == find_check(diags[i].rule_id)->severity);
    CHECK(diags[i].begin == problems[i].begin);
    CHECK(diags[i].end == problems[i].end);
    CHECK(diags[i].message == problems[i].message);
  }
}

TEST_CASE("schema problems are XML001 errors at their element", "[rules][registry][XML001]") {
  const std::vector<vmxkit::vsphere::SchemaProblem> problems = {{{12, 12}, "not valid: x"}};
  const auto diags = schema_diagnostics(problems);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].rule_id == "XML001");
  CHECK(diags[0].severity == vmxkit::Severity::error);
  CHECK(diags[0].begin == 12);
  CHECK(diags[0].end == 12);
  CHECK(diags[0].message == "not valid: x");
}

TEST_CASE("every rule doc has the five headings in order", "[rules][registry]") {
  for (const Check* r : all_checks()) {
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
