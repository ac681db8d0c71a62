// SPDX-License-Identifier: Apache-2.0
// lint --select / --ignore / --extend-select / --extend-ignore (ruff's names and precedence)
// and --stdin-filename.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "support/support.h"
#include "vmxkit/vmxkit.h"

using vmxkit::RuleSelection;
using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;

namespace {

std::string worker() { return source_path("examples/vmx/gpu-rdma-worker.vmx").string(); }

// The rule ids lint reports for the README's worker with these extra arguments.
std::set<std::string> rules_reported(std::vector<std::string> extra) {
  std::vector<std::string> args = {"lint", "--format", "json", worker()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code != 2);
  std::set<std::string> ids;
  for (std::size_t at = r.out.find("\"rule\": \""); at != std::string::npos;
       at = r.out.find("\"rule\": \"", at + 1)) {
    const std::size_t begin = at + 9;
    ids.insert(r.out.substr(begin, r.out.find('"', begin) - begin));
  }
  return ids;
}

}  // namespace

TEST_CASE("a selector is a rule id, a prefix of ids or ALL, and the more specific one wins",
          "[cli][select]") {
  RuleSelection s;
  CHECK(s.enabled("PT004"));  // no option: every rule
  s.ignore = {"PT"};
  CHECK_FALSE(s.enabled("PT004"));
  CHECK(s.enabled("MMIO004"));
  s.extend_select = {"PT004"};  // more specific than the ignore
  CHECK(s.enabled("PT004"));
  CHECK_FALSE(s.enabled("PT003"));
  s = RuleSelection{};
  s.select = {"MMIO0"};
  CHECK(s.enabled("MMIO005"));
  CHECK_FALSE(s.enabled("PT004"));
  s.extend_select = {"PT"};
  CHECK(s.enabled("PT004"));
  s = RuleSelection{};
  s.select = {"PT"};
  s.extend_ignore = {"PT"};  // the same prefix in both: ignore wins
  CHECK_FALSE(s.enabled("PT004"));
  s = RuleSelection{};
  s.select = {"PT004"};
  s.ignore = {"ALL"};
  CHECK(s.enabled("PT004"));
  CHECK_FALSE(s.enabled("PT003"));
}

TEST_CASE("lint --select and --ignore narrow what a file reports and what it exits with",
          "[cli][select]") {
  const std::set<std::string> all = rules_reported({});
  REQUIRE(all.count("MMIO005") == 1);
  REQUIRE(all.count("MMIO004") == 1);
  REQUIRE(all.size() >= 3);
  CHECK(rules_reported({"--select", "MMIO005"}) == std::set<std::string>{"MMIO005"});
  CHECK(rules_reported({"--select", "MMIO"}).count("MMIO004") == 1);
  CHECK(rules_reported({"--select=MMIO004,MMIO005"}) ==
        std::set<std::string>{"MMIO004", "MMIO005"});
  std::set<std::string> rest = all;
  rest.erase("MMIO005");
  CHECK(rules_reported({"--ignore", "MMIO005"}) == rest);
  CHECK(rules_reported({"--extend-ignore", "MMIO005"}) == rest);
  CHECK(rules_reported({"--ignore", "MMIO", "--extend-select", "MMIO005"}).count("MMIO005") == 1);
  // Nothing left to report: exit 0.
  CHECK(run_cli({"lint", worker(), "--ignore", "ALL"}).code == 0);
}

TEST_CASE("a selector that names no rule is an input error that lists where the ids are",
          "[cli][select]") {
  const auto r = run_cli({"lint", worker(), "--select", "NOPE1"});
  CHECK(r.code == 2);
  CHECK(r.err.find("'NOPE1' selects no lint rule") != std::string::npos);
  CHECK(r.err.find("vmxkit rules") != std::string::npos);
}

TEST_CASE("lint --stdin-filename names stdin in the text, JSON and SARIF reports", "[cli][stdin]") {
  const std::string vm = read_bytes(worker());
  for (const char* format : {"text", "json", "sarif"}) {
    INFO(format);
    const auto r =
        run_cli({"lint", "--format", format, "--stdin-filename", "clusters/a/worker.vmx", "-"}, vm);
    CHECK(r.code == 1);
    CHECK(r.out.find("clusters/a/worker.vmx") != std::string::npos);
    CHECK(r.out.find("<stdin>") == std::string::npos);
  }
}
