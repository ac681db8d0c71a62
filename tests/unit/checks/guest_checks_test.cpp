// SPDX-License-Identifier: Apache-2.0
// The guest checks (GUEST001...) and NCCL's view as `vmxkit guest-check` runs them, on the
// fixtures in tests/data/guest/ and the real guest captures of the shared corpus.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/model/guest.h"

namespace {

using vmxkit::checks::Finding;
using vmxkit::guest::Guest;

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

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.emplace_back(f.check->id);
  return out;
}

const Finding* find(const std::vector<Finding>& findings, std::string_view id,
                    std::string_view subject = {}) {
  for (const Finding& f : findings) {
    if (f.check->id == id && (subject.empty() || f.subject == subject)) return &f;
  }
  return nullptr;
}

std::size_t count(const std::vector<Finding>& findings, std::string_view id) {
  return static_cast<std::size_t>(std::count_if(
      findings.begin(), findings.end(), [&](const Finding& f) { return f.check->id == id; }));
}

constexpr const char* kEsxiLspci = "esxi-h100-cx7.lspci-vvv.txt";
constexpr const char* kEsxiCapture = "esxi-h100-cx7.capture.txt";

}  // namespace

TEST_CASE("the ESXi guest with nvidia_peermem: NCCL sees PHB and does not use GDR",
          "[guest][checks][GUEST002]") {
  const Guest g = fixtures({kEsxiLspci, kEsxiCapture});
  const auto pairs = vmxkit::guest::nccl_view(g);
  REQUIRE(pairs.size() == 1);
  CHECK(vmxkit::pci::to_string(pairs[0].cls) == "PHB");
  CHECK_FALSE(pairs[0].gdr);
  CHECK(pairs[0].nic_name == "mlx5_0");
  const auto findings = vmxkit::checks::check_guest(g);
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
  const auto findings = vmxkit::checks::check_guest(g);
  CHECK(ids(findings) == std::vector<std::string>{"GUEST011"});
}

TEST_CASE("a KVM guest with root ports only gives PHB, and a downgraded GPU link is reported",
          "[guest][checks][GUEST002][GUEST006]") {
  const Guest g = fixtures({"kvm-flat.lspci-vvv.txt"});
  const auto findings = vmxkit::checks::check_guest(g);
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
  const auto findings = vmxkit::checks::check_guest(g);
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
  CHECK(find(vmxkit::checks::check_guest(ok), "GUEST001") == nullptr);
  CHECK(find(vmxkit::checks::check_guest(ok), "GUEST012", "GUEST001") == nullptr);
  const Guest old = guest_of({{"lspci", fixture(kEsxiLspci)},
                              {"lsmod", lsmod},
                              {"ver", open},
                              {"uname", "5.11.0-27-generic\n"}});
  const auto old_findings = vmxkit::checks::check_guest(old);
  const Finding* f = find(old_findings, "GUEST001");
  REQUIRE(f != nullptr);
  CHECK_THAT(f->message, Catch::Contains("kernel 5.11.0-27-generic is older than 5.12"));
  // Without the module flavour it is not checked, not passed.
  const Guest unknown =
      guest_of({{"lspci", fixture(kEsxiLspci)}, {"lsmod", lsmod}, {"uname", "6.5.0\n"}});
  const auto u = vmxkit::checks::check_guest(unknown);
  CHECK(find(u, "GUEST001") == nullptr);
  const Finding* nc = find(u, "GUEST012", "GUEST001");
  REQUIRE(nc != nullptr);
  CHECK_THAT(nc->message, Catch::Contains("/proc/driver/nvidia/version"));
}

TEST_CASE("an unassigned or small BAR1 names pciPassthru.64bitMMIOSizeGB",
          "[guest][checks][GUEST003]") {
  const Guest g = fixtures({"esxi-bar1-unassigned.lspci-vvv.txt", kEsxiCapture});
  const auto findings = vmxkit::checks::check_guest(g);
  const Finding* f = find(findings, "GUEST003");
  REQUIRE(f != nullptr);
  CHECK(f->severity == vmxkit::Severity::error);
  CHECK_THAT(f->message, Catch::Contains("unassigned"));
  CHECK_THAT(f->fix, Catch::Contains("pciPassthru.64bitMMIOSizeGB") && Catch::Contains("256"));
  CHECK(find(findings, "GUEST004") != nullptr);  // that fixture also has ATS off

  std::string small = fixture(kEsxiLspci);
  small.replace(small.find("[size=128G]"), 11, "[size=256M]");
  const auto small_findings = vmxkit::checks::check_guest(guest_of({{"small.txt", small}}));
  const Finding* sf = find(small_findings, "GUEST003");
  REQUIRE(sf != nullptr);
  CHECK_THAT(sf->message, Catch::Contains("BAR1 is 256M where this GPU has 128G"));
  CHECK(find(vmxkit::checks::check_guest(fixtures({kEsxiLspci})), "GUEST003") == nullptr);
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
  const auto findings = vmxkit::checks::check_guest(guest_of({{"acs.txt", text}}));
  const Finding* f = find(findings, "GUEST005");
  REQUIRE(f != nullptr);
  CHECK(f->subject == "0000:00:16.0");
  CHECK_THAT(f->fix, Catch::Contains("setpci -s 0000:00:16.0 ECAP_ACS+0x6.w=0000"));
  CHECK(count(findings, "GUEST005") == 1);
  CHECK(find(vmxkit::checks::check_guest(fixtures({kEsxiLspci})), "GUEST005") == nullptr);
}

TEST_CASE("a check without its input is reported as not checked, naming the input",
          "[guest][checks][GUEST012]") {
  const auto findings = vmxkit::checks::check_guest(fixtures({kEsxiLspci}));
  std::set<std::string> unchecked;
  for (const Finding& f : findings) {
    if (f.check->id == "GUEST012") unchecked.insert(f.subject);
  }
  CHECK(unchecked == std::set<std::string>{"GUEST001", "GUEST009", "GUEST010", "GUEST011"});
  const Finding* k = find(findings, "GUEST012", "GUEST001");
  REQUIRE(k != nullptr);
  CHECK_THAT(k->message, Catch::Contains("not checked (needs: `lsmod`"));
  // Capture inputs alone: the PCI checks are the ones not made.
  const auto only = vmxkit::checks::check_guest(fixtures({kEsxiCapture}));
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
  const auto findings = vmxkit::checks::check_guest(g);
  CHECK(count(findings, "GUEST002") == 1);
  CHECK(find(findings, "GUEST002", "GPU1") != nullptr);
}

TEST_CASE("nvidia_peermem of another driver version than nvidia is reported",
          "[guest][checks][GUEST014]") {
  const Guest g = guest_of({{"v",
                             "/sys/module/nvidia/version:550.54.15\n"
                             "/sys/module/nvidia_peermem/version:535.129.03\n"}});
  const auto findings = vmxkit::checks::check_guest(g);
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
    REQUIRE_NOTHROW(load_text(g, vmxkit::test::read_bytes(path), path.string()));
    g.finalize();
    const auto findings = vmxkit::checks::check_guest(g);
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

TEST_CASE("guest findings come problems first, then by check id, not-checked in check order",
          "[guest][checks][GUEST012]") {
  const auto findings = vmxkit::checks::check_guest(fixtures({"esxi-no-peermem.capture.txt"}));
  CHECK(ids(findings) ==
        std::vector<std::string>{"GUEST001", "GUEST010", "GUEST011", "GUEST012", "GUEST012"});
  std::vector<std::string> unchecked;
  for (const Finding& f : findings) {
    if (f.check->id == "GUEST012") unchecked.push_back(f.subject);
  }
  // ibv_devinfo shows mlx5_0: the RDMA NIC is there, though no lspci says so (GUEST013).
  CHECK(unchecked == std::vector<std::string>{"GUEST002", "GUEST007"});
  for (const Finding& f : findings) {
    INFO(f.message);
    CHECK(f.check->kind == vmxkit::checks::Kind::guest);
    // A finding's severity is its check's.
    CHECK(f.severity == f.check->severity);
  }
}

TEST_CASE("NCCL's view is computed once per guest and is the one GUEST002 judges",
          "[guest][checks][GUEST002]") {
  const Guest g = fixtures({"esxi-2gpu-2nic.lspci-vvv.txt"});
  const vmxkit::checks::GuestContext ctx(g);
  const auto& view = ctx.nccl_view();
  CHECK(&ctx.nccl_view() == &view);
  REQUIRE(view.size() == 2);
  const auto findings = vmxkit::checks::check_guest(ctx);
  std::set<std::string> judged;
  for (const Finding& f : findings) {
    if (f.check->id == "GUEST002") judged.insert(f.subject);
  }
  std::set<std::string> off;
  for (const auto& p : view) {
    if (!p.gdr) off.insert(ctx.describe(*p.gpu_index));
  }
  CHECK(!off.empty());
  CHECK(judged == off);
}

TEST_CASE("docs/guest-check.md lists every guest check, linking to its page in docs/rules.md",
          "[guest][checks][docs]") {
  const std::string doc =
      vmxkit::test::read_bytes(vmxkit::test::source_path("docs/guest-check.md"));
  const auto guest_checks = vmxkit::checks::checks_of(vmxkit::checks::Kind::guest);
  CHECK(guest_checks.size() == 20);
  for (const vmxkit::checks::Check* c : guest_checks) {
    INFO(c->id);
    std::string anchor = std::string(c->id) + "-" + std::string(c->name);
    std::transform(anchor.begin(), anchor.end(), anchor.begin(), [](char ch) {
      return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch;
    });
    CHECK(doc.find("| [" + std::string(c->id) + "](rules.md#" + anchor + ") | " +
                   std::string(c->name) + " |") != std::string::npos);
    // The check's documentation lives in its own file, not here.
    CHECK(doc.find("## " + std::string(c->id)) == std::string::npos);
  }
}

TEST_CASE("without a full lspci the RDMA NIC is present when ibv_devinfo shows a device",
          "[guest][checks][GUEST013]") {
  const std::string smi =
      fixture(kEsxiCapture).substr(fixture(kEsxiCapture).find("root@gpu-vm:~# nvidia-smi -q"));
  // nvidia-smi shows the GPU; ibv_devinfo finds no device: the NIC may be there without its
  // driver, so only a full lspci answers.
  const auto none = vmxkit::checks::check_guest(
      guest_of({{"smi.txt", smi}, {"ib.txt", "$ ibv_devinfo\nNo IB devices found\n"}}));
  CHECK(find(none, "GUEST013") == nullptr);
  const Finding* nc = find(none, "GUEST012", "GUEST013");
  REQUIRE(nc != nullptr);
  CHECK_THAT(nc->message,
             Catch::Contains("needs: a full `lspci -nn` (ibv_devinfo finds no device"));
  // ibv_devinfo shows mlx5_0 and nvidia-smi no GPU: the NIC question is answered.
  const auto some = vmxkit::checks::check_guest(fixtures({"esxi-no-peermem.capture.txt"}));
  CHECK(find(some, "GUEST012", "GUEST013") == nullptr);
  CHECK(find(some, "GUEST012", "GUEST007") != nullptr);
  // Neither: not checked, naming both inputs.
  const auto neither = vmxkit::checks::check_guest(guest_of({{"smi.txt", smi}}));
  const Finding* both = find(neither, "GUEST012", "GUEST013");
  REQUIRE(both != nullptr);
  CHECK_THAT(both->message, Catch::Contains("needs: a full `lspci -nn` or `ibv_devinfo`"));
}
