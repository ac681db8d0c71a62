// SPDX-License-Identifier: Apache-2.0
// Path classes, every verdict reason, the best NIC, the 8-GPU/8-NIC example and a 4,096-device
// tree.
#include "vmxkit/analysis/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/mmio.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/report/topology_text.h"

using vmxkit::Bdf;
using vmxkit::pci::PathClass;
using vmxkit::pci::ReasonKind;
using vmxkit::pci::Verdict;
using vmxkit::test::host_from;
using vmxkit::test::socket;

namespace {

bool has_reason(const vmxkit::pci::PairVerdict& v, ReasonKind kind) {
  for (const auto& r : v.reasons) {
    if (r.kind == kind) return true;
  }
  return false;
}

vmxkit::pci::PairVerdict judge(const vmxkit::pci::Host& host, Bdf a, Bdf b,
                               vmxkit::pci::AnalysisOptions options = {}) {
  return vmxkit::pci::judge_pair(host, *host.index_of(a), *host.index_of(b), options);
}

}  // namespace

TEST_CASE("one switch is PIX and ok, host bridges of one node are NODE, sockets are SYS",
          "[pci][topology]") {
  const auto host = host_from({{"h.txt", socket(0x10, 0, {"gpu", "nic"}) +
                                             socket(0x30, 0, {"nic"}) + socket(0x90, 1, {"nic"})}});
  const Bdf gpu{0, 0x13, 0, 0};
  auto v = judge(host, gpu, Bdf{0, 0x14, 0, 0});
  CHECK(v.path.cls == PathClass::pix);
  CHECK(v.verdict == Verdict::ok);
  CHECK(v.path.bridges.size() == 3);  // DSP, USP, DSP
  v = judge(host, gpu, Bdf{0, 0x33, 0, 0});
  CHECK(v.path.cls == PathClass::node);
  CHECK(v.verdict == Verdict::degraded);
  v = judge(host, gpu, Bdf{0, 0x93, 0, 0});
  CHECK(v.path.cls == PathClass::sys);
  CHECK(v.verdict == Verdict::unsupported);
  const auto topo = vmxkit::pci::analyze(host, {});
  REQUIRE(topo.best_nic.size() == 1);
  CHECK(topo.nics[*topo.best_nic[0]] == *host.index_of(Bdf{0, 0x14, 0, 0}));
}

namespace {

// A Broadcom PEX switch of two levels, as lspci -vvv -nn shows one: the top (upstream port
// 11:00.0, subsystem `top_sub`) with two downstream ports, each leading to a second-level switch
// (upstream ports 13:00.0 and 16:00.0, subsystem `second_sub`); a GPU under one, a NIC under
// the other.
std::string two_level_switch(const char* device, const char* top_sub, const char* second_sub) {
  std::string out;
  auto bridge = [&](const char* bdf, unsigned primary, unsigned sec, unsigned sub, const char* type,
                    const char* subsys) {
    out += fmt::format(
        "0000:{} PCI bridge [0604]: Broadcom / LSI PEX Switch [1000:{}]\n"
        "\tBus: primary={:02x}, secondary={:02x}, subordinate={:02x}, sec-latency=0\n"
        "\tNUMA node: 0\n\tCapabilities: [68] Express (v2) {}, IntMsgNum 0\n"
        "\tCapabilities: [a4] Subsystem: Broadcom / LSI Device [{}]\n\n",
        bdf, device, primary, sec, sub, type, subsys);
  };
  bridge("10:01.0", 0x10, 0x11, 0x18, "Root Port (Slot+)", "1000:0000");
  bridge("11:00.0", 0x11, 0x12, 0x18, "Upstream Port", top_sub);
  bridge("12:00.0", 0x12, 0x13, 0x15, "Downstream Port (Slot-)", top_sub);
  bridge("12:01.0", 0x12, 0x16, 0x18, "Downstream Port (Slot-)", top_sub);
  bridge("13:00.0", 0x13, 0x14, 0x15, "Upstream Port", second_sub);
  bridge("14:00.0", 0x14, 0x15, 0x15, "Downstream Port (Slot+)", second_sub);
  bridge("16:00.0", 0x16, 0x17, 0x18, "Upstream Port", second_sub);
  bridge("17:00.0", 0x17, 0x18, 0x18, "Downstream Port (Slot+)", second_sub);
  out +=
      "0000:15:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
      "\tNUMA node: 0\n\n"
      "0000:18:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family "
      "[ConnectX-7] [15b3:1021]\n\tNUMA node: 0\n\n";
  return out;
}

}  // namespace

TEST_CASE("a Broadcom PEX switch's two levels are PXB, and NCCL's PIX is said as NCCL merges them",
          "[pci][topology]") {
  const Bdf gpu{0, 0x15, 0, 0}, nic{0, 0x18, 0, 0};
  const auto says_pix = [&](const std::string& text) {
    const auto host = host_from({{"bcm.txt", text}});
    const auto v = judge(host, gpu, nic);
    CHECK(v.path.cls == PathClass::pxb);  // nvidia-smi's class: the tree as it is
    CHECK(v.verdict == Verdict::ok);
    REQUIRE_FALSE(v.reasons.empty());
    CHECK(v.reasons.front().kind == ReasonKind::path);
    return v.reasons.front().bcm_flattened;
  };
  // Gen 5: the top's subsystem 1000:0xxx, the second level's 1000:1xxx (topo.cc, getBcmGen).
  CHECK(says_pix(two_level_switch("c030", "1000:0000", "1000:1000")));
  // Gen 4: subsystem 1000:axxx on both levels.
  CHECK(says_pix(two_level_switch("c010", "1000:a064", "1000:a064")));
  // Two Gen 5 switches that are both tops, a level-1 switch above a level-0 one, other
  // vendors' subsystems: two switches for NCCL too.
  CHECK_FALSE(says_pix(two_level_switch("c030", "1000:0000", "1000:0000")));
  CHECK_FALSE(says_pix(two_level_switch("c030", "1000:1000", "1000:1000")));
  CHECK_FALSE(says_pix(two_level_switch("c030", "1000:0000", "15d9:1000")));
  CHECK_FALSE(says_pix(two_level_switch("c010", "1000:b064", "1000:b064")));
}

TEST_CASE("an lspci -vvv read from sysfs without NUMA lines puts every device on one node",
          "[pci][topology][numa]") {
  // The example host without its `NUMA node:` lines: what lspci prints on a one-node kernel.
  const std::string example = vmxkit::test::read_bytes(
      vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt"));
  std::string text;
  for (const std::string_view line : vmxkit::LineRange(example)) {
    if (line.find("NUMA node:") == std::string_view::npos) text += std::string(line) + "\n";
  }
  const auto host = host_from({{"one-node.txt", text}});
  CHECK(host.numa().single_node_inferred);
  const auto topo = vmxkit::pci::analyze(host, {});
  // GPU0 and GPU2 sit under two host bridges: NODE, as nvidia-smi prints it, not `?`.
  CHECK(topo.matrix[0][2] == PathClass::node);
  const std::string rendered = vmxkit::report::render_topology_text(host, topo);
  CHECK(rendered.find("one-node.txt has no `NUMA node:` line") != std::string::npos);
  CHECK(rendered.find("  ?    =") == std::string::npos);
  // A config-space dump (no driver or IOMMU lines either) says nothing about NUMA.
  std::string dump;
  for (const std::string_view line : vmxkit::LineRange(text)) {
    if (line.find("Kernel driver in use:") == std::string_view::npos &&
        line.find("IOMMU group:") == std::string_view::npos) {
      dump += std::string(line) + "\n";
    }
  }
  const auto from_dump = host_from({{"dump.txt", dump}});
  CHECK_FALSE(from_dump.numa().single_node_inferred);
  CHECK(vmxkit::pci::analyze(from_dump, {}).matrix[0][2] == PathClass::unknown);
}

TEST_CASE("GPU P2P through the CPU is what NCCL uses between 2 GPUs on AMD", "[pci][topology]") {
  // Two sockets of AMD host bridges, a GPU behind a root port of each.
  auto socket_text = [](int bus, int node, std::string_view vendor) {
    return fmt::format(
        "0000:{0:02x}:00.0 Host bridge [0600]: {2} Device [{3}:1480]\n\tNUMA node: {1}\n\n"
        "0000:{0:02x}:01.1 PCI bridge [0604]: {2} Device [{3}:1483]\n"
        "\tBus: primary={0:02x}, secondary={4:02x}, subordinate={4:02x}, sec-latency=0\n"
        "\tNUMA node: {1}\n"
        "\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00\n\n"
        "0000:{4:02x}:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] "
        "[10de:2331]\n\tNUMA node: {1}\n\n",
        bus, node, vendor, vendor == "Advanced Micro Devices, Inc. [AMD]" ? "1022" : "8086",
        bus + 1);
  };
  const std::string amd = "Advanced Micro Devices, Inc. [AMD]";
  const auto host = host_from({{"amd.txt", socket_text(0x00, 0, amd) + socket_text(0x80, 1, amd)}});
  REQUIRE(vmxkit::pci::cpu_vendor(host) == vmxkit::pci::CpuVendor::amd);
  const std::size_t a = *host.index_of(Bdf{0, 0x01, 0, 0});
  const std::size_t b = *host.index_of(Bdf{0, 0x81, 0, 0});
  auto v = vmxkit::pci::judge_pair(host, a, b, {});
  CHECK(v.path.cls == PathClass::sys);
  CHECK(v.verdict == Verdict::degraded);
  CHECK(v.reasons.front().amd_two_gpus == vmxkit::pci::AmdTwoGpus::used);
  // Three GPUs in NCCL's view: its level is PXB again, and SYS is not supported.
  vmxkit::pci::AnalysisOptions three;
  three.nccl_gpus = 3;
  const auto v3 = vmxkit::pci::judge_pair(host, a, b, three);
  CHECK(v3.verdict == Verdict::unsupported);
  // ...and the verdict says that a VM of these 2 GPUs gets P2P (what lint judges for such a VM).
  const auto says_two = [](const auto& verdict) {
    return std::any_of(verdict.reasons.begin(), verdict.reasons.end(), [](const auto& r) {
      return r.amd_two_gpus == vmxkit::pci::AmdTwoGpus::own_vm;
    });
  };
  CHECK(says_two(v3));
  // The same tree on Intel: PXB.
  const std::string intel = "Intel Corporation";
  const auto ih =
      host_from({{"intel.txt", socket_text(0x00, 0, intel) + socket_text(0x80, 1, intel)}});
  const auto vi = vmxkit::pci::judge_pair(ih, *ih.index_of(Bdf{0, 0x01, 0, 0}),
                                          *ih.index_of(Bdf{0, 0x81, 0, 0}), {});
  CHECK(vi.verdict == Verdict::unsupported);
  CHECK_FALSE(says_two(vi));
}

TEST_CASE("two devices on root ports of one host bridge are PHB", "[pci][topology]") {
  const std::string text =
      "0000:00:01.0 PCI bridge [0604]: Intel Corporation Device [8086:347a]\n"
      "\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n"
      "\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n\n"
      "0000:00:02.0 PCI bridge [0604]: Intel Corporation Device [8086:347b]\n"
      "\tBus: primary=00, secondary=02, subordinate=02, sec-latency=0\n"
      "\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n\n"
      "0000:01:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:2331]\n\n"
      "0000:02:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:2331]\n";
  const auto host = host_from({{"phb.txt", text}});
  const auto v = judge(host, Bdf{0, 1, 0, 0}, Bdf{0, 2, 0, 0});
  CHECK(v.path.cls == PathClass::phb);
  CHECK(v.verdict == Verdict::degraded);
  CHECK(v.path.bridges.size() == 2);
}

TEST_CASE("cascaded switches are PXB, an unknown NUMA node leaves NODE/SYS unknown",
          "[pci][topology]") {
  const std::string tree =
      "-+-[0000:00]---01.0-[01-06]----00.0-[02-06]--+-00.0-[03]----00.0  Mellanox Technologies "
      "MT2910 Family [ConnectX-7]\n"
      " |                                           "
      "\\-01.0-[04-06]----00.0-[05-06]----00.0-[06]----00.0  NVIDIA Corporation GH100 [H100 PCIe]\n"
      " \\-[0000:80]---01.0-[81]----00.0  NVIDIA Corporation GH100 [H100 PCIe]\n";
  const auto host = host_from({{"t.txt", tree}});
  auto v = judge(host, Bdf{0, 6, 0, 0}, Bdf{0, 3, 0, 0});
  CHECK(v.path.cls == PathClass::pxb);
  CHECK(v.path.switches == 2);
  CHECK(v.verdict == Verdict::ok);
  v = judge(host, Bdf{0, 6, 0, 0}, Bdf{0, 0x81, 0, 0});
  CHECK(v.path.cls == PathClass::unknown);
  CHECK(has_reason(v, ReasonKind::path_unknown));
  CHECK(v.verdict == Verdict::degraded);
  const auto text = vmxkit::report::render_topology_text(host, vmxkit::pci::analyze(host, {}));
  CHECK(text.find("  ?    = NODE or SYS") != std::string::npos);
}

TEST_CASE("each verdict reason fires on its own", "[pci][topology][verdict]") {
  SECTION("ACS redirect on a downstream port degrades") {
    const auto host = host_from({{"acs.txt", socket(0x10, 0, {"gpu", "nic"}, true)}});
    const auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(v.path.cls == PathClass::pix);
    CHECK(v.path.acs_redirect.size() == 2);
    CHECK(has_reason(v, ReasonKind::acs_redirect));
    CHECK(v.verdict == Verdict::degraded);
  }
  SECTION("ACS redirect with DirectTrans+ and ATS on the NIC is NVIDIA's VM configuration") {
    // DirectTrans+ on the ports that redirect: the NIC's translated requests go peer to peer.
    auto direct = [](std::string text) {
      for (std::size_t at = 0; (at = text.find("ReqRedir+", at)) != std::string::npos;) {
        const std::size_t d = text.find("DirectTrans-", at);
        text.replace(d, 12, "DirectTrans+");
        at = d;
      }
      return text;
    };
    auto host = host_from({{"dt.txt", direct(socket(0x10, 0, {"gpu", "nic"}, true))}});
    auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(v.path.acs_redirect.size() == 2);
    CHECK(has_reason(v, ReasonKind::acs_direct_translated));
    CHECK_FALSE(has_reason(v, ReasonKind::acs_redirect));
    CHECK(v.verdict == Verdict::ok);
    CHECK(vmxkit::pci::acs_redirect_bypassed(host, *host.index_of(Bdf{0, 0x13, 0, 0}),
                                             *host.index_of(Bdf{0, 0x14, 0, 0}), v.path));
    // ATS off on the NIC: its requests are untranslated, and redirected.
    host = host_from({{"dt.txt", direct(socket(0x10, 0, {"gpu", "nic-ats-off"}, true))}});
    v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(has_reason(v, ReasonKind::acs_redirect));
    CHECK(has_reason(v, ReasonKind::ats_disabled));
    CHECK(v.verdict == Verdict::degraded);
    // Two GPUs whose capture shows no ATS: redirected.
    host = host_from({{"dt.txt", direct(socket(0x10, 0, {"gpu", "gpu"}, true))}});
    v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(has_reason(v, ReasonKind::acs_redirect));
    CHECK(v.verdict == Verdict::degraded);
    // Without DirectTrans+ the NIC's ATS alone does not help.
    host = host_from({{"acs.txt", socket(0x10, 0, {"gpu", "nic"}, true)}});
    v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK_FALSE(vmxkit::pci::acs_redirect_bypassed(host, *host.index_of(Bdf{0, 0x13, 0, 0}),
                                                   *host.index_of(Bdf{0, 0x14, 0, 0}), v.path));
  }
  SECTION("a GeForce GPU is unsupported") {
    const auto host = host_from({{"g.txt", socket(0x10, 0, {"gpu-geforce", "nic"})}});
    const auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(has_reason(v, ReasonKind::gpu_no_gdr));
    CHECK(v.verdict == Verdict::unsupported);
  }
  SECTION("a 256 MiB BAR1 degrades") {
    const auto host = host_from({{"b.txt", socket(0x10, 0, {"gpu-small-bar", "nic"})}});
    const auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(has_reason(v, ReasonKind::small_bar1));
    CHECK(v.verdict == Verdict::degraded);
  }
  SECTION("ATS off on the NIC degrades") {
    const auto host = host_from({{"a.txt", socket(0x10, 0, {"gpu", "nic-ats-off"})}});
    const auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0});
    CHECK(has_reason(v, ReasonKind::ats_disabled));
    CHECK(v.verdict == Verdict::degraded);
  }
  SECTION("a translating IOMMU degrades") {
    const auto host = host_from({{"i.txt", socket(0x10, 0, {"gpu", "nic"})}});
    vmxkit::pci::AnalysisOptions o;
    o.iommu_translating = true;
    const auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0}, o);
    CHECK(has_reason(v, ReasonKind::iommu_translating));
    CHECK(v.verdict == Verdict::degraded);
    CHECK(judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 0}).verdict == Verdict::ok);
  }
  SECTION("a VF is named as such and shares its PF's path") {
    const std::string vf =
        socket(0x10, 0, {"gpu", "nic"}) +
        "0000:14:00.1 Infiniband controller [0207]: Mellanox Technologies ConnectX Family "
        "mlx5Gen Virtual Function [15b3:101e]\n";
    const auto host = host_from({{"vf.txt", vf}});
    const auto v = judge(host, Bdf{0, 0x13, 0, 0}, Bdf{0, 0x14, 0, 1});
    CHECK(has_reason(v, ReasonKind::vf));
    CHECK(v.path.cls == PathClass::pix);
    CHECK(v.verdict == Verdict::ok);
  }
}

TEST_CASE("the constructed 8-GPU/8-NIC two-socket host gives PIX, NODE and SYS",
          "[pci][topology]") {
  const auto host = vmxkit::pci::load_host(
      {vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
           .string()});
  const auto topo = vmxkit::pci::analyze(host, {});
  REQUIRE(topo.gpus.size() == 8);
  REQUIRE(topo.nics.size() == 8);
  CHECK(host.warnings().empty());
  const auto cells = vmxkit::test::matrix_cells(vmxkit::report::render_topology_text(host, topo));
  REQUIRE(cells.rows.size() == 16);
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 16; ++j) {
      // Devices 0-1 of each kind sit on switch 0, 2-3 on switch 1 (node 0), 4-7 likewise on node 1.
      const std::size_t si = (i % 8) / 2;
      const std::size_t sj = (j % 8) / 2;
      const std::string want = i == j ? "X" : si == sj ? "PIX" : si / 2 == sj / 2 ? "NODE" : "SYS";
      INFO(cells.labels[i] << " " << cells.labels[j]);
      CHECK(cells.rows[i][j] == want);
    }
  }
  for (std::size_t g = 0; g < 8; ++g) CHECK(topo.best_nic[g] == g / 2 * 2);
}

TEST_CASE("64bitMMIOSizeGB packs BARs from the capture, the catalogue or KB 323402",
          "[pci][mmio]") {
  using vmxkit::pci::size_64bit_mmio;
  const auto& catalog = vmxkit::pci::Catalog::builtin();
  // H100 PCIe: BAR1 unknown in the catalogue -> KB rule 2 x 80 -> 256 per GPU.
  auto r = size_64bit_mmio(catalog, {{0x10de, 0x2331}});
  CHECK(r.size_gb == 256);
  CHECK(r.kb_gb == 256u);
  CHECK(r.bars.empty());  // no BAR size invented
  CHECK(r.estimated);
  // H100 SXM: BAR1 128G + BAR3 32M -> 128.03 GiB -> 256, as the KB says.
  r = size_64bit_mmio(catalog, {{0x10de, 0x2330}});
  CHECK(r.total_bytes == (std::uint64_t{128} << 30) + (std::uint64_t{32} << 20));
  CHECK(r.size_gb == 256);
  CHECK(r.kb_gb == 256u);
  // Two RTX 6000 Ada + a CX7: 2 x (64G + 32M) + 32M -> 256; KB says 2 x 96 -> 256.
  r = size_64bit_mmio(catalog, {{0x10de, 0x26b1}, {0x10de, 0x26b1}, {0x15b3, 0x1021}});
  CHECK(r.size_gb == 256);
  CHECK(r.kb_gb == 256u);
  CHECK(r.bars.size() == 5);
  CHECK(r.bars[0].offset == 0);
  CHECK(r.bars[1].offset == std::uint64_t{64} << 30);
  // Unknown id: reported, not counted.
  r = size_64bit_mmio(catalog, {{0x1234, 0x5678}});
  REQUIRE(r.unknown.size() == 1);
  // From a capture: sizes from lspci, 32-bit BARs listed apart.
  const auto host = vmxkit::pci::load_host(
      {vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
           .string()});
  r = size_64bit_mmio(host, {Bdf{0, 0x18, 0, 0}, Bdf{0, 0x1a, 0, 0}, Bdf{0, 0x19, 0, 0}});
  CHECK(r.total_bytes ==
        2 * ((std::uint64_t{128} << 30) + (std::uint64_t{32} << 20)) + (std::uint64_t{32} << 20));
  CHECK(r.size_gb == 512);
  CHECK(r.below_4g.size() == 2);
  CHECK(r.bars[0].source.rfind("lspci ", 0) == 0);
  CHECK(r.kb_gb == 512u);
  CHECK_THROWS_WITH(size_64bit_mmio(host, {Bdf{0, 0x77, 0, 0}}),
                    "no device 0000:77:00.0 on the host");
}

TEST_CASE("64bitMMIOSizeGB arithmetic never wraps: a size that does not fit is an error, not 0",
          "[pci][mmio]") {
  using vmxkit::pci::MmioDevice;
  using vmxkit::pci::size_64bit_mmio;
  vmxkit::pci::CatalogEntry gpu;
  gpu.vendor_id = 0x10de;
  gpu.device_id = 0x9999;
  gpu.model = "Big";
  gpu.role = vmxkit::pci::Role::gpu;
  // KB 323402: 2 x 16384 GB (the largest framebuffer a catalogue may give) -> 32768.
  gpu.framebuffer_gb = vmxkit::pci::kMaxFramebufferGb;
  auto r = size_64bit_mmio({MmioDevice{nullptr, &gpu, "big"}});
  CHECK(r.kb_gb == 32768u);
  CHECK(r.size_gb == 32768u);
  // A framebuffer built past the catalogue's check: 2 x 3,000,000,000 GB -> 2^33 does not fit
  // (it used to come out as 0).
  gpu.framebuffer_gb = 3000000000U;
  CHECK_THROWS_WITH(size_64bit_mmio({MmioDevice{nullptr, &gpu, "big"}}),
                    Catch::Contains("more than 64bitMMIOSizeGB can hold"));
  // BARs: 512 of 2^52 bytes need 2^31 GiB, the largest power of two that fits; 513 do not.
  gpu.framebuffer_gb.reset();
  gpu.bar1_bytes = vmxkit::pci::kMaxBarBytes;
  std::vector<MmioDevice> devices(512, MmioDevice{nullptr, &gpu, "big"});
  r = size_64bit_mmio(devices);
  CHECK(r.size_gb == 2147483648U);
  CHECK(r.total_bytes == std::uint64_t{1} << 61);
  devices.push_back(devices.front());
  CHECK_THROWS_WITH(size_64bit_mmio(devices), Catch::Contains("the BARs need 4294967296 GB"));
  // 4096 of them add up to 2^64 bytes: the packing itself would wrap.
  devices.resize(4096, devices.front());
  CHECK_THROWS_WITH(size_64bit_mmio(devices), "64-bit MMIO: the BARs add up to more than 2^64");
  // A vGPU profile's framebuffer is bounded like a catalogue's.
  CHECK(vmxkit::pci::vgpu_framebuffer_gb("grid_a100-16384c") == 16384u);
  CHECK(!vmxkit::pci::vgpu_framebuffer_gb("grid_a100-4000000000c"));
}

TEST_CASE("a vGPU in a VM of 32 GB or more is sized as its physical GPU, at least 64 GB",
          "[pci][mmio][vgpu]") {
  using vmxkit::pci::Catalog;
  using vmxkit::pci::size_64bit_mmio;
  using vmxkit::pci::vgpu_mmio;
  using vmxkit::pci::vgpu_physical_models;
  const Catalog& catalog = Catalog::builtin();
  auto aliases = [&](std::string_view profile) {
    std::vector<std::string> out;
    for (const auto* e : vgpu_physical_models(catalog, profile)) out.push_back(e->alias);
    std::sort(out.begin(), out.end());
    return out;
  };
  // `a10` is not the board of `a100-*`; a variant letter (`a100d`, `l40s`) keeps the board.
  CHECK(aliases("nvidia_a10-24q") == std::vector<std::string>{"a10"});
  CHECK(aliases("grid_a10-24q").empty());  // ESXi names it nvidia_a10-24q
  // NVIDIA's table gives A100D types to A100 PCIe 80GB and A100X (10de:20b8).
  CHECK(aliases("grid_a100d-80c") == (std::vector<std::string>{"a100-80g", "a100x"}));
  CHECK(aliases("grid_a100dx-80c") == std::vector<std::string>{"a100-sxm4-80g"});
  CHECK(aliases("nvidia_l40s-48q") == std::vector<std::string>{"l40s"});
  CHECK(aliases("grid_zz9-8q").empty());
  CHECK(aliases("not-a-profile").empty());

  // Below 32 GB of memory: the profile's framebuffer (KB 323402: 2 x 4 GB, within the 16 GB
  // that needs no 64-bit window).
  auto small = vgpu_mmio("grid_a100-4c", 32767, catalog, nullptr);
  CHECK(small.min_gb == 0);
  CHECK(size_64bit_mmio({small.device}).size_gb == 8);
  // From 32768 MB: the A100 board's least demanding model, and NVIDIA's 64 GB floor.
  auto large = vgpu_mmio("grid_a100-4c", 32768, catalog, nullptr);
  CHECK(large.min_gb == 64);
  CHECK(large.owned == nullptr);
  REQUIRE(large.device.model != nullptr);
  auto r = size_64bit_mmio({large.device});
  vmxkit::pci::apply_minimum(r, large.min_gb, large.why);
  CHECK(r.size_gb == 128);
  // A board the catalogue does not know: the 64 GB floor alone.
  auto unknown = vgpu_mmio("grid_zz9-4c", 65536, catalog, nullptr);
  r = size_64bit_mmio({unknown.device});
  CHECK(r.size_gb == 8);
  vmxkit::pci::apply_minimum(r, unknown.min_gb, unknown.why);
  CHECK(r.size_gb == 64);
  REQUIRE(r.steps.size() >= 2);
  CHECK(r.steps.back().kind == vmxkit::pci::MmioStepKind::minimum);
  CHECK(r.steps.back().gb == 64);
  CHECK(r.steps[r.steps.size() - 2].kind == vmxkit::pci::MmioStepKind::minimum_reason);
  CHECK(r.steps[r.steps.size() - 2].text == unknown.why);
}

TEST_CASE("a 4,096-device tree loads and classifies in well under a second", "[pci][scale]") {
  const std::string text = vmxkit::test::scale_host_text(4096);
  // For measuring the command line on the same input: VMXKIT_SCALE_OUT=FILE writes it out.
  if (const char* out = std::getenv("VMXKIT_SCALE_OUT")) vmxkit::test::write_bytes(out, text);
  const auto start = std::chrono::steady_clock::now();
  const auto host = host_from({{"scale.txt", text}});
  vmxkit::pci::AnalysisOptions full;
  full.full_matrix = true;
  const auto topo = vmxkit::pci::analyze(host, full);
  // 128 GPUs and NICs: above kFullMatrixLimit, so by default each GPU's nearest peers.
  const auto listed = vmxkit::pci::analyze(host, {});
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  CHECK(host.devices().size() == 4096);
  CHECK(host.warnings().empty());
  CHECK(topo.gpus.size() == 64);
  CHECK(topo.nics.size() == 64);
  REQUIRE(!topo.listed);
  CHECK(topo.matrix[0][1] == PathClass::pix);
  REQUIRE(listed.listed);
  CHECK(listed.matrix.empty());
  REQUIRE(!listed.nearest[0].gpus.empty());
  CHECK(listed.nearest[0].gpus[0].index == 1);
  CHECK(listed.nearest[0].gpus[0].cls == PathClass::pix);
  CHECK(ms.count() < 5000);
}
