// SPDX-License-Identifier: Apache-2.0
// Hosts with more GPUs and NICs than the full matrix is printed for: each GPU's nearest peers
// (checked against classifying every pair), path_class() against classify(), the time a
// 2,000-GPU host takes, and what topo prints for one.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/topology_json.h"
#include "vmxkit/report/topology_text.h"

using vmxkit::pci::analyze;
using vmxkit::pci::PathClass;
using vmxkit::test::host_from;

namespace {

// A random `lspci -vvv -nn -D` host: up to 4 domains with one or two root buses (a host bridge
// makes bus 80 one), trees of root ports and switch ports with and without port types and ACS,
// multi-function GPUs and NICs, NUMA nodes known per root bus, per device, or not at all, and
// devices on a bus no bridge leads to (not placed).
class RandomHost {
 public:
  explicit RandomHost(unsigned seed) : rng_(seed), numa_mode_(seed % 3) {}

  std::string text() {
    out_.clear();
    const int domains = 1 + pick(4);
    for (int dom = 0; dom < domains; ++dom) {
      for (const unsigned root : {0x00U, 0x80U}) {
        if (root == 0x80 && pick(2) == 0) continue;
        // -1: none known; every third host has nodes only on a few devices, every third on all.
        const int numa = numa_mode_ == 0 ? pick(3) - 1 : numa_mode_ == 1 ? -1 : pick(2);
        if (root == 0x80) {
          out_ += fmt::format(
              "{:04x}:80:00.0 Host bridge [0600]: Intel Corporation Device [8086:09a2]\n", dom);
          if (numa >= 0) out_ += fmt::format("\tNUMA node: {}\n", numa);
          out_ += '\n';
        }
        unsigned next_bus = root + 1;
        populate(dom, root, root == 0x80 ? 1 : 0, 0, next_bus, root + 0x7d, numa);
      }
      if (pick(3) == 0) endpoint(dom, 0x7f, 0, -1);  // not placed
    }
    return out_;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void endpoint(int dom, unsigned bus, unsigned dev, int numa) {
    const int functions = pick(3) == 0 ? 1 + pick(3) : 1;
    for (int fn = 0; fn < functions; ++fn) {
      out_ += fmt::format("{:04x}:{:02x}:{:02x}.{} ", dom, bus, dev, fn);
      out_ +=
          pick(2) == 0
              ? "3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
              : "Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] "
                "[15b3:1021]\n";
      // A device's own node may differ from its root bus's.
      const int own = pick(numa_mode_ == 1 ? 40 : 6) == 0 ? pick(2) : numa;
      if (own >= 0) out_ += fmt::format("\tNUMA node: {}\n", own);
      out_ += '\n';
    }
  }

  // Devices `first`.. on `bus`, and the trees below its bridges.
  void populate(int dom, unsigned bus, int first, int depth, unsigned& next_bus, unsigned last_bus,
                int numa) {
    const int slots = first + 1 + pick(depth == 0 ? 6 : 4);
    for (int dev = first; dev < slots; ++dev) {
      if (depth < 4 && next_bus <= last_bus && pick(3) == 0) {
        const unsigned sec = next_bus++;
        populate(dom, sec, 0, depth + 1, next_bus, last_bus, numa);
        static constexpr const char* kTypes[] = {"Root Port (Slot+)", "Upstream Port",
                                                 "Downstream Port (Slot+)", nullptr};
        const char* type = kTypes[pick(4)];
        out_ += fmt::format(
            "{:04x}:{:02x}:{:02x}.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch "
            "[1000:c030]\n\tBus: primary={:02x}, secondary={:02x}, subordinate={:02x}, "
            "sec-latency=0\n",
            dom, bus, dev, bus, sec, next_bus - 1);
        if (type != nullptr) {
          out_ += fmt::format("\tCapabilities: [68] Express (v2) {}, IntMsgNum 0\n", type);
        }
        if (pick(4) == 0) {
          out_ +=
              "\tCapabilities: [f24 v1] Access Control Services\n"
              "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ "
              "EgressCtrl- DirectTrans-\n";
        }
        out_ += '\n';
      } else {
        endpoint(dom, bus, static_cast<unsigned>(dev), numa);
      }
    }
  }

  std::mt19937 rng_;
  unsigned numa_mode_;
  std::string out_;
};

// What the listing must hold: the `k` nearest of `candidates` to `device` by (class, PCI address
// order), from classifying every pair.
std::vector<std::pair<PathClass, std::size_t>> brute_force_nearest(
    const vmxkit::pci::Host& host, std::size_t device, const std::vector<std::size_t>& candidates,
    std::size_t k) {
  std::vector<std::pair<PathClass, std::size_t>> all;
  for (std::size_t p = 0; p < candidates.size(); ++p) {
    if (candidates[p] != device)
      all.emplace_back(vmxkit::pci::path_class(host, device, candidates[p]), p);
  }
  std::sort(all.begin(), all.end());
  if (all.size() > k) all.resize(k);
  return all;
}

std::vector<std::pair<PathClass, std::size_t>> listed(const std::vector<vmxkit::pci::Peer>& peers) {
  std::vector<std::pair<PathClass, std::size_t>> out;
  out.reserve(peers.size());
  for (const auto& p : peers) out.emplace_back(p.cls, p.index);
  return out;
}

}  // namespace

namespace {

// path_class() (the fast walk) against classify() (the reasoned one) for every pair of a host.
std::size_t check_path_class_agrees(const vmxkit::pci::Host& host) {
  std::size_t pairs = 0;
  const std::size_t n = host.devices().size();
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      const PathClass fast = vmxkit::pci::path_class(host, a, b);
      if (fast != vmxkit::pci::classify(host, a, b).cls) {
        FAIL_CHECK(host.describe(a)
                   << " <-> " << host.describe(b) << ": path_class " << to_string(fast)
                   << ", classify " << to_string(vmxkit::pci::classify(host, a, b).cls));
      }
      ++pairs;
    }
  }
  return pairs;
}

}  // namespace

TEST_CASE("path_class gives classify's class for every pair of the example and random hosts",
          "[pci][topology][scale]") {
  std::vector<vmxkit::pci::Host> hosts;
  for (const char* name : {"examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt",
                           "tests/data/generate/host-2s-noswitch-4gpu-2x2nic.lspci-vvv.txt",
                           "tests/data/rules/host-hgx-h100-nvswitch.txt",
                           "tests/data/rules/host-one-switch-acs-ats-geforce.txt"}) {
    hosts.push_back(host_from({{name, vmxkit::test::read_bytes(vmxkit::test::source_path(name))}}));
  }
  for (unsigned seed = 1; seed <= 40; ++seed) {
    hosts.push_back(host_from({{fmt::format("random-{}.txt", seed), RandomHost(seed).text()}}));
  }
  REQUIRE(hosts.size() > 40);
  std::size_t pairs = 0;
  for (const auto& host : hosts) pairs += check_path_class_agrees(host);
  CHECK(pairs > 10000);
}

TEST_CASE("path_class gives classify's class for every pair of the corpus hosts",
          "[pci][topology][corpus]") {
  std::size_t pairs = 0;
  for (const auto& path : vmxkit::test::corpus_captures()) {
    pairs += check_path_class_agrees(host_from(vmxkit::test::load_corpus_capture(path).inputs));
  }
  CHECK(pairs > 100);
}

TEST_CASE(
    "a large host lists each GPU's nearest NICs and GPU peers, as classifying every pair would",
    "[pci][topology][scale]") {
  unsigned large = 0;
  std::set<PathClass> seen;
  for (unsigned seed = 1; large < 30 && seed < 2000; ++seed) {
    const std::string text = RandomHost(seed).text();
    const auto host = host_from({{"random.txt", text}});
    const auto t = analyze(host, {});
    if (t.size() <= vmxkit::pci::kFullMatrixLimit) {
      CHECK(!t.listed);
      continue;
    }
    ++large;
    INFO("seed " << seed);
    REQUIRE(t.listed);
    CHECK(t.matrix.empty());
    CHECK(t.pairs.empty());
    REQUIRE(t.nearest.size() == t.gpus.size());
    REQUIRE(t.best_nic.size() == t.gpus.size());
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      const std::size_t g = t.gpus[i];
      INFO(t.label(i) << " " << host.describe(g));
      const auto nics = listed(t.nearest[i].nics);
      const auto gpus = listed(t.nearest[i].gpus);
      CHECK(nics == brute_force_nearest(host, g, t.nics, vmxkit::pci::kNearestPeers));
      CHECK(gpus == brute_force_nearest(host, g, t.gpus, vmxkit::pci::kNearestPeers));
      for (const auto& p : t.nearest[i].gpus) {
        CHECK(p.verdict == vmxkit::pci::judge_pair(host, g, t.gpus[p.index], {}).verdict);
        seen.insert(p.cls);
      }
      // The best NIC is the best of the listed ones by the full analysis's key.
      std::optional<std::tuple<vmxkit::pci::Verdict, PathClass, std::size_t, std::size_t>> best;
      for (const auto& p : t.nearest[i].nics) {
        const auto v = vmxkit::pci::judge_pair(host, g, t.nics[p.index], {});
        CHECK(p.verdict == v.verdict);
        const auto bad = static_cast<std::size_t>(std::count_if(
            v.reasons.begin(), v.reasons.end(),
            [](const vmxkit::pci::Reason& r) { return r.effect != vmxkit::pci::Verdict::ok; }));
        const auto key = std::make_tuple(v.verdict, p.cls, bad, p.index);
        if (!best || key < *best) best = key;
        seen.insert(p.cls);
      }
      CHECK(t.best_nic[i] ==
            (best ? std::optional<std::size_t>(std::get<3>(*best)) : std::nullopt));
    }
    // Forced, the same host gets the full matrix and every pair.
    vmxkit::pci::AnalysisOptions full;
    full.full_matrix = true;
    const auto f = analyze(host, full);
    CHECK(!f.listed);
    CHECK(f.matrix.size() == t.size());
    CHECK(f.pairs.size() ==
          t.gpus.size() * (t.gpus.size() - 1) / 2 + t.gpus.size() * t.nics.size());
  }
  CHECK(large == 30);
  // The random hosts reach every class the listing orders by.
  for (const PathClass c : {PathClass::pix, PathClass::pxb, PathClass::phb, PathClass::node,
                            PathClass::sys, PathClass::unknown}) {
    CHECK(seen.count(c) == 1);
  }
}

TEST_CASE("the listing orders NODE, SYS, then unknown when few NUMA nodes are known",
          "[pci][topology][scale]") {
  // 73 GPUs, each on the root bus of its own domain; NUMA nodes known for the first three only.
  std::string text;
  for (unsigned dom = 0; dom < 73; ++dom) {
    text += fmt::format(
        "{:04x}:00:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] "
        "[10de:2331]\n",
        dom);
    if (dom < 3) text += fmt::format("\tNUMA node: {}\n", dom == 2 ? 1 : 0);
    text += '\n';
  }
  const auto host = host_from({{"few-numa.txt", text}});
  const auto t = analyze(host, {});
  REQUIRE(t.listed);
  using P = std::pair<PathClass, std::size_t>;
  CHECK(listed(t.nearest[0].gpus) == std::vector<P>{{PathClass::node, 1},
                                                    {PathClass::sys, 2},
                                                    {PathClass::unknown, 3},
                                                    {PathClass::unknown, 4}});
  CHECK(listed(t.nearest[2].gpus) == std::vector<P>{{PathClass::sys, 0},
                                                    {PathClass::sys, 1},
                                                    {PathClass::unknown, 3},
                                                    {PathClass::unknown, 4}});
  CHECK(listed(t.nearest[3].gpus) == std::vector<P>{{PathClass::unknown, 0},
                                                    {PathClass::unknown, 1},
                                                    {PathClass::unknown, 2},
                                                    {PathClass::unknown, 4}});
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    CHECK(listed(t.nearest[i].gpus) ==
          brute_force_nearest(host, t.gpus[i], t.gpus, vmxkit::pci::kNearestPeers));
  }
}

TEST_CASE("a 2,000-GPU host loads and is analysed within seconds, also under sanitizers",
          "[pci][topology][scale]") {
  const std::string text = vmxkit::test::gpu_farm_text(2000);
  const auto start = std::chrono::steady_clock::now();
  const auto host = host_from({{"farm.txt", text}});
  const auto t = analyze(host, {});
  const std::string printed = vmxkit::report::render_topology_text(host, t);
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(host.devices().size() == 4000);
  CHECK(t.gpus.size() == 2000);
  REQUIRE(t.listed);
  // GPU0 (NUMA 0) meets the other NUMA 0 GPUs, each under its own host bridge, at NODE.
  REQUIRE(t.nearest[0].gpus.size() == vmxkit::pci::kNearestPeers);
  CHECK(t.nearest[0].gpus[0].index == 2);
  CHECK(t.nearest[0].gpus[0].cls == PathClass::node);
  CHECK(t.nearest[1].gpus[3].index == 9);
  CHECK(printed.size() < (std::size_t{2} << 20));  // a line per GPU, not a 2000 x 2000 matrix
  // A 2-core CI machine under ASan stays far below this; the quadratic analysis took minutes.
  CHECK(seconds < 20.0);
}

TEST_CASE("topo lists a large host's nearest peers with a note, and --matrix forces the matrix",
          "[pci][cli][topo][scale]") {
  vmxkit::test::TempDir dir;
  const std::string farm = (dir / "farm.txt").string();
  vmxkit::test::write_bytes(farm, vmxkit::test::gpu_farm_text(65));
  auto r = vmxkit::test::run_cli({"topo", farm});
  CHECK(r.code == 0);
  CHECK(r.out.rfind(
            "Note: 65 GPUs and NICs (65 GPUs, 0 NICs) are more than the 64 vmxkit prints the full "
            "matrix for: it would have 4225 cells and 2080 pair verdicts. Listed instead: each "
            "GPU's nearest 4 NICs and 4 GPU peers, closest first (vmxkit topo --matrix prints the "
            "full matrix).\n\nNearest NICs and GPU peers per GPU (path class, P2P verdict):\n\n"
            "  GPU0 (NUMA 0): NICs: none; GPUs: GPU2 (NODE, degraded), GPU4 (NODE, degraded), "
            "GPU6 (NODE, degraded), GPU8 (NODE, degraded)\n",
            0) == 0);
  CHECK(r.out.find("\n  GPU64 (NUMA 0): NICs: none; GPUs: GPU0 (NODE, degraded), ") !=
        std::string::npos);
  CHECK(r.out.find("\nLegend:\n") != std::string::npos);
  CHECK(r.out.find("\nGPU Legend:\n\n  GPU0: 0000:01:00.0 H100 PCIe\n") != std::string::npos);
  CHECK(r.out.find("P2P verdicts") == std::string::npos);
  CHECK(r.out.find("\tGPU0\tGPU1") == std::string::npos);

  r = vmxkit::test::run_cli({"topo", "--matrix", farm});
  CHECK(r.code == 0);
  CHECK(r.out.rfind("\tGPU0\tGPU1\tGPU2\t", 0) == 0);
  CHECK(r.out.find("Note: 65 GPUs") == std::string::npos);
  CHECK(r.out.find("\n  GPU0 <-> GPU64  NODE  degraded\n") != std::string::npos);

  r = vmxkit::test::run_cli({"topo", "--format", "json", farm});
  CHECK(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["matrix"].is_null());
  CHECK(j["pairs"].empty());
  CHECK(j["gpus"].size() == 65);
  CHECK(j["note"].get<std::string>().rfind("65 GPUs and NICs", 0) == 0);
  REQUIRE(j["nearest"].size() == 65);
  CHECK(j["nearest"][1]["gpu"] == "GPU1");
  CHECK(j["nearest"][1]["nics"].empty());
  CHECK(j["nearest"][1]["gpus"][0] ==
        nlohmann::json(
            {{"label", "GPU3"}, {"path", "NODE"}, {"nvlinks", nullptr}, {"verdict", "degraded"}}));

  r = vmxkit::test::run_cli({"topo", "--format", "json", "--matrix", farm});
  const auto m = nlohmann::json::parse(r.out);
  CHECK(m["matrix"].size() == 65);
  CHECK(!m.contains("nearest"));
}

TEST_CASE(
    "a large host's listing puts the GPUs nvidia-smi topo -m joins by NVLink first, most links "
    "first, then the nearest by PCIe",
    "[pci][topology][scale][nvlink][smi]") {
  // 65 H100s, each under its own root port, NUMA nodes alternating: GPU0's nearest by PCIe are
  // GPU2, GPU4, GPU6, GPU8 (NODE). The matrix joins GPU0 to GPU1 (SYS) by NV4 and to GPU64
  // (NODE) by NV12.
  const std::size_t n = 65;
  std::string smi;
  for (std::size_t i = 0; i < n; ++i) smi += fmt::format("\tGPU{}", i);
  smi += "\tCPU Affinity\n";
  auto cell = [](std::size_t i, std::size_t j) -> std::string {
    if (i == j) return " X ";
    if (std::min(i, j) == 0 && std::max(i, j) == 1) return "NV4";
    if (std::min(i, j) == 0 && std::max(i, j) == 64) return "NV12";
    return i % 2 == j % 2 ? "NODE" : "SYS";
  };
  for (std::size_t i = 0; i < n; ++i) {
    smi += fmt::format("GPU{}", i);
    for (std::size_t j = 0; j < n; ++j) smi += "\t" + cell(i, j);
    smi += "\t0\n";
  }
  const std::string farm = vmxkit::test::gpu_farm_text(65);
  const auto host = host_from({{"farm.txt", farm}, {"smi.txt", smi}});
  REQUIRE(host.smi_mismatch().empty());
  const auto t = analyze(host, {});
  REQUIRE(t.listed);
  const auto& g0 = t.nearest[0].gpus;
  REQUIRE(g0.size() == 4);
  CHECK(g0[0].index == 64);
  CHECK(g0[0].nvlinks == 12u);
  CHECK(g0[0].cls == PathClass::node);  // the PCIe class stays
  CHECK(g0[0].verdict == vmxkit::pci::Verdict::ok);
  CHECK(g0[1].index == 1);
  CHECK(g0[1].nvlinks == 4u);
  CHECK(g0[1].cls == PathClass::sys);
  CHECK(g0[1].verdict == vmxkit::pci::Verdict::ok);  // SYS over PCIe, but NVLink carries P2P
  CHECK(g0[2].index == 2);
  CHECK_FALSE(g0[2].nvlinks);
  CHECK(g0[3].index == 4);
  // GPU64 lists GPU0 first; GPU2 has no NVLink and keeps its PCIe listing.
  CHECK(t.nearest[64].gpus[0].index == 0);
  CHECK(t.nearest[64].gpus[0].nvlinks == 12u);
  CHECK(t.nearest[2].gpus[0].index == 0);
  CHECK_FALSE(t.nearest[2].gpus[0].nvlinks);
  const std::string text = vmxkit::report::render_topology_text(host, t);
  CHECK(text.find("\n  GPU0 (NUMA 0): NICs: none; GPUs: GPU64 (NV12, ok), GPU1 (NV4, ok), GPU2 "
                  "(NODE, degraded), GPU4 (NODE, degraded)\n") != std::string::npos);
  const auto j = vmxkit::report::topology_json(host, t);
  CHECK(j["nearest"][0]["gpus"][0]["nvlinks"] == 12);
  CHECK(j["nearest"][0]["gpus"][0]["path"] == "NODE");
  CHECK(j["nearest"][0]["gpus"][2]["nvlinks"].is_null());
  // The matrix covers every GPU: no NVLink note.
  CHECK(j["nvlink_notes"].empty());

  // Without the matrix, the listing is the PCIe one.
  const auto plain = analyze(host_from({{"farm.txt", farm}}), {});
  CHECK(plain.nearest[0].gpus[0].index == 2);
  CHECK_FALSE(plain.nearest[0].gpus[0].nvlinks);
}

TEST_CASE(
    "a device behind bridges missing from the input hangs from the narrowest range holding it",
    "[pci][topology]") {
  auto bridge = [](const char* bdf, unsigned sec, unsigned sub) {
    return fmt::format(
        "{} PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030]\n"
        "\tBus: primary=00, secondary={:02x}, subordinate={:02x}, sec-latency=0\n\n",
        bdf, sec, sub);
  };
  const std::string text =
      bridge("0000:00:01.0", 0x01, 0x0f) + bridge("0000:00:02.0", 0x10, 0x1f) +
      bridge("0000:01:00.0", 0x02, 0x08) +
      bridge("0000:02:00.0", 0x04, 0x06) +  // as narrow as the next one, and first
      bridge("0000:02:01.0", 0x05, 0x07) +
      bridge("0000:0c:00.0", 0x0c, 0x0d) +  // holds its own bus: never its own parent
      bridge("0001:00:01.0", 0x00, 0xff) +  // another domain
      "0000:06:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n";
  const auto host = host_from({{"missing.txt", text}});
  const auto parent_of = [&](vmxkit::Bdf bdf) {
    const auto* d = host.find(bdf);
    REQUIRE(d != nullptr);
    REQUIRE(d->parent);
    return host.at(*d->parent).bdf;
  };
  CHECK(parent_of({0, 6, 0, 0}) == vmxkit::Bdf{0, 2, 0, 0});
  CHECK(parent_of({0, 0x0c, 0, 0}) == vmxkit::Bdf{0, 0, 1, 0});
  CHECK(parent_of({0, 2, 1, 0}) == vmxkit::Bdf{0, 1, 0, 0});
  bool warned = false;
  for (const auto& w : host.warnings()) {
    warned = warned || w.to_string() ==
                           "missing.txt:22: 0000:06:00.0 is behind bridge 0000:02:00.0 but the "
                           "bridges between are not in the input; its path class may be too close";
  }
  CHECK(warned);
}

TEST_CASE("65,536 GPUs behind bridges missing from the input are placed and listed in seconds",
          "[pci][topology][scale]") {
  // One domain per GPU (lspci allows 65536): a root port for buses 01-05, the GPU on bus 03.
  std::string text;
  text.reserve(std::size_t{65536} * 330);
  for (unsigned dom = 0; dom < 65536; ++dom) {
    text += fmt::format(
        "{0:04x}:00:01.0 PCI bridge [0604]: Intel Corporation Device [8086:347a]\n"
        "\tBus: primary=00, secondary=01, subordinate=05, sec-latency=0\n"
        "\tCapabilities: [68] Express (v2) Root Port (Slot+), MSI 00\n\n"
        "{0:04x}:03:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
        "\tNUMA node: {1}\n\n",
        dom, dom % 2);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto host = host_from({{"wide.txt", text}});
  const auto t = analyze(host, {});
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(host.devices().size() == 131072);
  CHECK(host.warnings().size() == 65536);  // each GPU: the bridges between are missing
  REQUIRE(t.gpus.size() == 65536);
  CHECK(host.at(*host.at(t.gpus[65535]).parent).bdf == vmxkit::Bdf{0xffff, 0, 1, 0});
  REQUIRE(t.listed);
  CHECK(t.nearest[65535].gpus[0].index == 1);
  CHECK(t.nearest[65535].gpus[0].cls == PathClass::node);
  CHECK(seconds < 60.0);
}
