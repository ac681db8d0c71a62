// SPDX-License-Identifier: Apache-2.0
// Every capture in the shared topology corpus: the matrix vmxkit prints equals the
// `nvidia-smi topo -m` matrix printed on the same machine, cell for cell.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "support/support.h"
#include "unit/pci/pci_test_util.h"
#include "vmxkit/pci/text.h"
#include "vmxkit/pci/topology.h"

namespace {

struct Range {
  std::size_t first = 0;
  std::size_t last = 0;
};

Range parse_range(const std::string& value) {
  const auto dash = value.find('-');
  const auto space = value.find(' ');
  Range r;
  r.first = std::stoul(value.substr(0, dash));
  r.last = std::stoul(value.substr(dash + 1, space == std::string::npos ? space : space - dash - 1));
  return r;
}

std::string lines_of(const std::vector<std::string>& lines, Range r) {
  REQUIRE(r.first >= 1);
  REQUIRE(r.last <= lines.size());
  std::string out;
  for (std::size_t i = r.first; i <= r.last; ++i) out += lines[i - 1] + "\n";
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string_view l : vmxkit::pci::LineRange(text)) lines.emplace_back(l);
  return lines;
}

}  // namespace

TEST_CASE("topo prints the nvidia-smi matrix of every corpus capture, cell for cell", "[pci][corpus]") {
  const auto dir = vmxkit::test::corpus_dir("topology");
  std::vector<std::filesystem::path> captures;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 11 && name.substr(name.size() - 11) == ".source.txt") continue;
    if (name == "README.md") continue;
    captures.push_back(e.path());
  }
  std::sort(captures.begin(), captures.end());
  REQUIRE(!captures.empty());
  for (const auto& capture : captures) {
    const std::string name = capture.filename().string();
    SECTION(name) {
      const auto expected_path = vmxkit::test::source_path("tests/data/pci/corpus/" + name + ".expected");
      INFO("expected matrix file " << expected_path.string());
      REQUIRE(std::filesystem::exists(expected_path));
      const auto capture_lines = split_lines(vmxkit::test::read_bytes(capture));
      std::vector<std::pair<std::string, std::string>> inputs;
      Range matrix;
      std::string expected;
      bool in_expected = false;
      for (const std::string& line : split_lines(vmxkit::test::read_bytes(expected_path))) {
        if (in_expected) {
          expected += line + "\n";
        } else if (line.rfind("input: ", 0) == 0) {
          const Range r = parse_range(line.substr(7));
          inputs.emplace_back(name + ":" + std::to_string(r.first), lines_of(capture_lines, r));
        } else if (line.rfind("matrix: ", 0) == 0) {
          matrix = parse_range(line.substr(8));
        } else if (line == "expected:") {
          in_expected = true;
        }
      }
      REQUIRE(!inputs.empty());
      // The expected matrix is the capture's own lines.
      CHECK(expected == lines_of(capture_lines, matrix));

      const auto host = vmxkit::test::host_from(inputs);
      const auto topo = vmxkit::pci::analyze(host, {});
      const std::string printed = vmxkit::pci::render_topology_text(host, topo);
      INFO(printed);
      const auto want = vmxkit::test::matrix_cells(expected);
      const auto got = vmxkit::test::matrix_cells(printed);
      CHECK(got.labels == want.labels);
      CHECK(got.rows == want.rows);
    }
  }
}
