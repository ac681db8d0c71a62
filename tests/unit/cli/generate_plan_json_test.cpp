// SPDX-License-Identifier: Apache-2.0
// vmxkit generate --plan-json: the plan as a JSON document, through the command line in-process,
// field for field against the public API's Plan for the same request.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/vmxkit.h"

using nlohmann::json;
using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

const char* const kSystemId = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";

std::string example_host() {
  return vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
      .string();
}

// The comment block that heads a generated .vmx, less its title line.
std::vector<std::string> comment_block(const std::string& vmx) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < vmx.size() && vmx[at] == '#') {
    const std::size_t end = vmx.find('\n', at);
    const std::string line = vmx.substr(at, end - at);
    if (!lines.empty() || line.rfind("# ----", 0) != 0) {
      lines.push_back(line.rfind("# ", 0) == 0 ? line.substr(2) : line.substr(1));
    }
    at = end == std::string::npos ? vmx.size() : end + 1;
  }
  return lines;
}

std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// The document's members against the plan the public API makes for the same request.
void check_against(const json& doc, const vmxkit::Plan& plan) {
  CHECK(doc["schema"] == 1);
  CHECK(doc["tool"] == "vmxkit");
  CHECK(doc["version"] == std::string(vmxkit::version()));
  for (const auto& [name, devices] :
       {std::pair{"gpus", &plan.gpus()}, std::pair{"nics", &plan.nics()}}) {
    REQUIRE(doc[name].size() == devices->size());
    for (std::size_t i = 0; i < devices->size(); ++i) {
      const vmxkit::PlannedDevice& d = (*devices)[i];
      const json& j = doc[name][i];
      INFO(name << " " << d.label);
      CHECK(j["address"] == (d.address ? json(d.address->to_string()) : json(nullptr)));
      CHECK(j["vendor_id"] == fmt::format("{:04x}", d.vendor_id));
      CHECK(j["device_id"] == fmt::format("{:04x}", d.device_id));
      CHECK(j["sriov_vf"] == d.sriov_vf);
      CHECK(j["label"] == d.label);
      CHECK(j["model"] == text_or_null(d.model));
    }
  }
  REQUIRE(doc["pairs"].size() == plan.pairs().size());
  for (std::size_t i = 0; i < plan.pairs().size(); ++i) {
    const vmxkit::PlannedPair& p = plan.pairs()[i];
    const json& j = doc["pairs"][i];
    CHECK(j["gpu"] == p.gpu);
    CHECK(j["peer"] == p.peer);
    CHECK(j["peer_is_gpu"] == p.peer_is_gpu);
    CHECK(j["path"] == (p.verdict ? json(vmxkit::to_string(p.verdict->path)) : json(nullptr)));
    CHECK(j["verdict"] ==
          (p.verdict ? json(vmxkit::to_string(p.verdict->verdict)) : json(nullptr)));
    CHECK(j["reasons"].size() == (p.verdict ? p.verdict->reasons.size() : 0));
  }
  CHECK(doc["vgpu"] == (plan.vgpu() ? json(*plan.vgpu()) : json(nullptr)));
  CHECK(doc["memory_mb"] == plan.memory_mb());
  CHECK(doc["mmio"]["size_gb"] == plan.mmio().size_gb);
  CHECK(doc["mmio"]["total_bytes"] == plan.mmio().total_bytes);
  CHECK(doc["mmio"]["estimated"] == plan.mmio().estimated);
  CHECK(doc["mmio"]["bars"].size() == plan.mmio().bars.size());
  CHECK(doc["mmio"]["lines"] == json(plan.mmio().lines));
  CHECK(doc["needs_64bit_mmio"] == plan.needs_64bit_mmio());
  CHECK(doc["p2p"] == plan.p2p());
  CHECK(doc["explanation"] == json(plan.explanation()));
}

}  // namespace

TEST_CASE("generate --plan-json writes the plan the API makes, beside the .vmx",
          "[cli][generate][plan-json]") {
  vmxkit::test::TempDir dir;
  const std::string out = (dir / "vm.vmx").string();
  const std::string plan_json = (dir / "plan.json").string();
  const auto r =
      run_cli({"generate", "--host", example_host(), "--gpu", "auto", "--gpus", "2", "--nic",
               "auto", "--system-id", kSystemId, "-o", out, "--plan-json", plan_json});
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  // Both written atomically: no temporary file is left.
  CHECK(files_in(dir.path()) == std::vector<std::string>{"plan.json", "vm.vmx"});
  const std::string text = read_bytes(plan_json);
  CHECK(text.back() == '\n');
  const json doc = json::parse(text);

  vmxkit::PlanRequest request;
  request.gpus = {"auto"};
  request.gpu_count = 2;
  request.nics = {"auto"};
  request.system_id = kSystemId;
  request.host_label = example_host();
  const vmxkit::Host host = vmxkit::load_host({example_host()});
  check_against(doc, vmxkit::plan(&host, request));

  // What the host and the .vmx say, by value.
  CHECK(doc["output"] == json{{"format", "vmx"}, {"path", out}});
  CHECK(doc["gpus"][0] == json{{"address", "0000:18:00.0"},
                               {"vendor_id", "10de"},
                               {"device_id", "2331"},
                               {"sriov_vf", false},
                               {"label", "0000:18:00.0 (H100 PCIe)"},
                               {"model", "H100 PCIe"}});
  CHECK(doc["nics"][0]["address"] == "0000:19:00.0");
  CHECK(doc["nics"][1]["address"] == "0000:1b:00.0");
  CHECK(doc["pairs"][0]["gpu"] == 0);
  CHECK(doc["pairs"][0]["peer"] == 0);
  CHECK(doc["pairs"][0]["path"] == "PIX");
  CHECK(doc["pairs"][0]["verdict"] == "ok");
  CHECK(doc["vgpu"] == nullptr);
  CHECK(doc["memory_mb"] == 65536);
  CHECK(doc["mmio"]["size_gb"] == 512);
  CHECK(doc["needs_64bit_mmio"] == true);
  CHECK(doc["p2p"] == true);
  CHECK(doc["warnings"] == json::array());
  const std::string vmx = read_bytes(out);
  CHECK(vmx.find("pciPassthru.64bitMMIOSizeGB = \"512\"") != std::string::npos);
  CHECK(doc["explanation"] == json(comment_block(vmx)));
  // The .vmx is the one generate writes without --plan-json.
  const auto plain = run_cli({"generate", "--host", example_host(), "--gpu", "auto", "--gpus", "2",
                              "--nic", "auto", "--system-id", kSystemId});
  CHECK(plain.out == vmx);
}

TEST_CASE("generate --plan-json of catalogue models, a vGPU and SR-IOV VFs, the .vmx on stdout",
          "[cli][generate][plan-json]") {
  vmxkit::test::TempDir dir;
  const std::string plan_json = (dir / "plan.json").string();
  const auto r = run_cli({"generate", "--gpu", "h100-pcie", "--nic", "cx7", "--vgpu",
                          "grid_h100-80c", "--sriov", "--plan-json", plan_json});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("pciPassthru0.vgpu = \"grid_h100-80c\"") != std::string::npos);
  const json doc = json::parse(read_bytes(plan_json));
  vmxkit::PlanRequest request;
  request.gpus = {"h100-pcie"};
  request.nics = {"cx7"};
  request.vgpu = "grid_h100-80c";
  request.sriov = true;
  check_against(doc, vmxkit::plan(nullptr, request));
  CHECK(doc["output"] == json{{"format", "vmx"}, {"path", nullptr}});
  CHECK(doc["gpus"][0]["address"] == nullptr);
  CHECK(doc["vgpu"] == "grid_h100-80c");
  CHECK(doc["nics"][0]["sriov_vf"] == true);
  REQUIRE(doc["pairs"].size() == 1);
  CHECK(doc["pairs"][0]["path"] == nullptr);
  CHECK(doc["pairs"][0]["verdict"] == nullptr);
  CHECK(doc["pairs"][0]["reasons"] == json::array());
  CHECK(doc["explanation"] == json(comment_block(r.out)));
}

TEST_CASE("generate --plan-json holds the explanation that other formats print on stderr",
          "[cli][generate][plan-json]") {
  vmxkit::test::TempDir dir;
  const std::string plan_json = (dir / "plan.json").string();
  const auto r = run_cli({"generate", "--host", example_host(), "--gpu", "0000:18:00.0", "--nic",
                          "auto", "--format", "configspec-xml", "--plan-json", plan_json});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("<key>pciPassthru.64bitMMIOSizeGB</key>") != std::string::npos);
  const json doc = json::parse(read_bytes(plan_json));
  CHECK(doc["output"] == json{{"format", "configspec-xml"}, {"path", nullptr}});
  REQUIRE(doc["explanation"].size() > 3);
  for (const json& line : doc["explanation"]) {
    CHECK(r.err.find("vmxkit: " + line.get<std::string>() + "\n") != std::string::npos);
  }
}

TEST_CASE("generate --plan-json - is stdout, and only when -o takes the output",
          "[cli][generate][plan-json]") {
  vmxkit::test::TempDir dir;
  const std::string out = (dir / "vm.vmx").string();
  auto r = run_cli({"generate", "--gpu", "h100-pcie", "-o", out, "--plan-json", "-"});
  REQUIRE(r.code == 0);
  const json doc = json::parse(r.out);
  CHECK(doc["output"]["path"] == out);
  CHECK(doc["gpus"][0]["model"] == "H100 PCIe");
  CHECK(read_bytes(out).find("pciPassthru0.present = \"TRUE\"") != std::string::npos);
  for (const std::vector<std::string>& output :
       {std::vector<std::string>{}, std::vector<std::string>{"-o", "-"}}) {
    std::vector<std::string> args = {"generate", "--gpu", "h100-pcie", "--plan-json", "-"};
    args.insert(args.end(), output.begin(), output.end());
    r = run_cli(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("--plan-json -: stdout carries the plan's output") != std::string::npos);
  }
}

TEST_CASE("generate --plan-json writes nothing for -o's own file or a plan that cannot be made",
          "[cli][generate][plan-json]") {
  vmxkit::test::TempDir dir;
  const std::string out = (dir / "vm.vmx").string();
  const std::string plan_json = (dir / "plan.json").string();
  auto r = run_cli({"generate", "--gpu", "h100-pcie", "-o", out, "--plan-json", out});
  CHECK(r.code == 2);
  CHECK(r.err.find("the same file as -o") != std::string::npos);
  r = run_cli({"generate", "--host", example_host(), "--gpu", "0000:77:00.0", "-o", out,
               "--plan-json", plan_json});
  CHECK(r.code == 2);
  CHECK(r.err.find("0000:77:00.0") != std::string::npos);
  CHECK(files_in(dir.path()).empty());
}

TEST_CASE("generate says the host's loader warnings on stderr and in --plan-json",
          "[cli][generate][plan-json]") {
  vmxkit::test::TempDir dir;
  // A line lspci's library printed among the devices: skipped, with a warning.
  const std::string capture = (dir / "host.txt").string();
  write_bytes(capture, "pcilib: sysfs_read_vpd: read failed: Input/output error\n" +
                           read_bytes(example_host()));
  const std::string plan_json = (dir / "plan.json").string();
  const auto r = run_cli({"generate", "--host", capture, "--gpu", "0000:18:00.0", "--nic", "auto",
                          "--plan-json", plan_json});
  REQUIRE(r.code == 0);
  const json doc = json::parse(read_bytes(plan_json));
  const vmxkit::Host host = vmxkit::load_host({capture});
  REQUIRE(host.warnings().size() == 1);
  CHECK(host.warnings()[0].rfind(capture + ":1: skipped a tool message", 0) == 0);
  CHECK(doc["warnings"] == json(host.warnings()));
  CHECK(r.err.find("vmxkit: warning: " + host.warnings()[0] + "\n") != std::string::npos);
}
