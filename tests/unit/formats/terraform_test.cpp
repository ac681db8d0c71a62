// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/terraform.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/model/host.h"

using namespace vmxkit;
using namespace vmxkit::terraform;

namespace {

SourceFile fixture(const std::string& name) {
  const auto path = test::source_path("tests/data/terraform/" + name);
  return SourceFile(path.string(), test::read_bytes(path));
}

const TerraformVm& vm_at(const TerraformJson& doc, std::string_view address) {
  for (const TerraformVm& vm : doc.vms) {
    if (vm.address == address) return vm;
  }
  FAIL("no VM " << address);
  throw std::logic_error("unreachable");
}

std::string error_of(const std::string& text, const std::string& path = "plan.json") {
  try {
    read_terraform_json(SourceFile(path, text));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The text a span of `source` covers.
std::string_view at(const SourceFile& source, SourceSpan span) {
  return source.bytes().substr(span.begin, span.end - span.begin);
}

bool has_unknown(const TerraformVm& vm, std::string_view attribute) {
  return std::any_of(vm.unknown.begin(), vm.unknown.end(),
                     [&](const UnknownValue& u) { return u.attribute == attribute; });
}

}  // namespace

TEST_CASE("a plan with two GPU VMs gives both, named by resource address, child module included",
          "[terraform]") {
  const SourceFile source = fixture("plan-two-gpu-vms.json");
  const TerraformJson doc = read_terraform_json(source);
  CHECK(doc.kind == DocumentKind::plan);
  CHECK(doc.format_version == "1.2");
  CHECK(doc.terraform_version == "1.9.8");
  REQUIRE(doc.vms.size() == 2);
  CHECK(doc.vms[0].address == "module.trainer.vsphere_virtual_machine.gpu_nommio[0]");
  CHECK(doc.vms[1].address == "vsphere_virtual_machine.gpu_full");
  CHECK(doc.vms[1].actions == std::vector<std::string>{"create"});
  CHECK(doc.vms[1].provider == "registry.terraform.io/vmware/vsphere");
  CHECK(doc.vms[1].type == ResourceType::virtual_machine);
  CHECK(doc.vms[1].unknown.empty());
}

TEST_CASE("the complete Terraform VM has its devices, 64-bit MMIO, reservation and firmware",
          "[terraform]") {
  const SourceFile source = fixture("plan-two-gpu-vms.json");
  const TerraformJson doc = read_terraform_json(source);
  const VmConfig& c = vm_at(doc, "vsphere_virtual_machine.gpu_full").config;
  CHECK(c.get("pciPassthru0.id") == "00000:058:00.0");
  CHECK(c.get("pciPassthru1.id") == "00000:059:00.0");
  // The data source read the same host and id: the provider sends that vendor id.
  CHECK(c.get("pciPassthru0.vendorId") == "0x10de");
  CHECK_FALSE(c.get("pciPassthru0.deviceId"));
  CHECK_FALSE(c.get("pciPassthru1.vendorId"));
  // The SR-IOV adapter as ESXi writes a VF: PF id, 0/0/BYPASS, the port group's key.
  CHECK(c.get("pciPassthru2.pfId") == "00000:061:00.0");
  CHECK(c.get("pciPassthru2.systemId") == "BYPASS");
  CHECK(c.get("pciPassthru2.dvs.portgroupId") == "dvportgroup-78");
  CHECK(c.get("pciPassthru.use64bitMMIO") == "TRUE");
  CHECK(c.get("pciPassthru.64bitMMIOSizeGB") == "256");
  CHECK(c.get("memsize") == "262144");
  CHECK(c.memory_reservation_mb() == 262144);
  CHECK(c.memory_pinned());
  CHECK(c.firmware() == "efi");
  CHECK(c.get("numvcpus") == "32");
  CHECK(c.get("cpuid.coresPerSocket") == "16");
  CHECK(c.get("displayName") == "gpu-full-01");
  // Spans point at the values in the document.
  CHECK(at(source, c.find("pciPassthru.64bitMMIOSizeGB")->value_span) == "\"256\"");
  CHECK(at(source, c.find("pciPassthru.64bitMMIOSizeGB")->key_span) ==
        "\"pciPassthru.64bitMMIOSizeGB\"");
  CHECK(at(source, c.find("pciPassthru0.id")->value_span) == "\"0000:3a:00.0\"");
}

TEST_CASE("the Terraform VM without 64-bit MMIO reads without it, with BIOS and no reservation",
          "[terraform]") {
  const SourceFile source = fixture("plan-two-gpu-vms.json");
  const TerraformJson doc = read_terraform_json(source);
  const TerraformVm& vm = vm_at(doc, "module.trainer.vsphere_virtual_machine.gpu_nommio[0]");
  const VmConfig& c = vm.config;
  CHECK(c.get("pciPassthru0.id") == "00000:157:00.0");
  CHECK_FALSE(c.find("pciPassthru.use64bitMMIO"));
  CHECK_FALSE(c.find("pciPassthru.64bitMMIOSizeGB"));
  CHECK(c.get("pciPassthru.allowP2P") == "TRUE");
  CHECK(c.firmware() == "bios");
  CHECK(c.memory_reservation_mb() == 0);
  CHECK_FALSE(c.memory_fully_reserved());
  CHECK(vm.unknown.empty());
  // The place of the resource change in the file: its line.
  CHECK(source.location(vm.whole.begin).line > 1);
  CHECK(at(source, vm.whole)
            .find("\"address\": \"module.trainer.vsphere_virtual_machine."
                  "gpu_nommio[0]\"") != std::string_view::npos);
}

TEST_CASE("Terraform 1.0.0's plan format 0.1 reads as the same VMs as format 1.2", "[terraform]") {
  const TerraformJson now = read_terraform_json(fixture("plan-two-gpu-vms.json"));
  const TerraformJson old = read_terraform_json(fixture("plan-two-gpu-vms.tf1.0.0.json"));
  CHECK(old.format_version == "0.1");
  REQUIRE(old.vms.size() == now.vms.size());
  for (std::size_t i = 0; i < old.vms.size(); ++i) {
    CHECK(old.vms[i].address == now.vms[i].address);
    REQUIRE(old.vms[i].config.settings.size() == now.vms[i].config.settings.size());
    for (std::size_t s = 0; s < old.vms[i].config.settings.size(); ++s) {
      CHECK(old.vms[i].config.settings[s].key == now.vms[i].config.settings[s].key);
      CHECK(old.vms[i].config.settings[s].value == now.vms[i].config.settings[s].value);
    }
  }
}

TEST_CASE("a Terraform state gives its VMs from values, data sources left out", "[terraform]") {
  const SourceFile source = fixture("state-one-vm.json");
  const TerraformJson doc = read_terraform_json(source);
  CHECK(doc.kind == DocumentKind::state);
  CHECK(doc.format_version == "1.0");
  REQUIRE(doc.vms.size() == 1);
  CHECK(doc.vms[0].address == "vsphere_virtual_machine.gpu_full");
  CHECK(doc.vms[0].actions.empty());
  CHECK(doc.vms[0].config.get("pciPassthru0.vendorId") == "0x10de");
  CHECK(doc.vms[0].config.get("pciPassthru.64bitMMIOSizeGB") == "256");
}

TEST_CASE(
    "a plan's vsphere_virtual_machine_class gives its vGPU, reservation and VM Operator's "
    "MMIO default",
    "[terraform]") {
  const SourceFile source = fixture("plan-vm-class.json");
  const TerraformJson doc = read_terraform_json(source);
  REQUIRE(doc.vms.size() == 1);
  const TerraformVm& vm = doc.vms[0];
  CHECK(vm.type == ResourceType::virtual_machine_class);
  CHECK(vm.address == "vsphere_virtual_machine_class.h100");
  CHECK(vm.config.get("pciPassthru0.vgpu") == "grid_h100-80c");
  CHECK(vm.config.get("numvcpus") == "16");
  CHECK(vm.config.get("memsize") == "131072");
  // memory_reservation = 100 is a percentage.
  CHECK(vm.config.memory_reservation_mb() == 131072);
  CHECK(vm.config.get("pciPassthru.use64bitMMIO") == "TRUE");
  CHECK(vm.config.get("pciPassthru.64bitMMIOSizeGB") == "512");
  CHECK(at(source, vm.config.find("pciPassthru.64bitMMIOSizeGB")->value_span) ==
        "\"grid_h100-80c\"");
  CHECK_FALSE(vm.config.firmware());
  CHECK(std::any_of(vm.notes.begin(), vm.notes.end(), [](const FormNote& n) {
    return n.text.find("VM Operator") != std::string::npos &&
           n.text.find("64bitMMIOSizeGB") != std::string::npos;
  }));
}

TEST_CASE("values known only after apply are said to be unknown, never read as absent",
          "[terraform]") {
  const SourceFile source = fixture("plan-unknown.json");
  const TerraformJson doc = read_terraform_json(source);
  // The destroyed and the deposed VM give none.
  REQUIRE(doc.vms.size() == 2);
  const TerraformVm& full = vm_at(doc, "vsphere_virtual_machine.gpu_full");
  CHECK(full.config.get("pciPassthru0.id") == "00000:058:00.0");
  // The unknown device is not in the model; the next device (the SR-IOV VF) takes its number.
  CHECK(full.config.get("pciPassthru1.pfId") == "00000:061:00.0");
  CHECK_FALSE(full.config.find("pciPassthru2.present"));
  CHECK(has_unknown(full, "pci_device_id[1]"));
  CHECK(has_unknown(full, "extra_config[\"pciPassthru.64bitMMIOSizeGB\"]"));
  CHECK_FALSE(full.config.find("pciPassthru.64bitMMIOSizeGB"));
  for (const UnknownValue& u : full.unknown) {
    if (u.attribute == "pci_device_id[1]")
      CHECK(u.keys == std::vector<std::string>{"pciPassthru*"});
    if (u.attribute.rfind("extra_config", 0) == 0) {
      CHECK(u.keys == std::vector<std::string>{"pciPassthru.64bitMMIOSizeGB"});
      CHECK(at(source, u.where) == "true");
    }
  }
  CHECK(full.sensitive == std::vector<std::string>{"guestinfo.token"});

  const TerraformVm& replaced = vm_at(doc, "module.trainer.vsphere_virtual_machine.gpu_nommio[0]");
  CHECK(replaced.actions == std::vector<std::string>{"delete", "create"});
  CHECK(has_unknown(replaced, "extra_config"));
  CHECK(has_unknown(replaced, "firmware"));
  // An unknown firmware is not the schema's default "bios".
  CHECK_FALSE(replaced.config.firmware());
  for (const UnknownValue& u : replaced.unknown) {
    if (u.attribute == "extra_config") CHECK(u.keys == std::vector<std::string>{"*"});
  }
}

TEST_CASE("malformed Terraform JSON is an error with file, line and column", "[terraform]") {
  CHECK(error_of("{\"format_version\": \"1.2\",\n  \"resource_changes\": [") ==
        "plan.json:2:24: unexpected end of document: expected a value");
  CHECK(
      error_of("{\"format_version\": \"2.0\"}")
          .find("plan.json:1:20: format_version \"2.0\": vmxkit reads the format versions 0.x and "
                "1.x") == 0);
  CHECK(error_of("{\"VirtualMachines\": []}")
            .find("plan.json:1:1: a JSON object without "
                  "format_version") == 0);
  CHECK(error_of("[1]").find("plan.json:1:1: a `terraform show -json` document must be an "
                             "object") == 0);
  CHECK(error_of("{\"format_version\": \"1.2\", \"resource_changes\": [{\"address\": \"a\", "
                 "\"mode\": \"managed\", \"type\": \"vsphere_virtual_machine\", \"change\": "
                 "{\"after\": {\"extra_config\": {\"k\": 5}}}}]}") ==
        "plan.json:1:162: extra_config[\"k\"] must be a string, not the number 5");
  CHECK(error_of("{\"format_version\": \"1.2\", \"resource_changes\": {}}")
            .find("plan.json:1:47: resource_changes must be an array, not an object") == 0);
}

TEST_CASE("a pci_device_id the provider cannot find on the host gets a note", "[terraform]") {
  const std::string text =
      R"({"format_version": "1.0", "values": {"root_module": {"resources": [
  {"address": "vsphere_virtual_machine.a", "mode": "managed", "type": "vsphere_virtual_machine",
   "values": {"pci_device_id": ["0000:3A:00.0", "3b:00.0", "host-gpu"], "memory": 1024}}]}}})";
  const SourceFile source("state.json", text);
  const TerraformJson doc = read_terraform_json(source);
  REQUIRE(doc.vms.size() == 1);
  const TerraformVm& vm = doc.vms[0];
  CHECK(vm.config.get("pciPassthru0.id") == "00000:058:00.0");
  CHECK(vm.config.get("pciPassthru1.id") == "00000:059:00.0");
  CHECK(vm.config.get("pciPassthru2.id") == "host-gpu");  // kept for the rules to point at
  REQUIRE(vm.notes.size() == 2);
  CHECK(vm.notes[0].text.find("\"0000:3A:00.0\": the provider compares it with the host's "
                              "HostPciDevice.id (0000:3a:00.0)") != std::string::npos);
  CHECK(source.location(vm.notes[1].where.begin).line == 3);
  // Absent attributes take the schema's defaults: firmware bios, reservation 0.
  CHECK(vm.config.firmware() == "bios");
  CHECK(vm.config.memory_reservation_mb() == 0);
}

TEST_CASE("the provider sends the reservation lock only with a reservation equal to memory",
          "[terraform]") {
  const auto read_vm = [](const std::string& values) {
    const std::string text =
        R"({"format_version": "1.0", "values": {"root_module": {"resources": [{"address": "a",
         "mode": "managed", "type": "vsphere_virtual_machine", "values": )" +
        values + "}]}}}";
    return read_terraform_json(SourceFile("s.json", text)).vms.at(0);
  };
  const TerraformVm equal = read_vm(
      R"({"memory": 4096, "memory_reservation": 4096, "memory_reservation_locked_to_max": true})");
  CHECK(equal.config.get("sched.mem.pin") == "TRUE");
  const TerraformVm less = read_vm(
      R"({"memory": 4096, "memory_reservation": 2048, "memory_reservation_locked_to_max": true})");
  CHECK(less.config.get("sched.mem.pin") == "FALSE");
  REQUIRE(less.notes.size() == 1);
  CHECK(less.notes[0].text.find("is sent as false") != std::string::npos);
  const TerraformVm unlocked = read_vm(
      R"({"memory": 4096, "memory_reservation": 4096, "memory_reservation_locked_to_max": false})");
  CHECK_FALSE(unlocked.config.find("sched.mem.pin"));
}

TEST_CASE("terraform show -json output is told from other JSON by its top-level members",
          "[terraform]") {
  CHECK(looks_like_terraform_json(
      test::read_bytes(test::source_path("tests/data/terraform/plan-two-gpu-vms.json"))));
  CHECK(looks_like_terraform_json(
      test::read_bytes(test::source_path("tests/data/terraform/state-one-vm.json"))));
  CHECK(looks_like_terraform_json("\xEF\xBB\xBF {\"values\": {}, \"format_version\": \"1.0\"}"));
  CHECK_FALSE(looks_like_terraform_json("{\"format_version\": \"1.0\"}"));
  CHECK_FALSE(looks_like_terraform_json(
      "{\"_typeName\": \"VirtualMachineConfigSpec\", \"x\": {\"format_version\": 1, "
      "\"values\": 2}}"));
  CHECK_FALSE(looks_like_terraform_json(
      test::read_bytes(test::source_path("tests/data/vsphere/plan.vi.json"))));
  CHECK_FALSE(looks_like_terraform_json("memsize = \"1024\"\n"));
  CHECK_FALSE(looks_like_terraform_json("{\"format_version"));
}

TEST_CASE(
    "lint with the host finds the Terraform VM without 64-bit MMIO at its resource and "
    "passes the other",
    "[terraform]") {
  const SourceFile source = fixture("plan-two-gpu-vms.json");
  const pci::Host host = pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
  vsphere::Loaded loaded{vmxkit::formats::find("vi-json"),
                         SourceFile(source.path(), std::string(source.bytes())),
                         {},
                         {},
                         {},
                         {}};
  std::vector<std::vector<FormNote>> notes;
  for (TerraformVm& vm : read_terraform_json(source).vms) {
    add_host_ids(vm, host);
    notes.push_back(vm.notes);
    loaded.vms.push_back({vm.address, {}, std::move(vm.config), {}, {}, {}});
  }
  REQUIRE(loaded.vms.size() == 2);
  checks::LintOptions options;
  options.host = &host;
  const auto findings = [&](std::size_t vm) {
    const checks::LintResult r = checks::lint_loaded_vm(source.path(), loaded, vm, options);
    std::vector<std::string> out;
    for (const Diagnostic& d : r.diagnostics) {
      const Location l = r.location(d.begin);
      out.push_back(std::string(d.rule_id) + "@" + std::to_string(l.line) + ":" +
                    std::to_string(l.column));
    }
    return out;
  };
  // gpu_nommio[0]: its firmware, its reservation, and the 64-bit MMIO its H100 needs (at the
  // pci_device_id element that names the H100).
  CHECK(findings(0) ==
        std::vector<std::string>{"MMIO005@374:23", "PT008@387:33", "MMIO001@411:13"});
  CHECK(loaded.vms[0].config.get("pciPassthru0.deviceId") == "0x2331");
  CHECK(notes[0].back().text ==
        "pciPassthru0 is host device 0000:9d:00.0 (10de:2331 NVIDIA Corporation GH100 [H100 "
        "PCIe]), as the host capture gives it");
  CHECK(findings(1).empty());
}
