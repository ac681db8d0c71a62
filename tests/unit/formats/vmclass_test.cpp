// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmclass.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/load.h"

using namespace vmxkit;
using namespace vmxkit::vmclass;

namespace {

SourceFile fixture(const std::string& name) {
  const auto path = test::source_path("tests/data/vmclass/" + name);
  return SourceFile(path.string(), test::read_bytes(path));
}

std::string error_of(const std::string& text) {
  try {
    read_vmclass_yaml(SourceFile("c.yaml", text));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string_view at(const SourceFile& source, SourceSpan span) {
  return source.bytes().substr(span.begin, span.end - span.begin);
}

bool has_note(const VmClass& c, std::string_view words) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const FormNote& n) { return n.text.find(words) != std::string::npos; });
}

// A minimal class around `spec` (indented by four).
std::string with_spec(const std::string& spec) {
  return "apiVersion: vmoperator.vmware.com/v1alpha2\nkind: VirtualMachineClass\n"
         "metadata:\n  name: c\nspec:\n" +
         spec;
}

}  // namespace

TEST_CASE("a VM class file with two documents gives both classes with their configSpec",
          "[vmclass]") {
  const SourceFile source = fixture("two-classes.yaml");
  const std::vector<VmClass> classes = read_vmclass_yaml(source);
  REQUIRE(classes.size() == 2);
  CHECK(classes[0].name == "h100-80c-rdma");
  CHECK(classes[0].namespace_name == "ai-team");
  CHECK(classes[0].api_version == "vmoperator.vmware.com/v1alpha5");
  const VmConfig& good = classes[0].config;
  CHECK(good.get("pciPassthru0.vgpu") == "grid_h100-80c");
  CHECK(good.get("pciPassthru.64bitMMIOSizeGB") == "256");
  CHECK(good.get("memsize") == "131072");
  CHECK(good.memory_reservation_mb() == 131072);
  CHECK(good.memory_pinned());
  CHECK(good.firmware() == "efi");
  CHECK(good.get("numvcpus") == "16");
  // Positions point into the YAML: line and column of the value.
  const Setting* size = good.find("pciPassthru.64bitMMIOSizeGB");
  CHECK(at(source, size->value_span) == "\"256\"");
  CHECK(source.location(size->value_span.begin).line == 38);
  CHECK(source.location(size->value_span.begin).column == 17);
  const VmConfig& broken = classes[1].config;
  CHECK(classes[1].name == "h100-80c-small-mmio");
  CHECK(broken.get("pciPassthru.64bitMMIOSizeGB") == "32");
  CHECK(source.location(broken.find("pciPassthru.64bitMMIOSizeGB")->value_span.begin).line == 71);
  // The class's own keys win over VM Operator's default: nothing is added.
  CHECK(broken.find_all("pciPassthru.64bitMMIOSizeGB").size() == 1);
  CHECK(has_note(classes[1], "VM Operator gives a VM of this class the firmware"));
}

TEST_CASE("lint finds the VM class whose 64-bit MMIO window is too small, at its line",
          "[vmclass]") {
  const SourceFile source = fixture("two-classes.yaml");
  vsphere::Loaded loaded{vmxkit::formats::find("vi-json"),
                         SourceFile(source.path(), std::string(source.bytes())),
                         {},
                         {},
                         {},
                         {}};
  for (VmClass& c : read_vmclass_yaml(source)) {
    loaded.vms.push_back({c.name, {}, std::move(c.config), {}, {}, {}});
  }
  const auto ids = [&](std::size_t vm) {
    const checks::LintResult r = checks::lint_loaded_vm(source.path(), loaded, vm, {});
    std::vector<std::string> out;
    for (const Diagnostic& d : r.diagnostics) {
      INFO(d.rule_id << " " << d.message);
      if (d.severity <= Severity::warning) {
        out.push_back(std::string(d.rule_id) + "@" + std::to_string(r.location(d.begin).line));
      }
    }
    return out;
  };
  CHECK(ids(0).empty());
  CHECK(ids(1) == std::vector<std::string>{"MMIO004@71"});
}

TEST_CASE(
    "a class without configSpec takes its devices from hardware.devices, by vendor and "
    "device id, placed by vSphere",
    "[vmclass]") {
  const SourceFile source = fixture("list.yaml");
  const std::vector<VmClass> classes = read_vmclass_yaml(source);
  REQUIRE(classes.size() == 2);
  const VmClass& c = classes[0];
  CHECK(c.name == "a100-ddpio-cx7");
  CHECK(c.api_version == "vmoperator.vmware.com/v1alpha3");
  CHECK(c.config.get("pciPassthru0.allowedDevices") == "0x10de:0x20b5");
  CHECK(c.config.get("pciPassthru0.customLabel") == "a100-80g");
  // YAML 1.1 hex, as kubectl reads it.
  CHECK(c.config.get("pciPassthru1.allowedDevices") == "0x15b3:0x1021");
  CHECK(c.config.passthrough_devices().at(0).kind() == PassthroughKind::dynamic);
  CHECK(has_note(c, "(placement by vSphere)"));
  CHECK(c.config.get("numvcpus") == "32");
  CHECK(c.config.get("memsize") == "262144");
  CHECK(c.config.memory_reservation_mb() == 262144);
  CHECK(c.config.get("sched.mem.max") == "262144");
  // VM Operator adds 64-bit MMIO to a VM of a class with devices, at the first device.
  CHECK(c.config.get("pciPassthru.use64bitMMIO") == "TRUE");
  CHECK(c.config.get("pciPassthru.64bitMMIOSizeGB") == "512");
  CHECK(source.location(c.config.find("pciPassthru.64bitMMIOSizeGB")->value_span.begin).line == 26);
  CHECK(has_note(c, "added by VM Operator"));
  const VmClass& small = classes[1];
  CHECK(small.name == "best-effort-small");
  CHECK(small.config.passthrough_devices().empty());
  CHECK_FALSE(small.config.find("pciPassthru.use64bitMMIO"));
}

TEST_CASE("with a configSpec, hardware.devices is ignored and said to be", "[vmclass]") {
  const std::vector<VmClass> classes = read_vmclass_yaml(SourceFile("c.yaml", with_spec(R"(
  hardware:
    cpus: 4
    memory: 16Gi
    devices:
      vgpuDevices:
      - profileName: grid_a100-40c
  configSpec:
    _typeName: VirtualMachineConfigSpec
    numCPUs: 2
    memoryMB: 8192
)")));
  REQUIRE(classes.size() == 1);
  const VmConfig& c = classes[0].config;
  CHECK(c.passthrough_devices().empty());
  CHECK(has_note(classes[0], "hardware.devices is ignored"));
  // hardware.cpus and hardware.memory override the configSpec's.
  CHECK(c.get("numvcpus") == "4");
  CHECK(c.get("memsize") == "16384");
}

TEST_CASE("the research example class with vGPU and Dynamic DirectPath in configSpec reads",
          "[vmclass]") {
  const std::vector<VmClass> classes = read_vmclass_yaml(fixture("h100-vgpu-ddpio.yaml"));
  REQUIRE(classes.size() == 1);
  const VmConfig& c = classes[0].config;
  CHECK(c.get("pciPassthru0.vgpu") == "grid_h100-80c");
  CHECK(c.get("pciPassthru1.allowedDevices") == "0x15b3:0x1021");
  CHECK(c.get("pciPassthru1.customLabel") == "cx7");
  CHECK(c.get("pciPassthru.64bitMMIOSizeGB") == "256");
}

TEST_CASE("resource quantities convert to MB as VM Operator rounds them", "[vmclass]") {
  // A string, not a view: the classes read are gone when the lambda returns.
  const auto memory = [](const std::string& q) {
    return std::string(
        read_vmclass_yaml(SourceFile("c.yaml", with_spec("  hardware:\n    memory: " + q + "\n")))
            .at(0)
            .config.get("memsize")
            .value_or("none"));
  };
  CHECK(memory("128Gi") == "131072");
  CHECK(memory("131072Mi") == "131072");
  CHECK(memory("137438953472") == "131072");
  CHECK(memory("1.5Gi") == "1536");
  CHECK(memory("1G") == "954");  // 10^9 bytes, rounded up
  CHECK(memory("1e9") == "954");
  CHECK(memory("512Ki") == "1");
  CHECK(memory("\"2Ti\"") == "2097152");
}

TEST_CASE("a VM class that the API server or VM Operator would refuse is an error at its line",
          "[vmclass]") {
  CHECK(error_of(with_spec("  hardware:\n    cpu: 4\n")) ==
        "c.yaml:7:5: VirtualMachineClassHardware has no field \"cpu\"");
  CHECK(error_of(with_spec("  hardware:\n    memory: 12 GB\n")) ==
        "c.yaml:7:13: hardware.memory must be a quantity such as 128Gi, not \"12 GB\"");
  CHECK(error_of(with_spec("  hardware:\n    devices:\n      vgpuDevices:\n"
                           "      - profileName: grid_a100-40c\n"
                           "      - profileName: grid_a100-40c\n")) ==
        "c.yaml:10:22: vgpuDevices lists profile \"grid_a100-40c\" twice: the API server "
        "refuses it (a list keyed by profileName); list each vGPU in configSpec.deviceChange "
        "instead");
  // An unquoted TRUE is a boolean in kubectl's YAML, and a string box refuses it.
  const std::string unquoted = error_of(
      with_spec("  configSpec:\n    _typeName: VirtualMachineConfigSpec\n    extraConfig:\n"
                "    - _typeName: OptionValue\n      key: pciPassthru.use64bitMMIO\n"
                "      value: {_typeName: string, _value: TRUE}\n"));
  CHECK(unquoted.rfind("c.yaml:11:", 0) == 0);
  CHECK(unquoted.find("_value") != std::string::npos);
  CHECK(error_of(with_spec("  configSpec:\n    numCPUs: 2\n"))
            .rfind("c.yaml:7:5: a JSON object "
                   "without _typeName",
                   0) == 0);
  CHECK(error_of("apiVersion: vmoperator.vmware.com/v1\nkind: VirtualMachineClass\n")
            .rfind("c.yaml:1:13: apiVersion \"vmoperator.vmware.com/v1\": vmxkit reads", 0) == 0);
  CHECK(error_of("apiVersion: v1\nkind: VirtualMachineClass\n")
            .rfind("c.yaml:1:13: apiVersion \"v1\": vmxkit reads", 0) == 0);
  CHECK(error_of("apiVersion: v1\nkind: ConfigMap\n") ==
        "c.yaml: no VirtualMachineClass in the file (found ConfigMap)");
  CHECK(error_of("kind: [VirtualMachineClass\n") == "c.yaml:2:1: end of sequence flow not found");
  CHECK(error_of("- a\n- b\n") == "c.yaml:1:1: a YAML document must be an object, not an array");
  CHECK(error_of("apiVersion: v1\n") == "c.yaml:1:1: a Kubernetes object without kind");
}

TEST_CASE("VM class YAML is told from other documents by its kind and API group", "[vmclass]") {
  CHECK(looks_like_vmclass_yaml(
      test::read_bytes(test::source_path("tests/data/vmclass/two-classes.yaml"))));
  CHECK(
      looks_like_vmclass_yaml(test::read_bytes(test::source_path("tests/data/vmclass/list.yaml"))));
  CHECK(looks_like_vmclass_yaml(
      "{\"apiVersion\": \"vmoperator.vmware.com/v1alpha5\", \"kind\": \"VirtualMachineClass\"}"));
  CHECK_FALSE(looks_like_vmclass_yaml(
      "apiVersion: vmoperator.vmware.com/v1alpha5\nkind: VirtualMachine\n"));
  CHECK_FALSE(looks_like_vmclass_yaml("apiVersion: v1\nkind: VirtualMachineClass\n"));
  CHECK_FALSE(looks_like_vmclass_yaml("memsize = \"1024\"\n"));
  CHECK_FALSE(looks_like_vmclass_yaml(
      test::read_bytes(test::source_path("tests/data/terraform/plan-two-gpu-vms.json"))));
}
