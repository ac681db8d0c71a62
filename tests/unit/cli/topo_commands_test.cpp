// SPDX-License-Identifier: Apache-2.0
// topo / mmio / host-check through the command line, in-process.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/support.h"

using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

std::string example() {
  return vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
      .string();
}

}  // namespace

TEST_CASE("topo prints the matrix, legends, verdicts and the best NIC", "[cli][topo]") {
  const auto r = run_cli({"topo", example()});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.rfind("\tGPU0\tGPU1\t", 0) == 0);
  CHECK(r.out.find("\nGPU0\t X \tPIX\tNODE\tNODE\tSYS") != std::string::npos);
  CHECK(r.out.find("NIC Legend:\n\n  NIC0: 0000:19:00.0 ConnectX-7\n") != std::string::npos);
  CHECK(r.out.find("  GPU0 <-> NIC4  SYS  unsupported\n") != std::string::npos);
  CHECK(r.out.find("  GPU7: NIC6 (0000:c0:00.0, PIX, ok)\n") != std::string::npos);
}

TEST_CASE("topo reads an ESXi host from esxcli captures, NUMA from esxcli memory", "[cli][topo]") {
  const auto pci =
      vmxkit::test::source_path("examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt")
          .string();
  const auto memory =
      vmxkit::test::source_path("examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-memory.txt")
          .string();
  auto r = run_cli({"topo", pci, "--host", memory});
  CHECK(r.code == 0);
  CHECK(r.out.find("\nGPU0\t X \tPIX\tNODE\tNODE\tPIX\tNODE\t") != std::string::npos);
  CHECK(r.out.find("  NIC0: 0000:05:00.0 ConnectX-7\n  NIC1: vmnic4 0000:45:00.0 ConnectX-7\n") !=
        std::string::npos);
  CHECK(r.out.find("  GPU3: NIC1 (0000:45:00.0, PIX, ok)\n") != std::string::npos);
  // Without the node count, a path between the two root complexes is NODE or SYS: unknown.
  r = run_cli({"topo", pci});
  CHECK(r.code == 0);
  CHECK(r.out.find("\nGPU0\t X \tPIX\t?\t?\tPIX\t?\t") != std::string::npos);
  CHECK(r.out.find("(on ESXi: `esxcli hardware memory get`)") != std::string::npos);
}

TEST_CASE("topo --format json gives the same as data", "[cli][topo]") {
  const auto r = run_cli({"topo", "--format", "json", example()});
  CHECK(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpus"][0]["label"] == "GPU0");
  CHECK(j["gpus"][0]["bdf"] == "0000:18:00.0");
  CHECK(j["gpus"][0]["role"] == "gpu");
  CHECK(j["gpus"][0]["model"] == "H100 PCIe");
  CHECK(j["matrix"][0][0] == "X");
  CHECK(j["matrix"][0][1] == "PIX");
  CHECK(j["matrix"][0][2] == "NODE");
  CHECK(j["matrix"][0][3] == "NODE");
  CHECK(j["matrix"][0][4] == "SYS");
  CHECK(j["best_nic"]["GPU0"] == "NIC0");
  CHECK(j["warnings"].empty());
}

TEST_CASE("topo reads stdin, warns about devices it cannot place, and exits 2 on bad input",
          "[cli][topo]") {
  auto r = run_cli({"topo", "-"}, "c1:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe]\n");
  CHECK(r.code == 0);
  CHECK(r.err.find("vmxkit: warning: <stdin>:1: cannot place 0000:c1:00.0") != std::string::npos);
  vmxkit::test::TempDir dir;
  write_bytes(dir / "bad.txt",
              "3b:00.0 Ethernet controller: X\n\tRegion 0: Memory at zz (64-bit)\n");
  r = run_cli({"topo", (dir / "bad.txt").string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("bad.txt:2:22: expected a hex address") != std::string::npos);
  r = run_cli({"topo"});
  CHECK(r.code == 2);
}

TEST_CASE("mmio sizes host BDFs and catalogue aliases, exit 1 for unknown BARs", "[cli][mmio]") {
  auto r = run_cli({"mmio", example(), "--device", "0000:18:00.0", "--device", "0000:19:00.0"});
  CHECK(r.code == 0);
  CHECK(r.out.find("  128G at +0        BAR1  0000:18:00.0 (H100 PCIe)") != std::string::npos);
  CHECK(r.out.find("pciPassthru.64bitMMIOSizeGB = \"256\"\n") != std::string::npos);
  r = run_cli({"mmio", "--device", "h100-sxm", "--format", "json"});
  CHECK(r.code == 0);
  CHECK(r.out.find("\"size_gb\": 256") != std::string::npos);
  CHECK(r.out.find("\"kb323402_gb\": 256") != std::string::npos);
  r = run_cli({"mmio", "--device", "1234:5678"});
  CHECK(r.code == 2);
  r = run_cli({"mmio", "--device", "0000:18:00.0"});
  CHECK(r.code == 2);
  CHECK(r.err.find("give the HOST") != std::string::npos);
}

TEST_CASE("host-check prints findings with fixes and exits 1", "[cli][host-check]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  auto r = run_cli({"host-check", example(), "--cmdline", (dir / "grub").string()});
  CHECK(r.code == 1);
  // The example host's kind is not known from its capture: the KVM advice is a warning.
  CHECK(r.out.find("info: host: Linux, kind unknown") != std::string::npos);
  CHECK(r.out.find("warning: the kernel command line does not turn the IOMMU on (intel_iommu=on) "
                   "(needed on a KVM host; `--host-kind bare-metal` if it runs no VMs) "
                   "[HOST003]") != std::string::npos);
  r = run_cli(
      {"host-check", example(), "--cmdline", (dir / "grub").string(), "--host-kind", "kvm"});
  CHECK(r.out.find("error: the kernel command line does not turn the IOMMU on (intel_iommu=on) "
                   "[HOST003]") != std::string::npos);
  r = run_cli(
      {"host-check", example(), "--cmdline", (dir / "grub").string(), "--host-kind", "bare-metal"});
  CHECK(r.out.find("[HOST003]") == std::string::npos);
  CHECK(run_cli({"host-check", example(), "--host-kind", "xen"}).code == 2);
  r = run_cli({"host-check", example(), "--cmdline", (dir / "grub").string()});
  CHECK(r.out.find("  fix: add intel_iommu=on iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT") !=
        std::string::npos);
  CHECK(r.out.find("0000:19:00.0: warning: SR-IOV: no VFs created") != std::string::npos);
  write_bytes(dir / "cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt\n");
  r = run_cli(
      {"host-check", example(), "--cmdline", (dir / "cmdline").string(), "--format", "json"});
  CHECK(r.code == 1);  // the VFs are still not created
  CHECK(r.out.find("\"name\": \"sriov-no-vfs\"") != std::string::npos);
  CHECK(r.out.find("\"name\": \"iommu") == std::string::npos);
}

TEST_CASE("host-check on an lspci -tv capture names the checks it could not make, never ready",
          "[cli][host-check]") {
  // lspci -tv shows the tree only: no capabilities (ACS, ATS, SR-IOV), no IOMMU.
  const std::string tree =
      "-+-[0000:00]-+-00.0  Intel Corporation Device 09a2 [8086:09a2]\n"
      " |           \\-01.0-[01-03]----00.0-[02-03]--+-00.0-[03]----00.0  NVIDIA Corporation "
      "GH100 [H100 PCIe] [10de:2331]\n"
      " |                                           \\-01.0-[04]--\n"
      " \\-[0000:80]---02.0-[81]--+-00.0  Mellanox Technologies MT2910 Family [ConnectX-7] "
      "[15b3:1021]\n"
      "                          \\-00.1  Mellanox Technologies MT2910 Family [ConnectX-7] "
      "[15b3:1021]\n";
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "host-tv.txt").string();
  vmxkit::test::write_bytes(path, tree);
  const auto r = vmxkit::test::run_cli({"host-check", path});
  CHECK(r.code == 0);
  CHECK(r.out.find("host ready: no findings") == std::string::npos);
  CHECK(r.out.find("info: IOMMU: not checked (needs: --cmdline /proc/cmdline") !=
        std::string::npos);
  CHECK(r.out.find("info: SR-IOV of 0000:81:00.0, 0000:81:00.1: not checked") != std::string::npos);
  CHECK(r.out.find("info: ATS of 0000:81:00.0, 0000:81:00.1: not checked") != std::string::npos);
  CHECK(r.out.find("info: ACS of the bridges 0000:00:01.0, 0000:01:00.0, 0000:02:00.0, "
                   "0000:02:01.0, 0000:80:02.0: not checked") != std::string::npos);
  CHECK(r.out.find("no problems in what the inputs show; 4 check(s) not made") !=
        std::string::npos);
  // With the command line, the IOMMU is checked; the capabilities still are not.
  const std::string cmdline = (dir / "cmdline").string();
  vmxkit::test::write_bytes(cmdline, "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt\n");
  const auto with = vmxkit::test::run_cli({"host-check", path, "--cmdline", cmdline});
  CHECK(with.out.find("IOMMU: not checked") == std::string::npos);
  CHECK(with.out.find("3 check(s) not made") != std::string::npos);
}

TEST_CASE("host-check gives an ESXi host no GRUB advice for its IOMMU", "[cli][host-check]") {
  // ESXi has no GRUB: the IOMMU is VT-d / AMD-Vi in firmware, and esxcli says Passthru Capable.
  const auto r = vmxkit::test::run_cli(
      {"host-check",
       vmxkit::test::source_path("examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt")
           .string(),
       "--cmdline", vmxkit::test::source_path("tests/data/cli/grub-quiet.txt").string()});
  CHECK(r.out.find("[HOST002]") != std::string::npos);
  CHECK(r.out.find("update-grub") == std::string::npos);
  CHECK(r.out.find("[HOST003]") == std::string::npos);
}
