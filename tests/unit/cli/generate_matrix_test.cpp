// SPDX-License-Identifier: Apache-2.0
// What `generate` writes passes its own `lint --host` on the same host: every case of
// tests/data/generate/matrix.txt is generated, then linted against the host it came from.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/text.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;

namespace {

struct MatrixCase {
  std::size_t line = 0;
  std::vector<std::string> host_args;  // --host FILE [--host FILE]
  std::vector<std::string> flags;
  std::string refused;  // empty: the plan must lint clean; else a part of generate's error
};

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<MatrixCase> read_matrix() {
  const std::string text = read_bytes(source_path("tests/data/generate/matrix.txt"));
  std::vector<MatrixCase> cases;
  std::istringstream in(text);
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string_view body = vmxkit::trim(line);
    if (body.empty() || body.front() == '#') continue;
    const auto bar1 = body.find('|');
    const auto bar2 = body.find('|', bar1 + 1);
    INFO("matrix.txt:" << number);
    REQUIRE(bar2 != std::string_view::npos);
    MatrixCase c;
    c.line = number;
    const std::string host(vmxkit::trim(body.substr(0, bar1)));
    // A bare name is an example host; a path is from the project root (test-only hosts).
    const std::string path =
        source_path(host.find('/') == std::string::npos ? "examples/hosts/" + host : host).string();
    c.host_args = {"--host", path};
    // An ESXi PCI capture comes with its memory capture (NUMA node count).
    if (host.ends_with(".esxcli-pci.txt")) {
      c.host_args.push_back("--host");
      c.host_args.push_back(path.substr(0, path.size() - 7) + "memory.txt");
    }
    c.flags = words(body.substr(bar1 + 1, bar2 - bar1 - 1));
    for (std::string& w : c.flags) {
      if (w.starts_with("tests/")) w = source_path(w).string();  // a file of the project
    }
    const std::string_view verdict = vmxkit::trim(body.substr(bar2 + 1));
    if (verdict.starts_with("refused:")) {
      c.refused = std::string(vmxkit::trim(verdict.substr(8)));
      REQUIRE(!c.refused.empty());
    } else {
      REQUIRE(verdict == "clean");
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

TEST_CASE("every plan of the generate matrix lints clean against its host, or is refused",
          "[cli][gen][lint][matrix]") {
  const std::vector<MatrixCase> cases = read_matrix();
  REQUIRE(cases.size() >= 40);
  vmxkit::test::TempDir dir;
  const std::string out = (dir / "vm.vmx").string();
  std::size_t clean = 0;
  for (const MatrixCase& c : cases) {
    std::vector<std::string> args = {"generate", "--system-id", "U", "-o", out, "--force"};
    args.insert(args.end(), c.host_args.begin(), c.host_args.end());
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    std::filesystem::remove(out);
    const auto gen = run_cli(args);
    INFO("matrix.txt:" << c.line << ": generate exit " << gen.code << "\n" << gen.err);
    if (!c.refused.empty()) {
      CHECK(gen.code == 2);
      CHECK(gen.err.find(c.refused) != std::string::npos);
      CHECK(!std::filesystem::exists(out));
      continue;
    }
    REQUIRE(gen.code == 0);
    std::vector<std::string> lint = {"lint", "--format", "json", out};
    lint.insert(lint.end(), c.host_args.begin(), c.host_args.end());
    const auto r = run_cli(lint);
    const auto report = nlohmann::json::parse(r.out);
    INFO("lint:\n" << run_cli({"lint", out, c.host_args[0], c.host_args[1]}).out);
    CHECK(report["summary"]["errors"] == 0);
    CHECK(report["summary"]["warnings"] == 0);
    CHECK(r.code == 0);
    ++clean;
  }
  // The matrix is mostly plans that must lint clean; a refusal for all would prove nothing.
  CHECK(clean >= 40);
}
