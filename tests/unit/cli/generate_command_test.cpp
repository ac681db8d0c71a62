// SPDX-License-Identifier: Apache-2.0
// vmxkit generate through the command line, in-process.
#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/vmxkit.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;
using vmxkit::test::write_bytes;

namespace {

std::string example_host() {
  return source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string();
}

}  // namespace

TEST_CASE("generate writes a .vmx that lint accepts with the same host", "[cli][generate]") {
  vmxkit::test::TempDir dir;
  const auto out = (dir / "vm.vmx").string();
  auto r = run_cli({"generate", "--host", example_host(), "--gpu", "auto", "--gpus", "2", "--nic",
                    "auto", "--system-id", "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f", "-o", out});
  REQUIRE(r.code == 0);
  const std::string vmx = read_bytes(out);
  CHECK(vmx.find("pciPassthru.64bitMMIOSizeGB = \"512\"") != std::string::npos);
  CHECK(vmx.find("pciPassthru0.id = \"00000:024:00.0\"") != std::string::npos);
  r = run_cli({"lint", "--host", example_host(), out});
  CHECK(r.code == 0);
}

TEST_CASE("generate renders the same plan as ConfigSpec XML, VI/JSON, govc and PowerCLI",
          "[cli][generate]") {
  const std::vector<std::string> base = {
      "generate", "--host",       example_host(),
      "--gpu",    "0000:18:00.0", "--nic",
      "auto",     "--system-id",  "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f",
      "--format"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  auto r = with({"configspec-xml"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("<id>0000:18:00.0</id>") != std::string::npos);
  CHECK(r.out.find("<key>pciPassthru.64bitMMIOSizeGB</key>") != std::string::npos);
  CHECK(r.err.find("GPU0 <-> NIC0: PIX") != std::string::npos);
  r = with({"vi-json"});
  CHECK(r.code == 0);
  CHECK(r.out.find("\"_typeName\"") != std::string::npos);
  r = with({"govc"});
  CHECK(r.out.find("device.pci.add") != std::string::npos);
  r = with({"powercli"});
  CHECK(r.out.find("$spec.ExtraConfig = @(") != std::string::npos);
  r = with({"soap", "--vm", "vm-42"});
  CHECK(r.out.find("vm-42") != std::string::npos);
}

TEST_CASE("generate --base merges into an existing .vmx and keeps the rest", "[cli][generate]") {
  vmxkit::test::TempDir dir;
  const std::string original =
      ".encoding = \"UTF-8\"\r\n# my comment\r\ndisplayName = \"train-01\"\r\nmemSize = "
      "\"131072\"\r\n"
      "firmware = \"efi\"\r\n";
  write_bytes(dir / "vm.vmx", original);
  const auto r = run_cli({"generate", "--host", example_host(), "--gpu", "0000:18:00.0", "--nic",
                          "auto", "--system-id", "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f", "--base",
                          (dir / "vm.vmx").string()});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind(".encoding = \"UTF-8\"\r\n# my comment\r\ndisplayName = \"train-01\"\r\n"
                    "memSize = \"131072\"\r\n",
                    0) == 0);
  CHECK(r.out.find("sched.mem.min = \"131072\"\r\n") != std::string::npos);
  CHECK(r.out.find("pciPassthru0.id = \"00000:024:00.0\"\r\n") != std::string::npos);
  CHECK(read_bytes(dir / "vm.vmx") == original);
}

TEST_CASE("generate refuses what cannot work with exit 2 and a reason", "[cli][generate]") {
  auto r = run_cli(
      {"generate", "--host", example_host(), "--gpu", "0000:18:00.0", "--nic", "0000:9e:00.0"});
  CHECK(r.code == 2);
  CHECK(r.err.find("SYS") != std::string::npos);
  r = run_cli({"generate", "--gpu", "auto"});
  CHECK(r.code == 2);
  CHECK(r.err.find("needs --host") != std::string::npos);
  r = run_cli({"generate", "--gpu", "h100-pcie", "--template", "no-such-template"});
  CHECK(r.code == 2);
}

TEST_CASE("generate lists templates and models", "[cli][generate]") {
  auto r = run_cli({"generate", "--list-templates"});
  CHECK(r.code == 0);
  for (const char* name : {"gpudirect-rdma", "multi-gpu-p2p", "single-gpu", "vgpu-sriov"}) {
    CHECK(r.out.find(name) != std::string::npos);
  }
  r = run_cli({"generate", "--list-models"});
  CHECK(r.out.find("h100-pcie") != std::string::npos);
  CHECK(r.out.find("cx7") != std::string::npos);
  // The catalogue's nvlink column, as it is written (a NIC's is -).
  CHECK(r.out.rfind("ALIAS          ID         ROLE      NVLINK    MODEL\n", 0) == 0);
  CHECK(r.out.find("\na100-80g       10de:20b5  gpu       bridge:2  A100 PCIe 80GB\n") !=
        std::string::npos);
  CHECK(r.out.find("\nh100-pcie      10de:2331  gpu       bridge    H100 PCIe\n") !=
        std::string::npos);
  CHECK(r.out.find("\nh100-sxm       10de:2330  gpu       baseboard H100 SXM5 80GB\n") !=
        std::string::npos);
  CHECK(r.out.find("\nl40s           10de:26b9  gpu       no        L40S\n") != std::string::npos);
  CHECK(r.out.find("\nt4             10de:1eb8  gpu       -         Tesla T4\n") !=
        std::string::npos);
  CHECK(r.out.find("\ncx7            15b3:1021  rdma-nic  -         ConnectX-7\n") !=
        std::string::npos);
}

TEST_CASE("generate --memory-mb takes 1 MB to 24560 GB, the vSphere maximum, else exit 2",
          "[cli][generate]") {
  for (const char* mb : {"0", "25149441", "99999999999999999999999", "-5", "12x"}) {
    const auto r = run_cli({"generate", "--gpu", "h100-pcie", "--memory-mb", mb});
    INFO(mb << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("--memory-mb") != std::string::npos);
  }
  auto r = run_cli({"generate", "--gpu", "h100-pcie", "--memory-mb", "0"});
  CHECK(r.err.find("0 is not a number of MB from 1 to 25149440 (24560 GB, the vSphere maximum "
                   "for a VM)") != std::string::npos);
  for (const char* mb : {"1", "25149440"}) {
    r = run_cli({"generate", "--gpu", "h100-pcie", "--memory-mb", mb});
    INFO(mb << ": " << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find(std::string("memSize = \"") + mb + "\"") != std::string::npos);
  }
  // The library refuses it too (the Python package and other callers of vmxkit::plan).
  vmxkit::PlanRequest request;
  request.gpus = {"h100-pcie"};
  request.memory_mb = vmxkit::kMaxMemoryMb + 1;
  CHECK_THROWS_WITH(vmxkit::plan(nullptr, request),
                    "guest memory 25149441 MB: must be 1 to 25149440 MB (24560 GB, the vSphere "
                    "maximum for a VM)");
  request.memory_mb = 0;
  CHECK_THROWS_AS(vmxkit::plan(nullptr, request), vmxkit::Error);
}

TEST_CASE("what generate writes for every GPU count lints clean against the same host",
          "[cli][gen][lint]") {
  // Rail-aligned plans: before NCCL-style pairing, 8 GPUs gave 32 TOPO004 and 16 TOPO005.
  const std::string host =
      vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string();
  vmxkit::test::TempDir dir;
  const std::string out = (dir / "vm.vmx").string();
  for (const std::string n : {"1", "2", "4", "8"}) {
    for (const bool sriov : {false, true}) {
      INFO("--gpus " << n << (sriov ? " --sriov" : ""));
      std::vector<std::string> args = {"generate", "--host", host,    "--gpu",  "auto",
                                       "--gpus",   n,        "--nic", "auto",   "--system-id",
                                       "U",        "-o",     out,     "--force"};
      if (sriov) args.emplace_back("--sriov");
      REQUIRE(vmxkit::test::run_cli(args).code == 0);
      const auto lint = vmxkit::test::run_cli({"lint", "--host", host, out});
      CHECK(lint.out == "No problems found in 1 file.\n");
      CHECK(lint.code == 0);
    }
  }
}

TEST_CASE("on an ESXi capture, generate refuses --gpus N above the GPUs ready, naming them",
          "[cli][gen][esxcli]") {
  const std::string host =
      vmxkit::test::source_path("examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt")
          .string();
  const auto r = vmxkit::test::run_cli(
      {"generate", "--host", host, "--gpu", "auto", "--gpus", "3", "--nic", "auto"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--gpus 3: the host has 4 GPU(s), 2 of them ready for this VM; not ready:\n"
                   "  0000:43:00.0 (L40S) is not enabled for passthrough") != std::string::npos);
  CHECK(r.err.find("fix: esxcli hardware pci pcipassthru set -d 0000:44:00.0 -e true -a") !=
        std::string::npos);
}
