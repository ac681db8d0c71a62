// SPDX-License-Identifier: Apache-2.0
// topo, lint --host and mmio with `nvidia-smi topo -m` and kernel logs as host inputs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/host_util.h"
#include "support/support.h"

using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

std::string data(const std::string& name) {
  return vmxkit::test::source_path("tests/data/pci/" + name).string();
}

// A VM with the two GPUs of `socket(0x10, 0, {"gpu", "gpu"}, true)` passed through for P2P.
const std::string kGpuPairVm =
    ".encoding = \"UTF-8\"\nconfig.version = \"8\"\nvirtualHW.version = \"20\"\n"
    "firmware = \"efi\"\nmemsize = \"65536\"\nsched.mem.min = \"65536\"\n"
    "sched.mem.pin = \"TRUE\"\n"
    "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"00000:019:00.0\"\n"
    "pciPassthru0.deviceId = \"0x2331\"\npciPassthru0.vendorId = \"0x10de\"\n"
    "pciPassthru1.present = \"TRUE\"\npciPassthru1.id = \"00000:020:00.0\"\n"
    "pciPassthru1.deviceId = \"0x2331\"\npciPassthru1.vendorId = \"0x10de\"\n"
    "pciPassthru.allowP2P = \"TRUE\"\npciPassthru.RelaxACSforP2P = \"TRUE\"\n"
    "pciPassthru.use64bitMMIO = \"TRUE\"\npciPassthru.64bitMMIOSizeGB = \"512\"\n";

}  // namespace

TEST_CASE("topo on an nvidia-smi topo -m alone: its matrix, NV18 verdicts, what it cannot tell",
          "[cli][topo][smi]") {
  const std::string smi = data("smi/hgx-h100-8gpu-nv18.topo-m.txt");
  auto r = run_cli({"topo", smi});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("\nGPU0\t X \tNV18\tNV18\t") != std::string::npos);
  CHECK(r.out.find("  NV#  = Connection traversing a bonded set of # NVLinks\n") !=
        std::string::npos);
  CHECK(r.out.find("Not known from it:\n  - PCI addresses") != std::string::npos);
  CHECK(r.out.find("\n  GPU0 <-> GPU7  NV18  ok\n") != std::string::npos);
  r = run_cli({"topo", "--format", "json", smi});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["source"] == "nvidia-smi topo -m");
  CHECK(j["pairs"][0]["nvlinks"] == 18);
  CHECK(j["pairs"][0]["verdict"] == "ok");
  CHECK(j["not_known"].size() >= 4);
  r = run_cli({"topo", "--format", "dot", smi});
  CHECK(r.code == 2);
  CHECK(r.err.find("no PCIe tree to draw") != std::string::npos);
  r = run_cli({"generate", "--host", smi, "--gpu", "auto"});
  CHECK(r.code == 2);
  CHECK(r.err.find("is nvidia-smi topo -m, which names none; give the host's lspci -vvv") !=
        std::string::npos);
}

TEST_CASE("topo on a PCIe-only matrix: SYS GPU pairs unsupported, GPU6's best NIC",
          "[cli][topo][smi]") {
  const auto r = run_cli({"topo", data("smi/rtx4090-8gpu-pcie.topo-m.txt")});
  CHECK(r.code == 0);
  CHECK(r.out.find("\n  GPU0 <-> GPU1  SYS  unsupported\n") != std::string::npos);
  CHECK(r.out.find("\n  GPU6 <-> NIC0  PHB  degraded\n") != std::string::npos);
  CHECK(r.out.find("Best NIC per GPU:\n\n  GPU0: NIC0 (SYS)\n") != std::string::npos);
  CHECK(r.out.find("  GPU6: NIC0 (PHB)\n") != std::string::npos);
  CHECK(r.out.find("NV#") != std::string::npos);  // the legend, as nvidia-smi prints it
}

TEST_CASE("topo with lspci and nvidia-smi topo -m: NV# cells, NVLink verdicts, disagreements",
          "[cli][topo][smi]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "lspci.txt",
              vmxkit::test::socket(0x10, 0, {"gpu"}) + vmxkit::test::socket(0x90, 1, {"gpu"}));
  write_bytes(dir / "smi.txt",
              "\tGPU0\tGPU1\tCPU Affinity\n"
              "GPU0\t X \tNV12\t0-23\n"
              "GPU1\tNV12\t X \t24-47\n");
  auto r = run_cli({"topo", (dir / "lspci.txt").string(), (dir / "smi.txt").string()});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("\nGPU0\t X \tNV12\t") != std::string::npos);
  CHECK(r.out.find("\n  GPU0 <-> GPU1  NV12  ok\n") != std::string::npos);
  CHECK(r.out.find("GPU P2P goes over NVLink") != std::string::npos);
  r = run_cli(
      {"topo", "--format", "json", (dir / "lspci.txt").string(), (dir / "smi.txt").string()});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["matrix"][0][1] == "NV12");
  CHECK(j["pairs"][0]["nvlinks"] == 12);
  CHECK(j["pairs"][0]["path"] == "SYS");

  write_bytes(dir / "smi.txt",
              "\tGPU0\tGPU1\tCPU Affinity\n"
              "GPU0\t X \tPIX\t0-23\n"
              "GPU1\tPIX\t X \t24-47\n");
  r = run_cli({"topo", (dir / "lspci.txt").string(), (dir / "smi.txt").string()});
  CHECK(r.code == 0);
  CHECK(r.err.find("vmxkit: warning: " + (dir / "smi.txt").string() +
                   ":1: nvidia-smi topo -m says PIX between GPU0 (0000:13:00.0) and GPU1 "
                   "(0000:93:00.0), the PCI inputs give SYS\n") != std::string::npos);
  CHECK(r.out.find("\n  GPU0 <-> GPU1  SYS  unsupported\n") != std::string::npos);
}

TEST_CASE("lint --host refuses nvidia-smi topo -m alone, and with lspci NVLink clears TOPO006",
          "[cli][lint][smi]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "vm.vmx", kGpuPairVm);
  write_bytes(dir / "lspci.txt", vmxkit::test::socket(0x10, 0, {"gpu", "gpu"}, true));
  write_bytes(dir / "smi.txt",
              "\tGPU0\tGPU1\tCPU Affinity\n"
              "GPU0\t X \tNV4\t0-23\n"
              "GPU1\tNV4\t X \t0-23\n");
  const std::string vm = (dir / "vm.vmx").string();
  auto r = run_cli({"lint", "--host", (dir / "smi.txt").string(), vm});
  CHECK(r.code == 2);
  CHECK(r.err.find("nvidia-smi topo -m names no PCI address") != std::string::npos);
  // The pair under the redirecting switch: ACS redirect (TOPO006) without NVLink ...
  r = run_cli({"lint", "--host", (dir / "lspci.txt").string(), vm});
  CHECK(r.out.find("[TOPO006]") != std::string::npos);
  // ... and none when the matrix joins the two GPUs by NVLink.
  r = run_cli(
      {"lint", "--host", (dir / "lspci.txt").string(), "--host", (dir / "smi.txt").string(), vm});
  CHECK(r.out.find("[TOPO006]") == std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("mmio sizes GPUs from a guest's kernel log and names a BAR without space",
          "[cli][mmio][dmesg]") {
  auto r = run_cli(
      {"mmio", data("dmesg/guest-4x-h100-kernel-6.12.dmesg.txt"), "--device", "0000:06:00.0"});
  CHECK(r.code == 0);
  CHECK(r.out.find("[dmesg ") != std::string::npos);
  CHECK(r.out.find("pciPassthru.64bitMMIOSizeGB = \"256\"") != std::string::npos);
  vmxkit::test::TempDir dir;
  write_bytes(dir / "dmesg.txt",
              "[    0.9] pci 0000:13:00.0: [10de:2331] type 00 class 0x030200 PCIe Endpoint\n"
              "[    1.0] pci 0000:13:00.0: BAR 1 [mem size 0x2000000000 64bit pref]: can't assign; "
              "no space\n"
              "[    1.1] pci 0000:13:00.0: BAR 1 [mem size 0x2000000000 64bit pref]: failed to "
              "assign\n");
  r = run_cli(
      {"mmio", (dir / "dmesg.txt").string(), "--device", "0000:13:00.0", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["unassigned"].size() == 1);
  CHECK(j["unassigned"][0].get<std::string>().find("the kernel found no space for BAR1 (128G") !=
        std::string::npos);
}
