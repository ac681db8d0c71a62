// SPDX-License-Identifier: Apache-2.0
// The guest inputs (detection, prompt-separated captures, each loader) and the guest checks, on
// the fixtures in tests/data/guest/ and the real guest captures of the shared corpus.
#include "vmxkit/model/guest.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/checks/guest_checks.h"
#include "vmxkit/core/error.h"

namespace {

using vmxkit::Error;
using vmxkit::guest::Finding;
using vmxkit::guest::Guest;
using vmxkit::guest::InputKind;

std::string fixture(const std::string& name) {
  return vmxkit::test::read_bytes(vmxkit::test::source_path("tests/data/guest/" + name));
}

// A guest from (name, text) pairs.
Guest guest_of(const std::vector<std::pair<std::string, std::string>>& inputs) {
  Guest g;
  for (const auto& [name, text] : inputs) g.load_text(text, name);
  g.finalize();
  return g;
}

Guest fixtures(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& n : names) inputs.emplace_back(n, fixture(n));
  return guest_of(inputs);
}

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.emplace_back(f.id);
  return out;
}

const Finding* find(const std::vector<Finding>& findings, std::string_view id,
                    std::string_view subject = {}) {
  for (const Finding& f : findings) {
    if (f.id == id && (subject.empty() || f.subject == subject)) return &f;
  }
  return nullptr;
}

std::size_t count(const std::vector<Finding>& findings, std::string_view id) {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [&](const Finding& f) { return f.id == id; }));
}

constexpr const char* kEsxiLspci = "esxi-h100-cx7.lspci-vvv.txt";
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
  REQUIRE_THROWS_WITH(g.load_text("\n   something else entirely\n", "x.txt"),
                      Catch::StartsWith("x.txt:2:4: unknown guest input"));
  Guest e;
  REQUIRE_THROWS_WITH(e.load_text("\n\n", "empty.txt"),
                      Catch::StartsWith("empty.txt: empty guest input"));
  Guest p;
  REQUIRE_THROWS_WITH(p.load_text("$ lsmod\n", "p.txt"),
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
    REQUIRE_THROWS_WITH(g.load_text(text, "bad.txt"), Catch::StartsWith(message));
  }
}

TEST_CASE("a very long line is an input error, not a crash", "[guest][loaders]") {
  const std::string line(1 << 20, 'x');
  Guest g;
  REQUIRE_THROWS_AS(g.load_text(line + "\n", "long.txt"), Error);
  Guest m;
  REQUIRE_THROWS_AS(m.load_text("Module Size Used by\n" + line + " 12 0\n" + line + "\n", "m.txt"),
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
  REQUIRE_THROWS_WITH(b.load_text(bad, "cap.txt"), Catch::StartsWith("cap.txt:2:1:"));
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

TEST_CASE("the ESXi guest with nvidia_peermem: NCCL sees PHB and does not use GDR",
          "[guest][checks][GUEST002]") {
  const Guest g = fixtures({kEsxiLspci, kEsxiCapture});
  const auto pairs = vmxkit::guest::nccl_view(g);
  REQUIRE(pairs.size() == 1);
  CHECK(vmxkit::pci::to_string(pairs[0].cls) == "PHB");
  CHECK_FALSE(pairs[0].gdr);
  CHECK(pairs[0].nic_name == "mlx5_0");
  const auto findings = vmxkit::guest::check_guest(g);
  CHECK(ids(findings) == std::vector<std::string>{"GUEST002", "GUEST011"});
  const Finding* f = find(findings, "GUEST002");
  REQUIRE(f != nullptr);
  CHECK(f->severity == vmxkit::Severity::warning);
  CHECK_THAT(f->message, Catch::Contains("own virtual PCIe root port"));
  CHECK_THAT(f->fix, Catch::Contains("NCCL_NET_GDR_LEVEL=PHB") &&
                         Catch::Contains("vmxkit nccl-topo") && Catch::Contains("risk"));
}

TEST_CASE("a KVM guest with an emulated switch gives PIX: no NCCL finding", "[guest][checks]") {
  const Guest g = fixtures({"kvm-switch.lspci-vvv.txt", kEsxiCapture});
  const auto pairs = vmxkit::guest::nccl_view(g);
  REQUIRE(pairs.size() == 1);
  CHECK(vmxkit::pci::to_string(pairs[0].cls) == "PIX");
  CHECK(pairs[0].gdr);
  const auto findings = vmxkit::guest::check_guest(g);
  CHECK(ids(findings) == std::vector<std::string>{"GUEST011"});
}

TEST_CASE("a KVM guest with root ports only gives PHB, and a downgraded GPU link is reported",
          "[guest][checks][GUEST002][GUEST006]") {
  const Guest g = fixtures({"kvm-flat.lspci-vvv.txt"});
  const auto findings = vmxkit::guest::check_guest(g);
  const Finding* nccl = find(findings, "GUEST002");
  REQUIRE(nccl != nullptr);
  CHECK_THAT(nccl->message, Catch::Contains("PHB") && Catch::Contains("host bridge"));
  const Finding* link = find(findings, "GUEST006");
  REQUIRE(link != nullptr);
  CHECK(link->subject == "0000:01:00.0 (H100 SXM5 80GB)");
  CHECK_THAT(link->message, Catch::Contains("2.5GT/s x16") && Catch::Contains("32GT/s x16"));
  CHECK(count(findings, "GUEST006") == 1);  // the NIC's link is fine
}

TEST_CASE("without nvidia_peermem and without DMA-BUF the kernel path is an error with its fix",
          "[guest][checks][GUEST001]") {
  const Guest g = fixtures({kEsxiLspci, "esxi-no-peermem.capture.txt"});
  const auto findings = vmxkit::guest::check_guest(g);
  const Finding* f = find(findings, "GUEST001");
  REQUIRE(f != nullptr);
  CHECK(f->severity == vmxkit::Severity::error);
  CHECK_THAT(f->message, Catch::Contains("proprietary") && Catch::Contains("older than 5.12"));
  CHECK_THAT(f->fix, Catch::StartsWith("modprobe nvidia-peermem"));
  const Finding* port = find(findings, "GUEST010");
  REQUIRE(port != nullptr);
  CHECK_THAT(port->message, Catch::Contains("PORT_DOWN"));
  CHECK(findings.front().severity == vmxkit::Severity::error);  // problems first
}

TEST_CASE("DMA-BUF is a kernel path: open module on Linux 5.12+ needs no nvidia_peermem",
          "[guest][checks][GUEST001]") {
  const std::string lsmod =
      "Module Size Used by\nnvidia 56733696 0\nmlx5_ib 483328 0\n"
      "mlx5_core 2117632 1 mlx5_ib\n";
  const std::string open =
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n";
  const Guest ok = guest_of({{"lspci", fixture(kEsxiLspci)},
                             {"lsmod", lsmod},
                             {"ver", open},
                             {"uname", "6.5.0-1018-generic\n"}});
  CHECK(find(vmxkit::guest::check_guest(ok), "GUEST001") == nullptr);
  CHECK(find(vmxkit::guest::check_guest(ok), "GUEST012", "GUEST001") == nullptr);
  const Guest old = guest_of({{"lspci", fixture(kEsxiLspci)},
                              {"lsmod", lsmod},
                              {"ver", open},
                              {"uname", "5.11.0-27-generic\n"}});
  const auto old_findings = vmxkit::guest::check_guest(old);
  const Finding* f = find(old_findings, "GUEST001");
  REQUIRE(f != nullptr);
  CHECK_THAT(f->message, Catch::Contains("kernel 5.11.0-27-generic is older than 5.12"));
  // Without the module flavour it is not checked, not passed.
  const Guest unknown =
      guest_of({{"lspci", fixture(kEsxiLspci)}, {"lsmod", lsmod}, {"uname", "6.5.0\n"}});
  const auto u = vmxkit::guest::check_guest(unknown);
  CHECK(find(u, "GUEST001") == nullptr);
  const Finding* nc = find(u, "GUEST012", "GUEST001");
  REQUIRE(nc != nullptr);
  CHECK_THAT(nc->message, Catch::Contains("/proc/driver/nvidia/version"));
}

TEST_CASE("an unassigned or small BAR1 names pciPassthru.64bitMMIOSizeGB",
          "[guest][checks][GUEST003]") {
  const Guest g = fixtures({"esxi-bar1-unassigned.lspci-vvv.txt", kEsxiCapture});
  const auto findings = vmxkit::guest::check_guest(g);
  const Finding* f = find(findings, "GUEST003");
  REQUIRE(f != nullptr);
  CHECK(f->severity == vmxkit::Severity::error);
  CHECK_THAT(f->message, Catch::Contains("unassigned"));
  CHECK_THAT(f->fix, Catch::Contains("pciPassthru.64bitMMIOSizeGB") && Catch::Contains("256"));
  CHECK(find(findings, "GUEST004") != nullptr);  // that fixture also has ATS off

  std::string small = fixture(kEsxiLspci);
  small.replace(small.find("[size=128G]"), 11, "[size=256M]");
  const auto small_findings = vmxkit::guest::check_guest(guest_of({{"small.txt", small}}));
  const Finding* sf = find(small_findings, "GUEST003");
  REQUIRE(sf != nullptr);
  CHECK_THAT(sf->message, Catch::Contains("BAR1 is 256M where this GPU has 128G"));
  CHECK(find(vmxkit::guest::check_guest(fixtures({kEsxiLspci})), "GUEST003") == nullptr);
}

TEST_CASE("ACS redirect on a virtual bridge on the GPU-NIC path is reported",
          "[guest][checks][GUEST005]") {
  std::string text = fixture(kEsxiLspci);
  const std::string anchor = "\tCapabilities: [8c] MSI: Enable+ Count=1/1 Maskable+ 64bit+\n";
  const auto at = text.find(anchor, text.find("00:16.0 PCI bridge"));
  REQUIRE(at != std::string::npos);
  text.insert(at + anchor.size(),
              "\tCapabilities: [148 v1] Access Control Services\n"
              "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
              "DirectTrans-\n"
              "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
              "DirectTrans-\n");
  const auto findings = vmxkit::guest::check_guest(guest_of({{"acs.txt", text}}));
  const Finding* f = find(findings, "GUEST005");
  REQUIRE(f != nullptr);
  CHECK(f->subject == "0000:00:16.0");
  CHECK_THAT(f->fix, Catch::Contains("setpci -s 0000:00:16.0 ECAP_ACS+0x6.w=0000"));
  CHECK(count(findings, "GUEST005") == 1);
  CHECK(find(vmxkit::guest::check_guest(fixtures({kEsxiLspci})), "GUEST005") == nullptr);
}

TEST_CASE("a check without its input is reported as not checked, naming the input",
          "[guest][checks][GUEST012]") {
  const auto findings = vmxkit::guest::check_guest(fixtures({kEsxiLspci}));
  std::set<std::string> unchecked;
  for (const Finding& f : findings) {
    if (f.id == "GUEST012") unchecked.insert(f.subject);
  }
  CHECK(unchecked == std::set<std::string>{"GUEST001", "GUEST009", "GUEST010", "GUEST011"});
  const Finding* k = find(findings, "GUEST012", "GUEST001");
  REQUIRE(k != nullptr);
  CHECK_THAT(k->message, Catch::Contains("not checked (needs: `lsmod`"));
  // Capture inputs alone: the PCI checks are the ones not made.
  const auto only = vmxkit::guest::check_guest(fixtures({kEsxiCapture}));
  CHECK(find(only, "GUEST012", "GUEST002") != nullptr);
  CHECK(find(only, "GUEST012", "GUEST007") == nullptr);  // nvidia-smi -q shows the GPU
}

TEST_CASE("nvidia-smi topo -m alone gives NCCL's view with its own labels",
          "[guest][checks][GUEST002]") {
  const Guest g =
      guest_of({{"topo.txt",
                 "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
                 "GPU0\t X \tPHB\tPHB\tPXB\t0-31\t0\t\tN/A\n"
                 "GPU1\tPHB\t X \tNODE\tPHB\t0-31\t0\t\tN/A\n"
                 "NIC0\tPHB\tNODE\t X \tPHB\n"
                 "NIC1\tPXB\tPHB\tPHB\t X \n"
                 "\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"}});
  const auto pairs = vmxkit::guest::nccl_view(g);
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].gpu_label == "GPU0");
  CHECK(pairs[0].nic_label == "NIC1");
  CHECK(pairs[0].nic_name == "mlx5_1");
  CHECK(pairs[0].gdr);
  CHECK(vmxkit::pci::to_string(pairs[1].cls) == "PHB");  // NODE is PHB for NCCL
  CHECK_FALSE(pairs[1].gdr);
  const auto findings = vmxkit::guest::check_guest(g);
  CHECK(count(findings, "GUEST002") == 1);
  CHECK(find(findings, "GUEST002", "GPU1") != nullptr);
}

TEST_CASE("nvidia_peermem of another driver version than nvidia is reported",
          "[guest][checks][GUEST014]") {
  const Guest g = guest_of({{"v",
                             "/sys/module/nvidia/version:550.54.15\n"
                             "/sys/module/nvidia_peermem/version:535.129.03\n"}});
  const auto findings = vmxkit::guest::check_guest(g);
  const Finding* f = find(findings, "GUEST014");
  REQUIRE(f != nullptr);
  CHECK_THAT(f->message, Catch::Contains("535.129.03") && Catch::Contains("550.54.15"));
}

TEST_CASE("the real guest captures of the corpus are read and judged", "[guest][corpus]") {
  const auto dir = vmxkit::test::corpus_dir("guest");
  const auto files = vmxkit::test::corpus_files("guest", ".txt");
  std::size_t captures = 0;
  for (const auto& path : files) {
    if (path.string().ends_with(".source.txt")) continue;
    ++captures;
    INFO(path.string());
    Guest g;
    REQUIRE_NOTHROW(g.load_text(vmxkit::test::read_bytes(path), path.string()));
    g.finalize();
    const auto findings = vmxkit::guest::check_guest(g);
    const std::string name = path.filename().string();
    if (name.find("p100") != std::string::npos) {
      // `lspci | grep -i nvidia`, an elision line, then plain nvidia-smi.
      REQUIRE(g.inputs().size() == 2);
      CHECK(g.inputs()[0].filtered);
      CHECK(g.driver_version()->value == "525.105.17");
      CHECK(g.cuda_version()->value == "12.0");
      CHECK(g.smi_gpus().size() == 2);
      CHECK(find(findings, "GUEST007") == nullptr);
      CHECK(find(findings, "GUEST013") == nullptr);  // a filtered lspci proves no absence
      CHECK(find(findings, "GUEST012", "GUEST013") != nullptr);
      CHECK(find(findings, "GUEST012", "GUEST003") != nullptr);
    } else {
      // AMD GPUs passed through to ESXi guests: no NVIDIA GPU, no RDMA NIC.
      CHECK(find(findings, "GUEST007") != nullptr);
      CHECK(find(findings, "GUEST013") != nullptr);
      // The passthrough device on bus 03, the bus of VMware's first virtual root port 00:15.0.
      const auto* port = g.pci().find(vmxkit::Bdf{0, 0, 0x15, 0});
      REQUIRE(port != nullptr);
      CHECK_THAT(port->name, Catch::Contains("VMware PCI Express Root Port"));
      CHECK(g.pci().find(vmxkit::Bdf{0, 3, 0, 0}) != nullptr);
    }
  }
  CHECK(captures == 3);
  CHECK(std::filesystem::is_directory(dir));
}

TEST_CASE("the guest check table has unique sorted ids, each documented with a source",
          "[guest][table]") {
  const std::string doc =
      vmxkit::test::read_bytes(vmxkit::test::source_path("docs/guest-check.md"));
  std::string prev;
  for (const auto& c : vmxkit::guest::checks()) {
    INFO(c.id);
    CHECK(std::string(c.id) > prev);
    prev = std::string(c.id);
    CHECK(!c.name.empty());
    CHECK(!c.source.empty());
    const std::string link = vmxkit::guest::check_doc(c);
    const std::string anchor = link.substr(link.find('#') + 1);
    // The heading "## GUEST001 gdr-kernel-path" gives the anchor.
    CHECK(doc.find("## " + std::string(c.id) + " " + std::string(c.name) + "\n") !=
          std::string::npos);
    CHECK(anchor == "guest" + std::string(c.id).substr(5) + "-" + std::string(c.name));
  }
  CHECK(vmxkit::guest::checks().size() == 15);
}
