// SPDX-License-Identifier: Apache-2.0
// Data-driven rule tests: every `tests/checks/<ID>/*.vmx` (and `*.xml` ConfigSpec) is linted and
// the findings compared, exactly, with its `# expect: ID` marks (`<!-- expect: ID -->` in XML) on
// the line before, or at the end of the line itself;
// `<name>.fixed.vmx` beside it is the expected output of `fix --unsafe-fixes`. A first-line
// `# fixture: host=FILE` lints with that host capture (path relative to the fixture).
// Every fixture, `.fixed.vmx` files included, also has `<fixture>.expected` beside it: the whole
// text `vmxkit lint [--host FILE] tests/checks/<ID>/<fixture>` prints from the project root
// (tests/checks/README.md). VMXKIT_UPDATE_SNAPSHOTS=1 rewrites those snapshots instead of failing.
// Host and guest checks (HOST..., GUEST...) have `*.args` fixtures instead: the arguments of
// `vmxkit host-check` or `vmxkit guest-check`, one per line, with `# expect: ID...` naming
// exactly the check ids the run reports (see fixture_run below).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/diff.h"
#include "support/support.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/lint_report.h"

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

// The fixtures (`*.vmx`, `*.xml`), without or with the `*.fixed.vmx` files.
std::vector<fs::path> fixture_files(bool with_fixed = false) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(test::source_path("tests/checks"))) {
    const std::string name = e.path().filename().string();
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".vmx" || ext == ".xml" || ext == ".yaml") &&
        (with_fixed || name.find(".fixed.") == std::string::npos)) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

constexpr std::string_view kSnapshotExtension = ".expected";

// What `vmxkit lint [--host FILE] tests/checks/<ID>/<fixture>` prints from the project root,
// rendered with the functions `vmxkit lint` uses, without colour.
std::string lint_text(const fs::path& path) {
  const Fixture f = load_fixture(path);
  checks::LintOptions options;
  options.host = f.host.get();
  const std::string name = fs::relative(path, test::source_path("")).generic_string();
  std::ostringstream out;
  report::write_text(out, {checks::lint(name, f.text, options)}, /*color=*/false);
  return out.str();
}

// --- host and guest check fixtures (`*.args`) ---

struct ArgsFixture {
  std::vector<std::string> args;   ///< the command and its arguments, paths from the project root
  std::set<std::string> expected;  ///< `# expect:` ids
};

// Reads an `.args` fixture: `# expect: ID...` lines, other `#` lines are comments, every other
// line one argument; an argument naming a file beside the fixture becomes its path from the
// project root, as a user would type it there.
ArgsFixture load_args_fixture(const fs::path& path) {
  ArgsFixture f;
  const std::string id = path.parent_path().filename().string();
  f.args.push_back(id.starts_with("GUEST") ? "guest-check" : "host-check");
  std::istringstream lines(test::read_bytes(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# expect:")) {
      for (const std::string& e : ids_after(line, "# expect:")) f.expected.insert(e);
    } else if (!line.empty() && line.front() != '#') {
      const fs::path beside = path.parent_path() / line;
      f.args.push_back(fs::exists(beside)
                           ? fs::relative(fs::weakly_canonical(beside),
                                          fs::weakly_canonical(test::source_path("")))
                                 .generic_string()
                           : line);
    }
  }
  return f;
}

// Runs the command of an `.args` fixture from the project root, as `vmxkit` would print it.
test::CliResult run_args_fixture(const ArgsFixture& f, const std::string& format) {
  const fs::path before = fs::current_path();
  fs::current_path(test::source_path(""));
  std::vector<std::string> args = f.args;
  if (format != "text") {
    args.push_back("--format");
    args.push_back(format);
  }
  test::CliResult r = test::run_cli(args);
  fs::current_path(before);
  return r;
}

std::vector<fs::path> args_fixture_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(test::source_path("tests/checks"))) {
    if (e.is_regular_file() && e.path().extension() == ".args") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool updating_snapshots() {
  const char* value = std::getenv("VMXKIT_UPDATE_SNAPSHOTS");
  return value != nullptr && std::string_view(value) == "1";
}

}  // namespace

TEST_CASE("every rule fixture reports exactly its expected findings", "[rules][fixtures]") {
  const auto files = fixture_files();
  REQUIRE(files.size() >= 40);
  for (const fs::path& path : files) {
    const std::string rel = fs::relative(path, test::source_path("tests/checks")).string();
    INFO(rel);
    const Fixture f = load_fixture(path);
    checks::LintOptions options;
    options.host = f.host.get();
    const auto result = checks::lint(rel, f.text, options);
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
    checks::LintOptions options;
    options.host = f.host.get();
    const auto result = checks::fix(path.string(), f.text, options, /*unsafe=*/true);
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
  for (const fs::path& path : args_fixture_files()) {
    const std::string dir = path.parent_path().filename().string();
    (load_args_fixture(path).expected.count(dir) != 0 ? counts[dir].first : counts[dir].second)++;
  }
  for (const checks::Check* rule : checks::all_checks()) {
    INFO(rule->id);
    CHECK(counts[std::string(rule->id)].first >= 1);
    CHECK(counts[std::string(rule->id)].second >= 1);
    const bool applies_fixes =
        rule->fix != checks::FixAvailability::none && rule->fix_safety != FixSafety::display_only;
    if (applies_fixes) CHECK(with_fixed.count(std::string(rule->id)) == 1);
  }
}

TEST_CASE("every rule fixture's lint output equals its .expected snapshot",
          "[rules][fixtures][snapshots]") {
  const bool update = updating_snapshots();
  const fs::path root = test::source_path("");
  int compared = 0;
  int written = 0;
  for (const fs::path& path : fixture_files(/*with_fixed=*/true)) {
    const std::string rel = fs::relative(path, root).generic_string();
    INFO(rel);
    const std::string actual = lint_text(path);
    fs::path snapshot = path;
    snapshot += std::string(kSnapshotExtension);
    const std::string snapshot_rel = fs::relative(snapshot, root).generic_string();
    const bool exists = fs::exists(snapshot);
    const std::string expected = exists ? test::read_bytes(snapshot) : std::string();
    ++compared;
    if (exists && actual == expected) continue;
    if (update) {
      test::write_bytes(snapshot, actual);
      ++written;
    } else if (!exists) {
      FAIL_CHECK(
          fmt::format("{} is missing; VMXKIT_UPDATE_SNAPSHOTS=1 writes it. "
                      "`vmxkit lint` prints:\n{}",
                      snapshot_rel, actual));
    } else {
      FAIL_CHECK(fmt::format(
          "{} differs from the lint output (VMXKIT_UPDATE_SNAPSHOTS=1 "
          "rewrites it):\n{}",
          snapshot_rel,
          cli::unified_diff(expected, actual, "a/" + snapshot_rel, "b/" + snapshot_rel)));
    }
  }
  if (written > 0) WARN(fmt::format("VMXKIT_UPDATE_SNAPSHOTS=1: rewrote {} snapshots", written));
  CHECK(compared >= 100);
}

TEST_CASE("every .expected snapshot under tests/checks belongs to a fixture",
          "[rules][fixtures][snapshots]") {
  auto fixtures = fixture_files(/*with_fixed=*/true);
  const auto args = args_fixture_files();
  fixtures.insert(fixtures.end(), args.begin(), args.end());
  const std::set<fs::path> known(fixtures.begin(), fixtures.end());
  int snapshots = 0;
  for (const auto& e : fs::recursive_directory_iterator(test::source_path("tests/checks"))) {
    if (!e.is_regular_file() || e.path().extension() != kSnapshotExtension) continue;
    ++snapshots;
    fs::path fixture = e.path();
    fixture.replace_extension();
    INFO(fs::relative(e.path(), test::source_path("")).generic_string());
    CHECK(known.count(fixture) == 1);
  }
  CHECK(snapshots == static_cast<int>(fixtures.size()));
}

TEST_CASE("every host and guest check fixture reports exactly its expected checks",
          "[rules][fixtures][host-check][guest-check]") {
  const auto files = args_fixture_files();
  REQUIRE(files.size() >= 28);
  for (const fs::path& path : files) {
    INFO(fs::relative(path, test::source_path("")).generic_string());
    const ArgsFixture f = load_args_fixture(path);
    const test::CliResult r = run_args_fixture(f, "json");
    INFO(fmt::format("vmxkit {}\n{}{}", fmt::join(f.args, " "), r.out, r.err));
    REQUIRE((r.code == 0 || r.code == 1));
    std::set<std::string> actual;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& finding : doc.at("findings")) {
      actual.insert(finding.at("id").get<std::string>());
    }
    CHECK(actual == f.expected);
  }
}

TEST_CASE("every host and guest check fixture's output equals its .expected snapshot",
          "[rules][fixtures][snapshots][host-check][guest-check]") {
  const bool update = updating_snapshots();
  int written = 0;
  for (const fs::path& path : args_fixture_files()) {
    const std::string rel = fs::relative(path, test::source_path("")).generic_string();
    INFO(rel);
    const test::CliResult r = run_args_fixture(load_args_fixture(path), "text");
    fs::path snapshot = path;
    snapshot += std::string(kSnapshotExtension);
    const bool exists = fs::exists(snapshot);
    const std::string expected = exists ? test::read_bytes(snapshot) : std::string();
    if (exists && r.out == expected) continue;
    if (update) {
      test::write_bytes(snapshot, r.out);
      ++written;
    } else {
      FAIL_CHECK(fmt::format("{}.expected {} (VMXKIT_UPDATE_SNAPSHOTS=1 writes it):\n{}", rel,
                             exists ? "differs" : "is missing",
                             cli::unified_diff(expected, r.out, "a/" + rel, "b/" + rel)));
    }
  }
  if (written > 0) WARN(fmt::format("VMXKIT_UPDATE_SNAPSHOTS=1: rewrote {} snapshots", written));
}
