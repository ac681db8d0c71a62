// SPDX-License-Identifier: Apache-2.0
// The public API's topology reports through its one header: what `vmxkit topo` writes in each
// format, its diagram with a VM's devices, a host known from `nvidia-smi topo -m` alone, and the
// IOMMU as a kernel command line sets it.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;
using Catch::EndsWith;
using Catch::StartsWith;

namespace {

std::string example_host_file() {
  return vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
      .string();
}

const vmxkit::Host& lspci_host() {
  static const vmxkit::Host host = vmxkit::load_host({example_host_file()});
  return host;
}

std::string smi_file() {
  return vmxkit::test::source_path("tests/data/pci/smi/hgx-h100-8gpu-nv18.topo-m.txt").string();
}

// How many times `needle` occurs in `text`.
std::size_t occurrences(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("topology_report covers a host's GPUs and NICs and renders them as text and JSON",
          "[api][topo]") {
  const vmxkit::TopologyReport report = vmxkit::topology_report(lspci_host());
  CHECK(report.gpu_count() == 8);
  CHECK(report.nic_count() == 8);
  CHECK_FALSE(report.listed());
  CHECK_FALSE(report.nvidia_smi_only());

  const std::string text = vmxkit::render_topology(report, "text");
  CHECK_THAT(text, StartsWith("\tGPU0\tGPU1"));
  CHECK_THAT(text, Contains("Legend:"));
  CHECK_THAT(text, Contains("NIC Legend:"));
  CHECK_THAT(text, EndsWith("\n"));
  // The default options are render_topology()'s: the same text twice.
  CHECK(vmxkit::render_topology(vmxkit::topology_report(lspci_host()), "text") == text);

  const std::string json = vmxkit::render_topology(report, "json");
  CHECK_THAT(json, StartsWith("{\n  \""));
  CHECK_THAT(json, EndsWith("}\n"));
  CHECK_THAT(json, Contains("\"0000:18:00.0\""));

  CHECK_THROWS_WITH(vmxkit::render_topology(report, "html"),
                    Contains("html: not a topology format"));
}

TEST_CASE("topology_report lists a large host's nearest peers unless the full matrix is asked",
          "[api][topo]") {
  const vmxkit::Host host = vmxkit::load_host(
      {vmxkit::HostSource::from_text("farm.txt", vmxkit::test::gpu_farm_text(80))});
  const vmxkit::TopologyReport listed = vmxkit::topology_report(host);
  CHECK(listed.gpu_count() == 80);
  CHECK(listed.listed());
  vmxkit::TopologyOptions options;
  options.full_matrix = true;
  const vmxkit::TopologyReport full = vmxkit::topology_report(host, options);
  CHECK_FALSE(full.listed());
  CHECK(vmxkit::render_topology(full, "text") != vmxkit::render_topology(listed, "text"));
  // analyze() honours the same option: the full matrix, or none.
  CHECK(vmxkit::analyze(host, options).matrix.size() == 80);
  CHECK(vmxkit::analyze(host).matrix.empty());
}

TEST_CASE("render_topology draws the PCIe tree as DOT with a VM's devices highlighted",
          "[api][topo][diagram]") {
  const vmxkit::TopologyReport report = vmxkit::topology_report(lspci_host());
  vmxkit::TopologyRenderOptions options;
  options.title = "PCIe tree of lspci.txt";
  const std::string plain = vmxkit::render_topology(report, "dot", options);
  CHECK_THAT(plain, StartsWith("digraph \"pcie\" {\n"));
  CHECK_THAT(plain, Contains("PCIe tree of lspci.txt"));
  CHECK_THAT(plain, !Contains("highlighted"));
  CHECK(occurrences(plain, "class=\"pair\"") == 0);

  // pciPassthru0 and 1 are a GPU and its NIC below one switch; pciPassthru2 is on no host.
  const vmxkit::VmxDocument vm = vmxkit::VmxDocument::parse(
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"00000:024:00.0\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru0.deviceId = \"0x2331\"\n"
      "pciPassthru1.present = \"TRUE\"\n"
      "pciPassthru1.id = \"00000:025:00.0\"\n"
      "pciPassthru1.vendorId = \"0x15b3\"\n"
      "pciPassthru1.deviceId = \"0x1021\"\n"
      "pciPassthru2.present = \"TRUE\"\n"
      "pciPassthru2.id = \"00000:254:00.0\"\n",
      "vm.vmx");
  std::vector<std::string> messages;
  options.vm = &vm;
  options.message = [&](std::string_view m) { messages.emplace_back(m); };
  const std::string highlighted = vmxkit::render_topology(report, "dot", options);
  CHECK_THAT(highlighted,
             Contains("PCIe tree of lspci.txt; passthrough devices of vm.vmx highlighted"));
  CHECK_THAT(highlighted, Contains("pciPassthru0"));
  CHECK(occurrences(highlighted, "class=\"pair\"") == 1);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0] ==
        "vmxkit: warning: vm.vmx:10:20: pciPassthru2 names no device of the host; it is not "
        "highlighted\n");

  // Without a callback the warning is not made, and the diagram is the same.
  options.message = nullptr;
  CHECK(vmxkit::render_topology(report, "dot", options) == highlighted);
  // render_svg() lays the DOT out; "svg" itself is not render_topology()'s.
  const std::string svg = vmxkit::render_svg(highlighted);
  CHECK_THAT(svg, Contains("<svg"));
  CHECK_THAT(svg, Contains("pciPassthru0"));
  CHECK_THROWS_WITH(vmxkit::render_topology(report, "svg"), Contains("render_svg()"));
  CHECK_THROWS_AS(vmxkit::render_svg("digraph {"), vmxkit::Error);
}

TEST_CASE("a host known from nvidia-smi topo -m alone is reported from its matrix",
          "[api][topo][smi]") {
  const vmxkit::Host host = vmxkit::load_host({smi_file()});
  REQUIRE(vmxkit::nvidia_smi_only_input(host) == smi_file());
  CHECK_FALSE(vmxkit::nvidia_smi_only_input(lspci_host()));
  CHECK(vmxkit::nvidia_smi_warnings(lspci_host()).empty());

  const vmxkit::TopologyReport report = vmxkit::topology_report(host);
  CHECK(report.nvidia_smi_only());
  CHECK(report.gpu_count() == 8);
  CHECK(report.nic_count() == 0);
  const std::string text = vmxkit::render_topology(report, "text");
  CHECK_THAT(text, Contains("NV18"));
  CHECK_THAT(vmxkit::render_topology(report, "json"), Contains("\"NV18\""));
  CHECK_THROWS_WITH(vmxkit::render_topology(report, "dot"),
                    Contains("nvidia-smi topo -m, which has no PCIe tree to draw"));
}

TEST_CASE("nvidia_smi_warnings says where the matrix and the PCI inputs disagree",
          "[api][topo][smi]") {
  // Eight GPUs in the matrix, four in the ESXi capture: nothing is matched.
  const vmxkit::Host host = vmxkit::load_host(
      {vmxkit::test::source_path("examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt")
           .string(),
       smi_file()});
  CHECK_FALSE(vmxkit::nvidia_smi_only_input(host));
  const std::vector<std::string> warnings = vmxkit::nvidia_smi_warnings(host);
  REQUIRE_FALSE(warnings.empty());
  CHECK_THAT(warnings[0], Contains("8"));
}

TEST_CASE("iommu_translating reads the IOMMU mode from a kernel command line", "[api][topo]") {
  const vmxkit::Host& host = lspci_host();
  CHECK(vmxkit::iommu_translating(host, "BOOT_IMAGE=/vmlinuz intel_iommu=on\n", "cmdline") ==
        std::optional<bool>(true));
  CHECK(vmxkit::iommu_translating(host, "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt\n",
                                  "cmdline") == std::optional<bool>(false));
  CHECK(vmxkit::iommu_translating(host, "BOOT_IMAGE=/vmlinuz quiet\n", "cmdline") == std::nullopt);
  CHECK_THROWS_WITH(vmxkit::iommu_translating(host, "", "empty.txt"), StartsWith("empty.txt"));

  // The verdicts take it: a translating IOMMU degrades GPUDirect RDMA on bare metal.
  vmxkit::TopologyOptions translating;
  translating.iommu_translating = true;
  CHECK(vmxkit::render_topology(vmxkit::topology_report(host, translating), "text") !=
        vmxkit::render_topology(vmxkit::topology_report(host), "text"));
}

TEST_CASE("a host's public devices are made once, whichever thread asks for them first",
          "[api][topo][host]") {
  // topology_report() never asks for them; find() and devices() make them on first use.
  const vmxkit::Host host = vmxkit::load_host({example_host_file()});
  CHECK(vmxkit::topology_report(host).gpu_count() == 8);
  std::vector<const vmxkit::HostDevice*> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] {
      seen[t] = t % 2 == 0 ? host.find(vmxkit::Bdf{0, 0x18, 0, 0}) : &host.devices().front();
    });
  }
  for (std::thread& t : threads) t.join();
  const vmxkit::HostDevice* gpu = host.find(vmxkit::Bdf{0, 0x18, 0, 0});
  REQUIRE(gpu != nullptr);
  CHECK(gpu->description == "0000:18:00.0 (H100 PCIe)");
  for (std::size_t t = 0; t < seen.size(); ++t) {
    CHECK(seen[t] == (t % 2 == 0 ? gpu : &host.devices().front()));
  }
  // A copy shares them.
  const vmxkit::Host copy = host;
  CHECK(&copy.devices() == &host.devices());
  CHECK(host.devices().size() == lspci_host().devices().size());
}
