// SPDX-License-Identifier: Apache-2.0
// The guest inputs (detection, prompt-separated captures, each loader), on the fixtures in
// tests/data/guest/. The guest checks are tested in tests/unit/checks/guest_checks_test.cpp.
#include "vmxkit/model/guest.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/guest/load.h"

namespace {

using vmxkit::Error;
using vmxkit::guest::Guest;
using vmxkit::guest::InputKind;

std::string fixture(const std::string& name) {
  return vmxkit::test::read_bytes(vmxkit::test::source_path("tests/data/guest/" + name));
}

// A guest from (name, text) pairs.
Guest guest_of(const std::vector<std::pair<std::string, std::string>>& inputs) {
  Guest g;
  for (const auto& [name, text] : inputs) load_text(g, text, name);
  g.finalize();
  return g;
}

Guest fixtures(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& n : names) inputs.emplace_back(n, fixture(n));
  return guest_of(inputs);
}

constexpr const char* kEsxiCapture = "esxi-h100-cx7.capture.txt";

}  // namespace

TEST_CASE("guest inputs are detected by their content", "[guest][detect]") {
  using vmxkit::guest::detect_kind;
  const std::vector<std::pair<std::string, InputKind>> cases = {
      {"Module                  Size  Used by\nnvidia 1 0\n", InputKind::lsmod},
      {"nvidia_peermem 16384 0 - Live 0x0000000000000000\n", InputKind::lsmod},
      {"BOOT_IMAGE=/vmlinuz-6.5.0 root=/dev/sda1 ro quiet\n", InputKind::cmdline},
      {"\n==============NVSMI LOG==============\n\nDriver Version : 550.54.15\n",
       InputKind::nvidia_smi_query},
      {"Mon Apr  3 23:59:20 2023\n+----+\n| NVIDIA-SMI 525.105.17   Driver Version: 525.105.17 |\n",
       InputKind::nvidia_smi},
      {"\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tPHB\t0-15\t0\n",
       InputKind::nvidia_smi_topo},
      {"hca_id:\tmlx5_0\n", InputKind::ibv_devinfo},
      {"No IB devices found\n", InputKind::ibv_devinfo},
      {"5.15.0-91-generic\n", InputKind::uname},
      {"Linux gpu-vm 6.8.0-45-generic #45-Ubuntu SMP x86_64 GNU/Linux\n", InputKind::uname},
      {"/sys/module/nvidia/version:550.54.15\n", InputKind::module_versions},
      {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 2023\n",
       InputKind::nvidia_version},
      {"filename:       /lib/modules/6.5.0/kernel/nvidia.ko\nlicense:        NVIDIA\n",
       InputKind::modinfo},
      {"MLNX_OFED_LINUX-23.10-1.1.9.0:\n", InputKind::ofed_info},
      {"00:00.0 Host bridge: Intel Corporation 440BX/ZX/DX (rev 01)\n", InputKind::lspci},
      {"-[0000:00]-+-00.0  Intel Corporation 440BX/ZX/DX\n", InputKind::lspci_tree},
  };
  for (const auto& [text, kind] : cases) {
    INFO(text);
    CHECK(detect_kind(text, "in.txt") == kind);
  }
}

TEST_CASE("an unknown or empty guest input is an error with file, line and column",
          "[guest][detect]") {
  Guest g;
  REQUIRE_THROWS_WITH(load_text(g, "\n   something else entirely\n", "x.txt"),
                      Catch::StartsWith("x.txt:2:4: unknown guest input"));
  Guest e;
  REQUIRE_THROWS_WITH(load_text(e, "\n\n", "empty.txt"),
                      Catch::StartsWith("empty.txt: empty guest input"));
  Guest p;
  REQUIRE_THROWS_WITH(load_text(p, "$ lsmod\n", "p.txt"),
                      Catch::Contains("no command output after the shell prompts"));
}

TEST_CASE("each loader reports bad lines with file:line:col instead of reading them as empty",
          "[guest][loaders]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Module Size Used by\nnvidia big 0\n", "bad.txt:2:8: expected the module size"},
      {"/sys/module/nvidia/version:550\n/sys/module/version:1\n", "bad.txt:2:1: expected"},
      {"\n==============NVSMI LOG==============\nGPU zz:qq\n",
       "bad.txt:3:5: expected a PCI bus id"},
      {"==============NVSMI LOG==============\nTimestamp : now\n",
       "bad.txt: nvidia-smi -q output without a 'Driver Version' line"},
      {"hca_id:\tmlx5_0\n\t\tport:\tone\n", "bad.txt:2:9: expected a port number"},
      {"filename: /lib/modules/x/nvidia.txt\n", "bad.txt:1:11: expected a module file name"},
      {"\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X\n", "bad.txt:2:1: expected 2 cells"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    Guest g;
    REQUIRE_THROWS_WITH(load_text(g, text, "bad.txt"), Catch::StartsWith(message));
  }
}

TEST_CASE("a very long line is an input error, not a crash", "[guest][loaders]") {
  const std::string line(1 << 20, 'x');
  Guest g;
  REQUIRE_THROWS_AS(load_text(g, line + "\n", "long.txt"), Error);
  Guest m;
  REQUIRE_THROWS_AS(load_text(m, "Module Size Used by\n" + line + " 12 0\n" + line + "\n", "m.txt"),
                    Error);
}

TEST_CASE("a capture of several commands splits at the shell prompts, keeping file lines",
          "[guest][capture]") {
  const Guest g = fixtures({kEsxiCapture});
  std::vector<std::pair<InputKind, std::uint32_t>> got;
  for (const auto& r : g.inputs()) got.emplace_back(r.kind, r.where.line);
  const std::vector<std::pair<InputKind, std::uint32_t>> want = {{InputKind::uname, 2},
                                                                 {InputKind::lsmod, 4},
                                                                 {InputKind::module_versions, 16},
                                                                 {InputKind::nvidia_version, 20},
                                                                 {InputKind::ofed_info, 23},
                                                                 {InputKind::cmdline, 25},
                                                                 {InputKind::ibv_devinfo, 27},
                                                                 {InputKind::nvidia_smi_query, 48}};
  CHECK(got == want);
  REQUIRE(g.kernel());
  CHECK(g.kernel()->text == "5.15.0-91-generic");
  CHECK(g.kernel()->major == 5);
  CHECK(g.kernel()->minor == 15);
  REQUIRE(g.driver_version());
  CHECK(g.driver_version()->value == "550.54.15");
  REQUIRE(g.cuda_version());
  CHECK(g.cuda_version()->value == "12.4");
  REQUIRE(g.open_kernel_module());
  CHECK(g.open_kernel_module()->value == "open");
  CHECK(g.module_loaded("nvidia-peermem") == true);
  CHECK(g.module_loaded("nv_peer_mem") == false);
  REQUIRE(g.smi_gpus().size() == 1);
  CHECK(g.smi_gpus()[0].bus_id->to_string() == "0000:03:00.0");
  CHECK(g.smi_gpus()[0].bar1_total == std::uint64_t{128} << 30);
  REQUIRE(g.ib_devices());
  REQUIRE(g.ib_devices()->size() == 1);
  CHECK((*g.ib_devices())[0].name == "mlx5_0");
  REQUIRE((*g.ib_devices())[0].ports.size() == 1);
  CHECK((*g.ib_devices())[0].ports[0].state == "PORT_ACTIVE");
  REQUIRE(g.ofed_version());
  CHECK(g.ofed_version()->value == "MLNX_OFED_LINUX-23.10-1.1.9.0");
  CHECK(g.module_versions().at("nvidia_peermem").value == "550.54.15");
  // The error of a bad line in a later part names the file's own line.
  std::string bad = fixture(kEsxiCapture);
  bad.replace(bad.find("5.15.0-91-generic\n"), 18, "five\n");
  Guest b;
  REQUIRE_THROWS_WITH(load_text(b, bad, "cap.txt"), Catch::StartsWith("cap.txt:2:1:"));
}

TEST_CASE("uname -a, modinfo and the kernel image name give the release and module flavour",
          "[guest][loaders]") {
  const Guest g = guest_of(
      {{"uname.txt", "Linux vm 6.8.0-45-generic #45-Ubuntu SMP PREEMPT x86_64 GNU/Linux\n"},
       {"modinfo.txt",
        "filename:       /lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko.zst\n"
        "version:        550.120\nlicense:        Dual MIT/GPL\n"
        "filename:       /lib/modules/6.8.0-45-generic/updates/dkms/nvidia-peermem.ko.zst\n"
        "version:        550.120\nlicense:        Dual MIT/GPL\n"}});
  CHECK(g.kernel()->text == "6.8.0-45-generic");
  CHECK(g.open_kernel_module()->value == "open");
  CHECK(g.driver_version()->value == "550.120");
  CHECK(g.modinfo().count("nvidia_peermem") == 1);
  const Guest p =
      guest_of({{"modinfo.txt",
                 "filename: /lib/modules/x/kernel/drivers/video/nvidia.ko\n"
                 "license:  NVIDIA\nversion: 535.129.03\n"},
                {"cmdline", "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-4.18.0-513.el8.x86_64 ro\n"}});
  CHECK(p.open_kernel_module()->value == "proprietary");
  REQUIRE(p.kernel());
  CHECK(p.kernel()->major == 4);
  CHECK(p.kernel()->minor == 18);
}
