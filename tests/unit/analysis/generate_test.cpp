// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <map>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/plan.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/checks/owner_words.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/vm_config.h"
#include "vmxkit/report/plan_explanation.h"
#include "vmxkit/report/plan_render.h"

using namespace vmxkit;

namespace {

const char* kSystemId = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";

// Each example host: its captures (`NAME.FORMAT.txt` files sharing NAME are one host, e.g. an
// `esxcli hardware pci list` capture and its `esxcli hardware memory get`).
std::vector<std::vector<std::string>> example_hosts() {
  std::map<std::string, std::vector<std::string>> by_name;
  for (const auto& e : std::filesystem::directory_iterator(test::source_path("examples/hosts"))) {
    if (e.path().extension() != ".txt") continue;
    const std::string file = e.path().filename().string();
    by_name[file.substr(0, file.find('.'))].push_back(e.path().string());
  }
  std::vector<std::vector<std::string>> hosts;
  for (auto& [name, files] : by_name) {
    std::sort(files.begin(), files.end());
    hosts.push_back(files);
  }
  return hosts;
}

std::string lint_report(const checks::LintResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) {
    out += std::string(d.rule_id) + " " + d.message + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("generated output lints clean for every template and example host", "[gen]") {
  const auto hosts = example_hosts();
  REQUIRE(!hosts.empty());
  for (const auto& files : hosts) {
    const pci::Host host = pci::load_host(files);
    struct Scenario {
      std::string name;
      generate::Request request;
    };
    std::vector<Scenario> scenarios;
    generate::Request r;
    r.system_id = kSystemId;
    r.gpus = {"auto"};
    r.gpu_count = 1;
    scenarios.push_back({"single-gpu", r});
    r.nics = {"auto"};
    scenarios.push_back({"gpudirect-rdma", r});
    r.gpu_count = 2;
    scenarios.push_back({"multi-gpu-p2p", r});
    r.gpu_count = 1;
    // A profile of the host's GPUs' board: the L40S host gets an L40S profile.
    const bool l40s = std::any_of(host.devices().begin(), host.devices().end(), [](const auto& d) {
      return d.model != nullptr && d.model->alias == "l40s";
    });
    r.vgpu = l40s ? "nvidia_l40s-48q" : "grid_h100-80c";
    r.sriov = true;
    scenarios.push_back({"vgpu-sriov", r});
    for (const Scenario& s : scenarios) {
      INFO(files.front() << " " << s.name);
      const generate::Plan plan = generate::make_plan(s.request, &host, host.catalog());
      CHECK(generate::default_template(plan) == s.name);
      const std::string text = generate::render_template(generate::load_template(s.name), plan);
      checks::LintOptions options;
      options.host = &host;
      const auto result = checks::lint("generated.vmx", text, options);
      INFO(text);
      INFO(lint_report(result));
      // A vGPU with a NIC gets P2P005's note, and nothing else: a .vmx cannot hold the device
      // group that would bind the vGPU's physical GPU to the NIC.
      std::vector<std::string_view> ids;
      for (const auto& d : result.diagnostics) ids.push_back(d.rule_id);
      if (s.name == "vgpu-sriov") {
        CHECK(ids == std::vector<std::string_view>{"P2P005"});
        CHECK(result.diagnostics.front().severity == Severity::info);
      } else {
        CHECK(ids.empty());
      }
    }
  }
}

TEST_CASE("on an ESXi host, auto takes devices ready for the use and says what else must change",
          "[gen][esxcli]") {
  // Root complex 0x00: GPUs 03/04 and NIC 05 enabled for passthrough. Root complex 0x40:
  // GPUs 43/44 and NIC 45 left with the VMkernel, for vGPU and SR-IOV.
  const std::string base = "examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-";
  const pci::Host host = pci::load_host({test::source_path(base + "pci.txt").string(),
                                         test::source_path(base + "memory.txt").string()});
  // What the capture says of each chosen device the host must ready first, and its fix.
  struct Result {
    std::string gpu, nic, esxi;
  };
  auto plan = [&](const generate::Request& r) {
    const generate::Plan p = generate::make_plan(r, &host, host.catalog());
    Result out{p.gpus.at(0).label, p.nics.at(0).label, {}};
    for (const generate::DeviceFinding& f : p.esxi_owners) {
      out.esxi += host.at(f.device).bdf.to_string() + ": " + checks::owner_message(f.finding) +
                  "\n" + checks::owner_fix(f.finding) + "\n";
    }
    return out;
  };
  generate::Request r;
  r.gpus = {"auto"};
  r.gpu_count = 1;
  r.nics = {"auto"};
  Result got = plan(r);
  CHECK(got.gpu == "0000:03:00.0 (L40S)");
  CHECK(got.nic == "0000:05:00.0 (ConnectX-7)");
  CHECK(got.esxi.empty());
  r.vgpu = "nvidia_l40s-48q";
  r.sriov = true;
  got = plan(r);
  CHECK(got.gpu == "0000:43:00.0 (L40S)");
  CHECK(got.nic == "0000:45:00.0 (ConnectX-7)");
  CHECK(got.esxi.empty());
  // Devices named by the user are taken as named, with the command that readies them.
  r.gpus = {"0000:03:00.0"};
  got = plan(r);
  CHECK(got.nic == "0000:05:00.0 (ConnectX-7)");
  CHECK(got.esxi.find("0000:03:00.0: 0000:03:00.0 (L40S) is enabled for passthrough, but vGPU") !=
        std::string::npos);
  CHECK(got.esxi.find("0000:05:00.0: 0000:05:00.0 (ConnectX-7) is enabled for passthrough, but "
                      "SR-IOV") != std::string::npos);
  r.vgpu.reset();
  r.sriov = false;
  r.gpus = {"0000:43:00.0"};
  got = plan(r);
  CHECK(got.esxi.find("0000:43:00.0: 0000:43:00.0 (L40S) is not enabled for passthrough "
                      "(Configured Owner: VMkernel)") != std::string::npos);
  CHECK(got.esxi.find("\nesxcli hardware pci pcipassthru set -d 0000:45:00.0 -e true -a") !=
        std::string::npos);
}

TEST_CASE(
    "generate picks, for each GPU of a corpus capture, a NIC of the best class "
    "nvidia-smi shows",
    "[gen][corpus]") {
  for (const auto& path : test::corpus_captures()) {
    INFO(path.filename().string());
    const test::CorpusCapture capture = test::load_corpus_capture(path);
    const pci::Host host = test::host_from(capture.inputs);
    const auto topo = pci::analyze(host, {});
    const test::Cells want = test::matrix_cells(capture.expected);
    generate::Request r;
    r.gpus = {"auto"};
    r.nics = {"auto"};
    r.allow_degraded = true;  // the captures' pairs are PXB with a 256 MiB BAR1, or NODE
    r.system_id = kSystemId;
    const generate::Plan plan = generate::make_plan(r, &host, host.catalog());
    REQUIRE(plan.gpus.size() == topo.gpus.size());
    std::map<std::string, int> rank = {{"X", 0},   {"PIX", 1},  {"PXB", 2},
                                       {"PHB", 3}, {"NODE", 4}, {"SYS", 5}};
    for (const generate::Pairing& p : plan.pairs) {
      if (p.peer_is_gpu) continue;
      const std::size_t g = p.gpu;
      const std::size_t nic_host_index = *plan.nics[p.peer].host_index;
      const auto nic_number = static_cast<std::size_t>(
          std::find(topo.nics.begin(), topo.nics.end(), nic_host_index) - topo.nics.begin());
      REQUIRE(nic_number < topo.nics.size());
      const auto& row = want.rows[g];
      int best = 99;
      for (std::size_t n = 0; n < topo.nics.size(); ++n) {
        best = std::min(best, rank.at(row[topo.gpus.size() + n]));
      }
      INFO("GPU" << g << " -> NIC" << nic_number);
      CHECK(rank.at(row[topo.gpus.size() + nic_number]) == best);
    }
  }
}

TEST_CASE("generate prefers a distinct NIC per GPU and the N best-connected GPUs", "[gen]") {
  const pci::Host host = pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
  generate::Request r;
  r.gpus = {"auto"};
  r.nics = {"auto"};
  const generate::Plan all = generate::make_plan(r, &host, host.catalog());
  CHECK(all.gpus.size() == 8);
  CHECK(all.nics.size() == 8);  // every GPU gets its own NIC under its switch
  for (const generate::Pairing& p : all.pairs) {
    if (!p.peer_is_gpu) CHECK(p.verdict->path.cls == pci::PathClass::pix);
  }
  r.gpu_count = 4;
  r.allow_degraded = true;  // four GPUs span two switches of one socket (NODE)
  const generate::Plan four = generate::make_plan(r, &host, host.catalog());
  REQUIRE(four.gpus.size() == 4);
  for (const generate::Choice& g : four.gpus) CHECK(host.at(*g.host_index).numa_node == 0);
}

TEST_CASE("a plan with DirectPath devices says which VM operations it gives up", "[gen]") {
  const pci::Host host = pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
  auto says_so = [](const generate::Plan& plan) { return plan.directpath; };
  generate::Request r;
  r.gpus = {"auto"};
  r.gpu_count = 1;
  r.nics = {"auto"};
  CHECK(says_so(generate::make_plan(r, &host, host.catalog())));
  // A vGPU with an SR-IOV VF holds no DirectPath device.
  r.vgpu = "grid_h100-80c";
  r.sriov = true;
  CHECK_FALSE(says_so(generate::make_plan(r, &host, host.catalog())));
  r.sriov = false;  // the NIC passed through is one
  CHECK(says_so(generate::make_plan(r, &host, host.catalog())));
  r.vgpu.reset();  // a GPU passed whole, alone, is one too
  r.nics.clear();
  CHECK(says_so(generate::make_plan(r, &host, host.catalog())));
}

TEST_CASE("generate refuses pairs across sockets, through the CPU, or without GPUDirect", "[gen]") {
  const pci::Host host = pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
  // The refusal is data on the plan (its pair and reason), in the words the facade throws.
  auto refusal = [](const generate::Request& request, const pci::Host& h) {
    const generate::Plan plan = generate::make_plan(request, &h, h.catalog());
    return report::plan_refusal_text(&h, plan);
  };
  generate::Request r;
  r.gpus = {"0000:18:00.0"};
  r.nics = {"0000:9e:00.0"};  // other socket
  const generate::Plan sys = generate::make_plan(r, &host, host.catalog());
  REQUIRE(sys.refusals.size() == 1);
  CHECK(sys.refusals[0].pair == 0);
  REQUIRE(sys.refusals[0].reason);
  CHECK(sys.pairs[0].verdict->reasons.at(*sys.refusals[0].reason).kind == pci::ReasonKind::path);
  CHECK_FALSE(sys.refusals[0].degraded);
  CHECK(sys.mmio.size_gb == 0);  // stopped at the pairs
  CHECK_THAT(refusal(r, host), Catch::Contains("SYS") && Catch::Contains("cannot do peer-to-peer"));
  r.nics = {"0000:3b:00.0"};  // same socket, other host bridge
  CHECK_THAT(refusal(r, host), Catch::Contains("--allow-degraded"));
  r.allow_degraded = true;
  const generate::Plan accepted = generate::make_plan(r, &host, host.catalog());
  CHECK(accepted.pairs.size() == 1);
  CHECK(accepted.refusals.empty());
  CHECK(report::plan_refusal_text(&host, accepted).empty());
  r.nics = {"0000:77:00.0"};
  CHECK_THROWS_WITH(generate::make_plan(r, &host, host.catalog()),
                    Catch::Contains("no such device"));
  r.nics = {"0000:18:00.0"};
  CHECK_THROWS_WITH(generate::make_plan(r, &host, host.catalog()),
                    Catch::Contains("not an RDMA-capable NIC"));

  const pci::Host geforce = pci::load_host(
      {test::source_path("tests/data/rules/host-one-switch-acs-ats-geforce.txt").string()});
  generate::Request g;
  g.gpus = {"0000:1a:00.0"};
  g.nics = {"auto"};
  CHECK_THAT(refusal(g, geforce), Catch::Contains("no GPUDirect"));
}

TEST_CASE("generate without a host writes placeholders that lint reports", "[gen]") {
  generate::Request r;
  r.gpus = {"h100-pcie"};
  r.nics = {"cx7"};
  const generate::Plan plan = generate::make_plan(r, nullptr, pci::Catalog::builtin());
  const std::string text =
      generate::render_template(generate::load_template("gpudirect-rdma"), plan);
  CHECK(text.find("<fill in: host address of the H100 PCIe") != std::string::npos);
  const auto result = checks::lint("generated.vmx", text, {});
  std::size_t placeholders = 0;
  for (const Diagnostic& d : result.diagnostics) {
    if (d.rule_id == "PT009") ++placeholders;
  }
  CHECK(placeholders == 4);  // two ids, two systemIds
  CHECK(result.diagnostics.size() == placeholders);
}

TEST_CASE("merging into every corpus file keeps all other lines byte-identical", "[gen][corpus]") {
  generate::Request r;
  r.gpus = {"h100-pcie"};
  r.nics = {"cx7"};
  r.system_id = kSystemId;
  const generate::Plan plan = generate::make_plan(r, nullptr, pci::Catalog::builtin());
  const generate::Template tpl = generate::load_template("gpudirect-rdma");
  // The VM-wide keys the plan sets; device entries get fresh indices after the base's own.
  const auto set_keys = [&] {
    std::vector<std::string> keys;
    const auto fragment = vmx::Document::parse(generate::render_template(tpl, plan));
    for (const vmx::Line& l : fragment.lines()) {
      const std::string_view key = fragment.key(l);
      if (l.is_entry() && !(key.starts_with("pciPassthru") && key.size() > 11 &&
                            std::isdigit(static_cast<unsigned char>(key[11])))) {
        keys.emplace_back(key);
      }
    }
    return keys;
  }();
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    INFO(path.filename().string());
    const std::string bytes = test::read_bytes(path);
    const auto base = vmx::Document::parse(bytes, path.string());
    const auto merged = vmx::Document::parse(generate::merge_into(base, tpl, plan));
    // Every original line that is not one of the keys the plan sets is still there, in order,
    // with the same bytes (line ending included).
    std::size_t next = 0;
    const auto merged_lines = merged.lines();
    for (const vmx::Line& line : base.lines()) {
      const bool plan_key = line.is_entry() && std::any_of(set_keys.begin(), set_keys.end(),
                                                           [&](const std::string& k) {
                                                             return iequals(k, base.key(line));
                                                           });
      if (plan_key) continue;
      const std::string_view want = base.bytes().substr(line.begin, line.next() - line.begin);
      bool found = false;
      while (next < merged_lines.size()) {
        const vmx::Line& m = merged_lines[next++];
        std::string_view got = merged.bytes().substr(m.begin, m.next() - m.begin);
        // The last line gains a line ending when keys are added after it.
        if (got == want ||
            (line.ending == vmx::LineEnding::none && got.substr(0, want.size()) == want)) {
          found = true;
          break;
        }
      }
      CHECK(found);
    }
    for (const std::string& k : set_keys) CHECK(merged.find(k) != nullptr);
    std::size_t present_before = 0, present_after = 0;
    for (const auto& d : vmx::to_vm_config(base).passthrough_devices()) present_before += d.present;
    for (const auto& d : vmx::to_vm_config(merged).passthrough_devices())
      present_after += d.present;
    CHECK(present_after == present_before + 2);
  }
}

TEST_CASE("an SR-IOV plan gives the ConfigSpec outputs the PF's ids and the host's systemId",
          "[gen][sriov]") {
  const pci::Host host = pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
  generate::Request r;
  r.gpus = {"auto"};
  r.gpu_count = 1;
  r.nics = {"auto"};
  r.sriov = true;
  r.system_id = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";
  generate::Plan plan = generate::make_plan(r, &host, host.catalog());
  auto pfs = generate::physical_functions(plan);
  REQUIRE(pfs.size() == 1);
  const auto pf = host.index_of(pfs[0].address);
  REQUIRE(pf);
  CHECK(pfs[0].vendor_id == host.at(*pf).vendor_id.value_or(0));
  CHECK(pfs[0].device_id == host.at(*pf).device_id.value_or(0));
  CHECK(pfs[0].vendor_id == 0x15b3);
  CHECK(pfs[0].system_id == "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f");
  // Without --system-id, the placeholder that PT009 reports.
  r.system_id.clear();
  plan = generate::make_plan(r, &host, host.catalog());
  pfs = generate::physical_functions(plan);
  REQUIRE(pfs.size() == 1);
  CHECK(pfs[0].system_id.rfind("<fill in:", 0) == 0);
}

TEST_CASE("a plan of more GPUs than topo's full matrix judges each GPU with its nearest GPUs",
          "[gen][scale]") {
  // Every GPU pair of 2,000 GPUs is 2 million pairs, each judged and explained: 29.8 s and
  // 4.3 GB. As topo lists such a host, each GPU is judged with its nearest GPUs only.
  for (const unsigned gpus : {40U, 300U}) {
    INFO(gpus << " GPUs");
    const pci::Host host = test::host_from({{"farm.txt", test::gpu_farm_text(gpus)}});
    generate::Request r;
    r.gpus = {"auto"};
    const generate::Plan plan = generate::make_plan(r, &host, host.catalog());
    REQUIRE(plan.gpus.size() == gpus);
    std::size_t gpu_pairs = 0;
    std::map<std::size_t, std::size_t> per_gpu;
    for (const generate::Pairing& p : plan.pairs) {
      if (!p.peer_is_gpu) continue;
      ++gpu_pairs;
      CHECK(p.verdict.has_value());
      ++per_gpu[p.gpu];
      ++per_gpu[p.peer];
    }
    if (gpus <= pci::kFullMatrixLimit) {
      CHECK(gpu_pairs == gpus * (gpus - 1) / 2);
      CHECK_FALSE(plan.nearest_pairs);
      continue;
    }
    CHECK(plan.nearest_pairs);
    std::string explanation;
    for (const std::string& line : report::plan_explanation(&host, plan))
      explanation += line + "\n";
    CHECK(gpu_pairs <= gpus * pci::kNearestPeers);
    CHECK(per_gpu.size() == gpus);  // every GPU is in a pair
    for (const auto& [gpu, count] : per_gpu) CHECK(count >= pci::kNearestPeers);
    CHECK_THAT(explanation, Catch::Contains(fmt::format(
                                "each GPU is judged with its nearest {} GPUs: {} of the {} pairs",
                                pci::kNearestPeers, gpu_pairs, gpus * (gpus - 1) / 2)));
    // GPU0 (NUMA node 0) and GPU2, each on its own host bridge of that node: NODE.
    const auto first = std::find_if(plan.pairs.begin(), plan.pairs.end(),
                                    [](const generate::Pairing& p) { return p.peer_is_gpu; });
    REQUIRE(first != plan.pairs.end());
    CHECK(first->gpu == 0);
    CHECK(first->peer == 2);
    CHECK(first->verdict->path.cls == pci::PathClass::node);
  }
}
