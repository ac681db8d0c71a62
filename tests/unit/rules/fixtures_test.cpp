// SPDX-License-Identifier: Apache-2.0
// Data-driven rule tests: every `tests/rules/<ID>/*.vmx` (and `*.xml` ConfigSpec) is linted and
// the findings compared, exactly, with its `# expect: ID` marks (`<!-- expect: ID -->` in XML) on
// the line before, or at the end of the line itself;
// `<name>.fixed.vmx` beside it is the expected output of `fix --unsafe-fixes`. A first-line
// `# fixture: host=FILE` lints with that host capture (path relative to the fixture).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "support/support.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/pci/host.h"
#include "vmxkit/rules/engine.h"
#include "vmxkit/rules/rule.h"

namespace fs = std::filesystem;
using namespace vmxkit;

namespace {

using Finding = std::pair<std::uint32_t, std::string>;  // line, rule id

std::vector<std::string> ids_after(std::string_view text, std::string_view tag) {
  std::vector<std::string> ids;
  const auto at = text.find(tag);
  if (at == std::string_view::npos) return ids;
  std::string current;
  for (const char c : text.substr(at + tag.size())) {
    if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      current.push_back(c);
    } else if (!current.empty()) {
      ids.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) ids.push_back(current);
  return ids;
}

std::set<Finding> expected_findings(const std::string& text) {
  std::set<Finding> out;
  const LineIndex index(text);
  for (std::size_t n = 1; n <= index.line_count(); ++n) {
    const std::string_view line = index.line_text(text, index.line_start(n));
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    for (const std::string_view tag : {"# expect:", "<!-- expect:"}) {
      const bool own_line = line.substr(i).starts_with(tag);
      for (const std::string& id : ids_after(line, tag)) {
        out.emplace(static_cast<std::uint32_t>(own_line ? n + 1 : n), id);
      }
    }
  }
  return out;
}

struct Fixture {
  fs::path path;
  std::string text;
  std::unique_ptr<pci::Host> host;
};

Fixture load_fixture(const fs::path& path) {
  Fixture f{path, test::read_bytes(path), nullptr};
  const std::string_view first(f.text.data(), f.text.find('\n'));
  const std::string tag = "# fixture: host=";
  if (first.starts_with(tag)) {
    const fs::path host = path.parent_path() / std::string(first.substr(tag.size()));
    f.host = std::make_unique<pci::Host>(pci::load_host({host.string()}));
  }
  return f;
}

std::vector<fs::path> fixture_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(test::source_path("tests/rules"))) {
    const std::string name = e.path().filename().string();
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".vmx" || ext == ".xml") &&
        name.find(".fixed.") == std::string::npos) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("every rule fixture reports exactly its expected findings", "[rules][fixtures]") {
  const auto files = fixture_files();
  REQUIRE(files.size() >= 40);
  for (const fs::path& path : files) {
    const std::string rel = fs::relative(path, test::source_path("tests/rules")).string();
    INFO(rel);
    const Fixture f = load_fixture(path);
    rules::LintOptions options;
    options.host = f.host.get();
    const auto result = rules::lint(rel, f.text, options);
    std::set<Finding> actual;
    std::string report;
    for (const Diagnostic& d : result.diagnostics) {
      const Location at = result.location(d.begin);
      actual.emplace(at.line, std::string(d.rule_id));
      report += fmt::format("{}:{}: {} {}\n", at.line, at.column, d.rule_id, d.message);
    }
    INFO(report);
    CHECK(actual == expected_findings(f.text));
  }
}

TEST_CASE("every .fixed.vmx equals fix --unsafe-fixes of its fixture", "[rules][fixtures][fix]") {
  int compared = 0;
  for (const fs::path& path : fixture_files()) {
    fs::path fixed = path;
    fixed.replace_extension(".fixed.vmx");
    if (!fs::exists(fixed)) continue;
    INFO(path.filename().string());
    const Fixture f = load_fixture(path);
    rules::LintOptions options;
    options.host = f.host.get();
    const auto result = rules::fix(path.string(), f.text, options, /*unsafe=*/true);
    CHECK(result.bytes == test::read_bytes(fixed));
    CHECK(result.fixes_applied > 0);
    // After the fix nothing that was fixed fires again.
    for (const Diagnostic& d : result.remaining.diagnostics) {
      for (const std::string_view id : result.fixed_rules) {
        INFO(d.message);
        CHECK(d.rule_id != id);
      }
    }
    ++compared;
  }
  CHECK(compared >= 15);
}

TEST_CASE("every rule has a firing and a clean fixture, and a .fixed file when it fixes",
          "[rules][fixtures][registry]") {
  std::map<std::string, std::pair<int, int>> counts;  // id -> (files firing it, files not)
  std::set<std::string> with_fixed;
  for (const fs::path& path : fixture_files()) {
    const std::string dir = path.parent_path().filename().string();
    const auto expected = expected_findings(test::read_bytes(path));
    const bool fires = std::any_of(expected.begin(), expected.end(),
                                   [&](const Finding& f) { return f.second == dir; });
    (fires ? counts[dir].first : counts[dir].second)++;
    fs::path fixed = path;
    fixed.replace_extension(".fixed.vmx");
    if (fs::exists(fixed)) with_fixed.insert(dir);
  }
  for (const rules::Rule* rule : rules::all_rules()) {
    INFO(rule->id);
    CHECK(counts[std::string(rule->id)].first >= 1);
    CHECK(counts[std::string(rule->id)].second >= 1);
    const bool applies_fixes =
        rule->fix != rules::FixAvailability::none && rule->fix_safety != FixSafety::display_only;
    if (applies_fixes) CHECK(with_fixed.count(std::string(rule->id)) == 1);
  }
}
