// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m` as a HOST input: detection, the matrix, affinities, legends, errors.
// Fixtures: tests/data/pci/smi/ (each names its source on its first lines).
#include "vmxkit/formats/host/nvidia_smi_topo.h"

#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"

using vmxkit::pci::InputFormat;

namespace {

std::string fixture(const std::string& name) {
  return vmxkit::test::source_path("tests/data/pci/smi/" + name).string();
}

}  // namespace

TEST_CASE("an HGX H100 nvidia-smi topo -m is a host input: NV18 between every GPU pair",
          "[pci][smi]") {
  const std::string path = fixture("hgx-h100-8gpu-nv18.topo-m.txt");
  const std::string text = vmxkit::test::read_bytes(path);
  CHECK(vmxkit::pci::detect_format(text, path) == InputFormat::nvidia_smi_topo);
  const vmxkit::pci::Host host = vmxkit::pci::load_host({path});
  CHECK(host.devices().empty());
  REQUIRE(host.smi_topo());
  const vmxkit::pci::SmiTopo& t = *host.smi_topo();
  REQUIRE(t.labels.size() == 8);
  CHECK(t.gpu_count() == 8);
  CHECK(t.cell("GPU0", "GPU7") == "NV18");
  CHECK(t.cell("GPU3", "GPU3") == "X");
  CHECK(vmxkit::pci::nvlink_count(t.cell("GPU2", "GPU5")) == 18u);
  CHECK(t.cpu_affinity[0] == "0-47,96-143");
  CHECK(t.numa_affinity[4] == "1");
  CHECK(t.gpu_numa_id[7] == "N/A");
  CHECK(t.where.line == 5);  // past the comment and the `$ nvidia-smi topo -m` prompt
}

TEST_CASE("a PCIe-only RTX 4090 matrix, tab-separated: NIC rows have no affinity columns",
          "[pci][smi]") {
  const std::string path = fixture("rtx4090-8gpu-pcie.topo-m.txt");
  const vmxkit::pci::SmiTopo t =
      vmxkit::pci::parse_nvidia_smi_topo(vmxkit::test::read_bytes(path), path);
  REQUIRE(t.labels.size() == 10);
  CHECK(t.gpu_count() == 8);
  CHECK_FALSE(t.is_gpu(8));
  CHECK(t.cell("GPU6", "NIC0") == "PHB");
  CHECK(t.cell("NIC0", "NIC1") == "PIX");
  CHECK(t.cell("GPU0", "GPU1") == "SYS");
  CHECK_FALSE(vmxkit::pci::nvlink_count(t.cell("GPU0", "GPU1")));
  CHECK(t.cpu_affinity[5] == "56-111,168-223");
  CHECK(t.cpu_affinity[8].empty());
  CHECK(t.nic_name(8).empty());  // no NIC legend in this capture
}

TEST_CASE("a terminal's underline escapes, mlx5 labels of older drivers and the NIC legend",
          "[pci][smi]") {
  const std::string text =
      "\x1b[4m\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\x1b[0m\n"
      "GPU0\t X \tNV4\tPIX\t0-23\n"
      "GPU1\tNV4\t X \tPIX\t0-23\n"
      "mlx5_0\tPIX\tPIX\t X \n"
      "\nLegend:\n\n  X    = Self\n";
  CHECK(vmxkit::pci::is_smi_topo_header("\x1b[4m\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\x1b[0m"));
  const vmxkit::pci::SmiTopo t = vmxkit::pci::parse_nvidia_smi_topo(text, "old.txt");
  REQUIRE(t.labels.size() == 3);
  CHECK(t.nic_name(2) == "mlx5_0");
  CHECK(t.cell("GPU1", "GPU0") == "NV4");
  CHECK(t.cpu_affinity[0] == "0-23");
  CHECK(t.numa_affinity[0].empty());

  const std::string legend =
      "\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNODE\t0-31\t0\t\tN/A\n"
      "NIC0\tNODE\t X \n\nNIC Legend:\n\n  NIC0: mlx5_bond_0\n";
  const vmxkit::pci::SmiTopo l = vmxkit::pci::parse_nvidia_smi_topo(legend, "l.txt");
  CHECK(l.nic_name(1) == "mlx5_bond_0");
  CHECK(l.numa_affinity[0] == "0");
}

TEST_CASE("a matrix row out of order or short is an error at its line", "[pci][smi]") {
  const std::string header = "\tGPU0\tGPU1\tCPU Affinity\n";
  CHECK_THROWS_WITH(vmxkit::pci::parse_nvidia_smi_topo(header + "GPU1\t X \tSYS\t0\n", "a.txt"),
                    Catch::StartsWith("a.txt:2:1: expected row GPU0, found 'GPU1'"));
  CHECK_THROWS_WITH(vmxkit::pci::parse_nvidia_smi_topo(header + "GPU0\t X\n", "b.txt"),
                    Catch::StartsWith("b.txt:2:1: expected 2 cells after the row label"));
  CHECK_THROWS_WITH(vmxkit::pci::parse_nvidia_smi_topo(header + "GPU0\t X \tSYS\t0\n", "c.txt"),
                    Catch::Contains("1 rows for 2 columns"));
}

TEST_CASE("a second nvidia-smi topo -m of one host is ignored with a warning", "[pci][smi]") {
  const std::string path = fixture("hgx-h100-8gpu-nv18.topo-m.txt");
  const vmxkit::pci::Host host =
      vmxkit::pci::load_host({path, fixture("rtx4090-8gpu-pcie.topo-m.txt")});
  REQUIRE(host.smi_topo());
  CHECK(host.smi_topo()->labels.size() == 8);
  REQUIRE(host.warnings().size() == 1);
  CHECK(host.warnings()[0].message.find("a second nvidia-smi topo -m is ignored") == 0);
}
