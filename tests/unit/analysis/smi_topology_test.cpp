// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m` as a host input: verdicts from the matrix alone, GPU i as the i-th NVIDIA
// GPU in PCI address order, NVLink pairs as P2P-capable whatever the PCIe path, disagreements.
#include "vmxkit/analysis/smi_topology.h"

#include <catch2/catch.hpp>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/formats/host/nvidia_smi_topo.h"
#include "vmxkit/report/topology_text.h"

using vmxkit::Bdf;
using vmxkit::pci::PathClass;
using vmxkit::pci::ReasonKind;
using vmxkit::pci::Verdict;
using vmxkit::test::host_from;
using vmxkit::test::socket;

namespace {

vmxkit::pci::SmiTopo smi_fixture(const std::string& name) {
  const std::string path = vmxkit::test::source_path("tests/data/pci/smi/" + name).string();
  return vmxkit::pci::parse_nvidia_smi_topo(vmxkit::test::read_bytes(path), path);
}

bool has_reason(const std::vector<vmxkit::pci::Reason>& reasons, ReasonKind kind) {
  for (const auto& r : reasons) {
    if (r.kind == kind) return true;
  }
  return false;
}

// Two sockets, a GPU on each (0000:13:00.0 on node 0, 0000:93:00.0 on node 1), and the matrix
// `nvidia-smi topo -m` would print for them with `cell` between the GPUs.
std::vector<std::pair<std::string, std::string>> two_sockets(const std::string& cell) {
  return {{"lspci.txt", socket(0x10, 0, {"gpu"}) + socket(0x90, 1, {"gpu"})},
          {"smi.txt",
           "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
           "GPU0\t X \t" +
               cell +
               "\t0-23\t0\t\tN/A\n"
               "GPU1\t" +
               cell + "\t X \t24-47\t1\t\tN/A\n"}};
}

}  // namespace

TEST_CASE("an HGX H100 matrix alone: every GPU pair is P2P over NV18, and what it cannot tell",
          "[pci][smi][topology]") {
  const auto t = smi_fixture("hgx-h100-8gpu-nv18.topo-m.txt");
  const auto v = vmxkit::pci::judge_smi_matrix(t);
  REQUIRE(v.pairs.size() == 28);
  for (const auto& p : v.pairs) {
    CHECK(p.cell == "NV18");
    CHECK(p.verdict == Verdict::ok);
    CHECK(has_reason(p.reasons, ReasonKind::nvlink));
  }
  CHECK(v.best_nic == std::vector<std::optional<std::size_t>>(8, std::nullopt));
  REQUIRE(v.not_known.size() >= 4);
  CHECK(v.not_known[0].find("PCI addresses") == 0);
  CHECK(v.not_known[1].find("ACS") != std::string::npos);
  CHECK(v.not_known[2].find("BAR sizes") == 0);
}

TEST_CASE("a PCIe-only RTX 4090 matrix alone: SYS pairs unsupported, PHB degraded, best NIC",
          "[pci][smi][topology]") {
  const auto t = smi_fixture("rtx4090-8gpu-pcie.topo-m.txt");
  const auto v = vmxkit::pci::judge_smi_matrix(t);
  REQUIRE(v.pairs.size() == 28 + 16);
  CHECK(v.pairs[0].cell == "SYS");
  CHECK(v.pairs[0].verdict == Verdict::unsupported);
  CHECK_FALSE(has_reason(v.pairs[0].reasons, ReasonKind::nvlink));
  // GPU6 <-> NIC0: PHB, through the CPU.
  const auto& g6n0 = v.pairs[28 + 6 * 2];
  CHECK(t.labels[g6n0.a] == "GPU6");
  CHECK(t.labels[g6n0.b] == "NIC0");
  CHECK(g6n0.verdict == Verdict::degraded);
  REQUIRE(v.best_nic.size() == 8);
  CHECK(v.best_nic[6] == std::optional<std::size_t>(8));
  CHECK(vmxkit::pci::parse_path_class("SOC") == PathClass::sys);  // the older name of SYS
  CHECK_FALSE(vmxkit::pci::parse_path_class("NV12"));
}

TEST_CASE("with lspci, GPU i of the matrix is the i-th NVIDIA GPU in PCI address order",
          "[pci][smi][topology]") {
  const auto host = host_from(two_sockets("NV12"));
  REQUIRE(host.smi_topo());
  REQUIRE(host.smi_devices().size() == 2);
  CHECK(host.at(*host.smi_devices()[0]).bdf == Bdf{0, 0x13, 0, 0});
  CHECK(host.at(*host.smi_devices()[1]).bdf == Bdf{0, 0x93, 0, 0});
  CHECK(host.smi_mismatch().empty());
  CHECK_FALSE(vmxkit::pci::smi_only(host));
}

TEST_CASE("a GPU pair joined by NVLink is P2P-capable across the sockets, and without it is not",
          "[pci][smi][topology]") {
  const Bdf g0{0, 0x13, 0, 0};
  const Bdf g1{0, 0x93, 0, 0};
  auto host = host_from(two_sockets("NV12"));
  auto v = vmxkit::pci::judge_pair(host, *host.index_of(g0), *host.index_of(g1), {});
  CHECK(v.path.cls == PathClass::sys);  // the PCIe path stays what it is
  CHECK(v.nvlinks == 12u);
  CHECK(v.verdict == Verdict::ok);
  CHECK(has_reason(v.reasons, ReasonKind::nvlink));
  const auto topo = vmxkit::pci::analyze(host, {});
  CHECK(topo.cell_text(0, 1) == "NV12");
  CHECK(vmxkit::report::render_topology_text(host, topo).find("GPU0 <-> GPU1  NV12  ok") !=
        std::string::npos);

  host = host_from(two_sockets("SYS"));
  v = vmxkit::pci::judge_pair(host, *host.index_of(g0), *host.index_of(g1), {});
  CHECK_FALSE(v.nvlinks);
  CHECK(v.verdict == Verdict::unsupported);
  CHECK(vmxkit::pci::smi_warnings(host).empty());  // SYS agrees with the tree
}

TEST_CASE("NVLink between GPUs under a redirecting switch: the ACS redirect does not apply",
          "[pci][smi][topology]") {
  const std::string smi =
      "\tGPU0\tGPU1\tCPU Affinity\n"
      "GPU0\t X \tNV4\t0-23\n"
      "GPU1\tNV4\t X \t0-23\n";
  const std::string lspci = socket(0x10, 0, {"gpu", "gpu"}, true);
  const Bdf g0{0, 0x13, 0, 0};
  const Bdf g1{0, 0x14, 0, 0};
  auto host = host_from({{"lspci.txt", lspci}});
  auto v = vmxkit::pci::judge_pair(host, *host.index_of(g0), *host.index_of(g1), {});
  CHECK(has_reason(v.reasons, ReasonKind::acs_redirect));
  host = host_from({{"lspci.txt", lspci}, {"smi.txt", smi}});
  v = vmxkit::pci::judge_pair(host, *host.index_of(g0), *host.index_of(g1), {});
  CHECK_FALSE(has_reason(v.reasons, ReasonKind::acs_redirect));
  CHECK(v.verdict == Verdict::ok);
}

TEST_CASE("counts that differ match nothing, and a class the tree does not give is warned of",
          "[pci][smi][topology]") {
  auto host =
      host_from({{"lspci.txt", socket(0x10, 0, {"gpu"}) + socket(0x90, 1, {"gpu"})},
                 {"smi.txt",
                  "\tGPU0\tGPU1\tGPU2\tCPU Affinity\n"
                  "GPU0\t X \tNV4\tNV4\t0\nGPU1\tNV4\t X \tNV4\t0\nGPU2\tNV4\tNV4\t X \t0\n"}});
  CHECK(host.smi_mismatch().find("smi.txt:1: nvidia-smi topo -m shows 3 GPUs but the PCI inputs "
                                 "have 2 NVIDIA GPUs") == 0);
  CHECK_FALSE(host.nvlinks(*host.index_of(Bdf{0, 0x13, 0, 0}), *host.index_of(Bdf{0, 0x93, 0, 0})));
  auto warnings = vmxkit::pci::smi_warnings(host);
  REQUIRE(warnings.size() == 1);

  host = host_from(two_sockets("NODE"));
  warnings = vmxkit::pci::smi_warnings(host);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "smi.txt:1: nvidia-smi topo -m says NODE between GPU0 (0000:13:00.0) and GPU1 "
        "(0000:93:00.0), the PCI inputs give SYS");
}

TEST_CASE(
    "each corpus capture's own nvidia-smi matrix, given with its lspci, matches its GPUs "
    "and agrees with the tree",
    "[pci][smi][corpus]") {
  const auto captures = vmxkit::test::corpus_captures();
  REQUIRE(!captures.empty());
  for (const auto& path : captures) {
    SECTION(path.filename().string()) {
      const vmxkit::test::CorpusCapture capture = vmxkit::test::load_corpus_capture(path);
      auto inputs = capture.inputs;
      inputs.emplace_back("matrix.txt", capture.matrix_lines);
      const auto host = host_from(inputs);
      REQUIRE(host.smi_topo());
      CHECK(host.smi_mismatch().empty());
      std::size_t matched = 0;
      for (std::size_t i = 0; i < host.smi_devices().size(); ++i) {
        if (host.smi_topo()->is_gpu(i)) matched += host.smi_devices()[i] ? 1 : 0;
      }
      CHECK(matched == host.smi_topo()->gpu_count());
      CHECK(vmxkit::pci::smi_warnings(host).empty());
    }
  }
}
