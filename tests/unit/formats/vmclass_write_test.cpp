// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include "declared_plans.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vmclass.h"
#include "vmxkit/formats/vsphere/json.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/yaml_json.h"

using namespace vmxkit;
using namespace vmxkit::vmclass;

namespace {

constexpr const char* kOut = "tests/data/vmclass/out/";

std::string refusal_of(const std::string& vmx) {
  try {
    write_vmclass(vmx::to_vm_config(vmx::Document::parse(vmx, "plan.vmx")), {});
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

VmClass read_back(const std::string& yaml) {
  const std::vector<VmClass> classes = read_vmclass_yaml(SourceFile("class.yaml", yaml));
  REQUIRE(classes.size() == 1);
  return classes[0];
}

}  // namespace

TEST_CASE("a vGPU plan written as a VM class reads back as the same VM", "[vmclass][write]") {
  const test::DeclaredPlan p = test::vgpu_plan();
  const std::string yaml = write_vmclass(p.config, p.comments);
  test::check_declared_golden(std::string(kOut) + "vgpu.yaml", yaml);
  CHECK(yaml.find("apiVersion: vmoperator.vmware.com/v1alpha2\nkind: VirtualMachineClass\n") !=
        std::string::npos);
  CHECK(yaml.find("# GPU0: 0000:3a:00.0 (H100 PCIe) as vGPU grid_h100-80c\n") != std::string::npos);
  const VmClass back = read_back(yaml);
  CHECK(back.name == "vmxkit-gpu");
  CHECK(test::carried(back.config) == test::carried(p.config));
  CHECK(back.config.get("pciPassthru0.vgpu") == "grid_h100-80c");
  CHECK(back.config.get("pciPassthru.64bitMMIOSizeGB") == "256");
  CHECK(back.config.memory_fully_reserved());
}

TEST_CASE("a GPUDirect RDMA plan written as a VM class names its devices by vendor and device id",
          "[vmclass][write]") {
  const test::DeclaredPlan p = test::rdma_plan();
  const std::string yaml = write_vmclass(p.config, p.comments, {"h100-cx7-rdma"});
  test::check_declared_golden(std::string(kOut) + "gpu-rdma.yaml", yaml);
  CHECK(yaml.find("pciPassthru0 (host device 00000:058:00.0) is written as Dynamic DirectPath "
                  "0x10de:0x2331") != std::string::npos);
  CHECK(yaml.find("(placement by vSphere)") != std::string::npos);
  const VmClass back = read_back(yaml);
  CHECK(back.name == "h100-cx7-rdma");
  CHECK(back.config.get("pciPassthru0.allowedDevices") == "0x10de:0x2331");
  CHECK(back.config.get("pciPassthru1.allowedDevices") == "0x15b3:0x1021");
  CHECK_FALSE(back.config.find("pciPassthru0.id"));
  // Everything else the plan says comes back as it was.
  std::vector<std::string> want = test::carried(p.config);
  for (std::string& s : want) {
    if (s == "directpath id=0000:3a:00.0") s = "dynamic 4318:9009";
    if (s == "directpath id=0000:3b:00.0") s = "dynamic 5555:4129";
  }
  CHECK(test::carried(back.config) == want);
  // The values VM Operator decodes as strings are strings in YAML.
  CHECK(yaml.find("_value: \"TRUE\"") != std::string::npos);
  CHECK(yaml.find("_value: \"256\"") != std::string::npos);
  CHECK(yaml.find("memory: 262144Mi") != std::string::npos);
}

TEST_CASE("a plan without host addresses still makes a VM class, by the catalogue's ids",
          "[vmclass][write]") {
  PlanRequest r;
  r.gpus = {"h100-pcie"};
  r.nics = {"cx7"};
  const test::DeclaredPlan p = test::declared_plan(r, false);
  const VmClass back = read_back(write_vmclass(p.config, p.comments));
  CHECK(back.config.get("pciPassthru0.allowedDevices") == "0x10de:0x2331");
  CHECK(back.config.get("pciPassthru1.allowedDevices") == "0x15b3:0x1021");
}

TEST_CASE("what a VM class cannot carry is refused with the reason", "[vmclass][write]") {
  const std::string base = "memsize = \"4096\"\npciPassthru0.present = \"TRUE\"\n";
  CHECK(refusal_of(base + "pciPassthru0.id = \"00000:059:00.0\"\n") ==
        "--format vmclass: pciPassthru0 names host device \"00000:059:00.0\" without its vendor "
        "and device id: a VM class names devices by vendor and device id (vmxkit generate "
        "--host writes them)");
  CHECK(refusal_of(base + "pciPassthru0.pfId = \"00000:059:00.0\"\npciPassthru0.id = "
                          "\"00000:059:00.0\"\npciPassthru0.systemId = \"BYPASS\"\n"
                          "pciPassthru0.networkName = \"VM Network\"\n")
            .find("carries no SR-IOV network adapter") != std::string::npos);
  CHECK(refusal_of(base + "pciPassthru0.virtualDev = \"dvx\"\npciPassthru0.dvx.deviceClass = "
                          "\"com.x\"\n")
            .find("carries no DVX device") != std::string::npos);
}

TEST_CASE("a VM class's name is made a DNS-1123 name from the display name", "[vmclass][write]") {
  const VmConfig c = vmx::to_vm_config(
      vmx::Document::parse("displayName = \"GPU VM #1 (H100)\"\nmemsize = \"4096\"\n", "p.vmx"));
  CHECK(read_back(write_vmclass(c, {})).name == "gpu-vm--1--h100");
}

TEST_CASE("the configSpec of a written VM class is a ConfigSpec vmxkit's VI/JSON reader loads",
          "[vmclass][write]") {
  for (const test::DeclaredPlan& p : {test::rdma_plan(), test::vgpu_plan()}) {
    const std::string yaml = write_vmclass(p.config, p.comments);
    const std::vector<vsphere::json::Value> docs =
        yaml::parse_documents(SourceFile("c.yaml", yaml));
    REQUIRE(docs.size() == 1);
    const vsphere::json::Value* spec = docs[0].find("spec");
    REQUIRE(spec != nullptr);
    const vsphere::json::Value* config_spec = spec->find("configSpec");
    REQUIRE(config_spec != nullptr);
    // The configSpec alone, as JSON: told apart as VI/JSON and read by its reader.
    const vsphere::Loaded loaded = vsphere::load("spec.json", vsphere::json::write(*config_spec));
    CHECK(loaded.format->name == "vi-json");
    REQUIRE(loaded.vms.size() == 1);
    const VmConfig& back = loaded.vms[0].config;
    CHECK(back.get("pciPassthru.64bitMMIOSizeGB") == p.config.get("pciPassthru.64bitMMIOSizeGB"));
    CHECK(back.memory_reservation_mb() == p.config.memory_reservation_mb());
    CHECK(back.firmware() == p.config.firmware());
    CHECK(back.passthrough_devices().size() == p.config.passthrough_devices().size());
  }
}
