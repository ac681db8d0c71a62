// SPDX-License-Identifier: Apache-2.0
// The public API's plan reports through its one header: the plan as `vmxkit generate
// --plan-json` writes it, and the vendor device groups of a host's QueryConfigTarget answer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;
using Catch::EndsWith;
using Catch::StartsWith;

namespace {

const vmxkit::Host& two_socket_host() {
  static const vmxkit::Host host = vmxkit::load_host(
      {vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
           .string()});
  return host;
}

vmxkit::Plan one_gpu_plan() {
  vmxkit::PlanRequest request;
  request.gpus = {"auto"};
  request.gpu_count = 1;
  request.nics = {"auto"};
  request.system_id = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";
  return vmxkit::plan(&two_socket_host(), request);
}

std::string config_target(const std::string& name) {
  return vmxkit::test::read_bytes(
      vmxkit::test::source_path("tests/data/vsphere/config-target/" + name));
}

}  // namespace

TEST_CASE("render_plan_json writes the plan's values, where it went and the run's warnings",
          "[api][plan][json]") {
  const vmxkit::Plan plan = one_gpu_plan();
  vmxkit::PlanJsonOptions options;
  options.format = "configspec-xml";
  options.path = "vm.xml";
  options.warnings = {"lspci.txt:3: a warning"};
  const std::string text = vmxkit::render_plan_json(plan, options);
  CHECK_THAT(text, StartsWith("{\n  \"schema\": 1,\n"));
  CHECK_THAT(text, EndsWith("}\n"));
  const nlohmann::json doc = nlohmann::json::parse(text);
  CHECK(doc["tool"] == "vmxkit");
  CHECK(doc["version"] == std::string(vmxkit::version()));
  CHECK(doc["output"]["format"] == "configspec-xml");
  CHECK(doc["output"]["path"] == "vm.xml");
  CHECK(doc["warnings"] == nlohmann::json::array({"lspci.txt:3: a warning"}));
  REQUIRE(doc["gpus"].size() == plan.gpus().size());
  CHECK(doc["gpus"][0]["address"] == plan.gpus()[0].address->to_string());
  CHECK(doc["gpus"][0]["label"] == plan.gpus()[0].label);
  REQUIRE(doc["pairs"].size() == plan.pairs().size());
  CHECK(doc["pairs"][0]["path"] == "PIX");
  CHECK(doc["pairs"][0]["verdict"] == "ok");
  CHECK(doc["memory_mb"] == plan.memory_mb());
  CHECK(doc["mmio"]["size_gb"] == plan.mmio().size_gb);
  CHECK(doc["p2p"] == plan.p2p());
  CHECK(doc["explanation"].size() == plan.explanation().size());

  // The defaults: a .vmx to stdout, and nothing said.
  const nlohmann::json plain = nlohmann::json::parse(vmxkit::render_plan_json(plan));
  CHECK(plain["output"]["format"] == "vmx");
  CHECK(plain["output"]["path"].is_null());
  CHECK(plain["warnings"].empty());
}

TEST_CASE("render_plan_json of a plan without a host has pairs without verdicts",
          "[api][plan][json]") {
  vmxkit::PlanRequest request;
  request.gpus = {"h100-pcie", "h100-pcie"};
  const nlohmann::json doc =
      nlohmann::json::parse(vmxkit::render_plan_json(vmxkit::plan(nullptr, request)));
  REQUIRE(doc["gpus"].size() == 2);
  CHECK(doc["gpus"][0]["address"].is_null());
  CHECK(doc["gpus"][0]["model"] == "H100 PCIe");
  for (const nlohmann::json& pair : doc["pairs"]) {
    CHECK(pair["verdict"].is_null());
    CHECK(pair["reasons"].empty());
  }
}

TEST_CASE("vendor_device_groups reads a QueryConfigTarget answer as govc and SOAP write it",
          "[api][plan][device-group]") {
  const std::vector<vmxkit::VendorDeviceGroup> govc =
      vmxkit::vendor_device_groups(config_target("govc-vm-target-info.json"), "target.json");
  REQUIRE(govc.size() == 2);
  CHECK(govc[0].name == "nvidia-h100-cx7-0");
  CHECK(govc[0].pairs_vgpu_with_nic);
  CHECK(govc[1].name == "nvidia-h100-nvlink-pair");
  CHECK_FALSE(govc[1].pairs_vgpu_with_nic);
  REQUIRE_FALSE(govc[0].components.empty());
  for (const vmxkit::VendorDeviceGroupComponent& m : govc[0].components) {
    CHECK_FALSE(m.type.empty());
    CHECK_FALSE(m.vendor_name.empty());
    CHECK_FALSE(m.device_name.empty());
  }
  CHECK(govc[0].components[0].type == "nvidiaVgpu");

  const std::vector<vmxkit::VendorDeviceGroup> soap =
      vmxkit::vendor_device_groups(config_target("queryconfigtarget-response.xml"));
  REQUIRE(soap.size() == 1);
  CHECK(soap[0].name == govc[0].name);
  CHECK(soap[0].description == govc[0].description);
  CHECK(soap[0].components.size() == govc[0].components.size());

  CHECK(vmxkit::vendor_device_groups("{\"numCpus\": 64}", "no-groups.json").empty());
  CHECK_THROWS_WITH(vmxkit::vendor_device_groups("{}", "empty.json"),
                    StartsWith("empty.json:1:1: not a ConfigTarget"));
  CHECK_THROWS_WITH(vmxkit::vendor_device_groups("{", "bad.json"), StartsWith("bad.json:1:"));
  CHECK_THROWS_WITH(vmxkit::vendor_device_groups("<nope/>"), StartsWith("ConfigTarget"));
}
