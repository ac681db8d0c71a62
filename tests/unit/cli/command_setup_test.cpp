// SPDX-License-Identifier: Apache-2.0
// run() builds only the subcommand it runs; what the user sees must not depend on that.
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "support/support.h"

namespace {

/// The subcommands `vmxkit --help` lists, in its order.
std::vector<std::string> listed_commands() {
  const auto help = vmxkit::test::run_cli({"--help"});
  REQUIRE(help.code == 0);
  const auto start = help.out.find("Subcommands:");
  REQUIRE(start != std::string::npos);
  std::vector<std::string> names;
  const std::regex line(R"(\n  ([a-z-]+) )");
  const std::string rest = help.out.substr(start);
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), line); it != std::sregex_iterator();
       ++it) {
    names.push_back((*it)[1]);
  }
  return names;
}

}  // namespace

TEST_CASE("each command line builds the one subcommand it names", "[cli][start-up]") {
  const std::vector<std::string> all = listed_commands();
  REQUIRE(all.size() >= 17);
  CHECK(vmxkit::cli::commands_set_up_for({}) == all);
  CHECK(vmxkit::cli::commands_set_up_for({"--help"}) == all);
  CHECK(vmxkit::cli::commands_set_up_for({"lnt", "vm.vmx"}) == all);
  CHECK(vmxkit::cli::commands_set_up_for({"--version"}).empty());
  for (const std::string& name : all) {
    INFO(name);
    CHECK(vmxkit::cli::commands_set_up_for({name, "x"}) == std::vector<std::string>{name});
    CHECK(vmxkit::cli::commands_set_up_for({"--color", "never", name}) ==
          std::vector<std::string>{name});
    CHECK(vmxkit::cli::commands_set_up_for({"--color=never", name}) ==
          std::vector<std::string>{name});
    // The subcommand built is the one named: its help is its own.
    const auto help = vmxkit::test::run_cli({name, "--help"});
    CHECK(help.code == 0);
    CHECK_THAT(help.out, Catch::Contains("\nUsage: vmxkit " + name + " "));
  }
  // A file named like a command is a file.
  CHECK(vmxkit::cli::commands_set_up_for({"lint", "fmt"}) == std::vector<std::string>{"lint"});
}

TEST_CASE("usage errors and --version read as before", "[cli][start-up]") {
  const auto version = vmxkit::test::run_cli({"--version"});
  CHECK(version.code == 0);
  CHECK_THAT(version.out, Catch::StartsWith("vmxkit "));
  const auto misspelt = vmxkit::test::run_cli({"lnt", "vm.vmx"});
  CHECK(misspelt.code == 2);
  const auto none = vmxkit::test::run_cli({});
  CHECK(none.code == 2);
  CHECK_THAT(none.err + none.out, Catch::Contains("subcommand"));
  const auto colored = vmxkit::test::run_cli({"--color", "never", "rule", "VMX005"});
  CHECK(colored.code == 0);
  CHECK_THAT(colored.out, Catch::Contains("VMX005"));
}
