// SPDX-License-Identifier: Apache-2.0
// The README's first terminal transcript is real: each `$` command runs in a shell (from a
// scratch folder that sees the repository's examples/), and its output must match what the
// README shows, where `...` stands for any number of lines.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.h"

namespace {

struct Step {
  std::string command;
  std::vector<std::string> expected;
};

// The first ```console block: `$ ` starts a command (a trailing `\` continues it on the next
// line), every other line is output.
std::vector<Step> transcript(const std::string& readme) {
  std::vector<Step> steps;
  std::istringstream in(readme);
  std::string line;
  bool inside = false;
  bool continued = false;
  while (std::getline(in, line)) {
    if (!inside) {
      inside = line == "```console";
      continue;
    }
    if (line == "```") break;
    if (continued) {
      steps.back().command += "\n" + line;
    } else if (line.rfind("$ ", 0) == 0) {
      steps.push_back({line.substr(2), {}});
    } else {
      REQUIRE(!steps.empty());
      steps.back().expected.push_back(line);
      continue;
    }
    continued = !line.empty() && line.back() == '\\';
  }
  return steps;
}

std::vector<std::string> run_shell(const std::string& command) {
  std::vector<std::string> lines;
  std::istringstream in(vmxkit::test::run_shell(command).out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// `...` in the expected lines matches any run of lines (possibly none).
bool matches(const std::vector<std::string>& expected, std::size_t e,
             const std::vector<std::string>& got, std::size_t g) {
  if (e == expected.size()) return g == got.size();
  if (expected[e] == "...") {
    for (std::size_t k = g; k <= got.size(); ++k) {
      if (matches(expected, e + 1, got, k)) return true;
    }
    return false;
  }
  return g < got.size() && got[g] == expected[e] && matches(expected, e + 1, got, g + 1);
}

}  // namespace

TEST_CASE("the README transcript is what vmxkit prints", "[cli][readme]") {
  namespace fs = std::filesystem;
  const auto steps = transcript(vmxkit::test::read_bytes(vmxkit::test::source_path("README.md")));
  REQUIRE(steps.size() >= 3);
  vmxkit::test::TempDir dir;
  fs::create_directory_symlink(vmxkit::test::source_path("examples"), dir / "examples");
  const std::string path = fs::path(VMXKIT_BINARY).parent_path().string();
  for (const Step& step : steps) {
    INFO("$ " << step.command);
    const auto got = run_shell("cd '" + dir.path().string() + "' && PATH='" + path +
                               "':\"$PATH\" " + step.command);
    std::string shown;
    for (const std::string& l : got) shown += l + "\n";
    INFO("printed:\n" << shown);
    CHECK(matches(step.expected, 0, got, 0));
  }
}
