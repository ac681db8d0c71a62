// SPDX-License-Identifier: Apache-2.0
// Every capture in the shared topology corpus: the matrix vmxkit prints equals the
// `nvidia-smi topo -m` matrix printed on the same machine, cell for cell.
#include <catch2/catch.hpp>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/report/topology_text.h"

TEST_CASE("topo prints the nvidia-smi matrix of every corpus capture, cell for cell",
          "[pci][corpus]") {
  const auto captures = vmxkit::test::corpus_captures();
  REQUIRE(!captures.empty());
  for (const auto& path : captures) {
    const std::string name = path.filename().string();
    SECTION(name) {
      const vmxkit::test::CorpusCapture capture = vmxkit::test::load_corpus_capture(path);
      REQUIRE(!capture.inputs.empty());
      // The expected matrix is the capture's own lines.
      CHECK(capture.expected == capture.matrix_lines);
      const auto& inputs = capture.inputs;
      const std::string& expected = capture.expected;
      const auto host = vmxkit::test::host_from(inputs);
      const auto topo = vmxkit::pci::analyze(host, {});
      const std::string printed = vmxkit::report::render_topology_text(host, topo);
      INFO(printed);
      const auto want = vmxkit::test::matrix_cells(expected);
      const auto got = vmxkit::test::matrix_cells(printed);
      CHECK(got.labels == want.labels);
      CHECK(got.rows == want.rows);
    }
  }
}
