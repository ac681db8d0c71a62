// SPDX-License-Identifier: Apache-2.0
// lint on the declaration forms end to end (checks::lint, as `vmxkit lint` runs it): each VM of
// a Terraform plan or VM class file judged on its own, at its own place, with what the form
// leaves to vSphere said (FORM001) and values known only after apply never read as missing
// (FORM002).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"

using namespace vmxkit;

namespace {

struct Found {
  std::string rule;
  std::size_t line = 0;
  std::string message;
};

std::vector<Found> lint_file(const std::string& path, const std::string& bytes,
                             const pci::Host* host = nullptr) {
  checks::LintOptions options;
  options.host = host;
  const checks::LintResult r = checks::lint(path, bytes, options);
  std::vector<Found> out;
  for (const Diagnostic& d : r.diagnostics) {
    out.push_back({std::string(d.rule_id), r.location(d.begin).line, d.message});
  }
  return out;
}

std::vector<Found> lint_fixture(const std::string& name, const pci::Host* host = nullptr) {
  const auto path = test::source_path("tests/data/" + name);
  return lint_file(path.string(), test::read_bytes(path), host);
}

// "RULE@line" of the findings about `vm` at warning or above (the message starts with its name).
std::vector<std::string> problems_of(const std::vector<Found>& found, const std::string& vm) {
  std::vector<std::string> out;
  for (const Found& f : found) {
    if (f.message.rfind(vm + ": ", 0) != 0 || f.rule.rfind("FORM", 0) == 0) continue;
    out.push_back(f.rule + "@" + std::to_string(f.line));
  }
  return out;
}

std::size_t count_rule(const std::vector<Found>& found, const std::string& rule) {
  std::size_t n = 0;
  for (const Found& f : found) n += f.rule == rule ? 1 : 0;
  return n;
}

const pci::Host& synthetic_host() {
  static const pci::Host host = pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
  return host;
}

}  // namespace

TEST_CASE("lint --host on a Terraform plan reports the VM without 64-bit MMIO at its resource",
          "[terraform][lint]") {
  const auto found = lint_fixture("terraform/plan-two-gpu-vms.json", &synthetic_host());
  // The pci_device_id is a host address: the host's device there is an H100, so MMIO001 applies.
  CHECK(problems_of(found, "module.trainer.vsphere_virtual_machine.gpu_nommio[0]") ==
        std::vector<std::string>{"MMIO005@374", "PT008@387", "MMIO001@411"});
  CHECK(problems_of(found, "vsphere_virtual_machine.gpu_full").empty());
  // Which host device each pci_device_id is, said as a note of the form.
  CHECK(count_rule(found, "FORM001") >= 3);
}

TEST_CASE("without a host, a pci_device_id is not judged a GPU, and the plan still lints",
          "[terraform][lint]") {
  const auto found = lint_fixture("terraform/plan-two-gpu-vms.json");
  CHECK(problems_of(found, "module.trainer.vsphere_virtual_machine.gpu_nommio[0]") ==
        std::vector<std::string>{"PT008@387"});
  CHECK(problems_of(found, "vsphere_virtual_machine.gpu_full").empty());
}

TEST_CASE("a plan value known only after apply is said to be unknown, never missing",
          "[terraform][lint]") {
  const auto found = lint_fixture("terraform/plan-unknown.json", &synthetic_host());
  bool size_unknown = false;
  for (const Found& f : found) {
    INFO(f.rule << "@" << f.line << " " << f.message);
    // The MMIO size of gpu_full is known only after apply: no rule may call it missing.
    const bool about_full = f.message.rfind("vsphere_virtual_machine.gpu_full: ", 0) == 0;
    CHECK_FALSE((about_full && f.rule == "MMIO002"));
    if (about_full && f.rule == "FORM002" &&
        f.message.find("extra_config[\"pciPassthru.64bitMMIOSizeGB\"] is not known until apply") !=
            std::string::npos) {
      size_unknown = true;
    }
  }
  CHECK(size_unknown);
}

TEST_CASE("lint on a VM class file reports the class whose MMIO window is too small",
          "[vmclass][lint]") {
  const auto found = lint_fixture("vmclass/two-classes.yaml");
  CHECK(problems_of(found, "ai-team/h100-80c-small-mmio") ==
        std::vector<std::string>{"MMIO004@71"});
  CHECK(problems_of(found, "ai-team/h100-80c").empty());
}

TEST_CASE("a VM class's Dynamic DirectPath GPUs are known by vendor and device id and sized",
          "[vmclass][lint]") {
  // Eight H100 PCIe (10de:2331) by id, no configSpec: VM Operator adds 512 GB of 64-bit MMIO,
  // which eight 128 GB BARs do not fit in. A second class with one fits.
  std::string yaml;
  for (const auto& [name, count] : {std::pair{"eight", 8}, std::pair{"one", 1}}) {
    yaml += std::string("---\napiVersion: vmoperator.vmware.com/v1alpha5\n") +
            "kind: VirtualMachineClass\nmetadata:\n  name: " + name +
            "\n  namespace: ai\nspec:\n  hardware:\n    cpus: 64\n    memory: 512Gi\n"
            "    devices:\n      dynamicDirectPathIODevices:\n";
    for (int i = 0; i < count; ++i) yaml += "      - {vendorID: 0x10de, deviceID: 0x2331}\n";
  }
  const auto found = lint_file("classes.yaml", yaml);
  std::vector<std::string> eight;
  for (const std::string& p : problems_of(found, "ai/eight")) {
    if (p.rfind("MMIO", 0) == 0) eight.push_back(p);
  }
  CHECK(eight == std::vector<std::string>{"MMIO004@13"});
  for (const std::string& p : problems_of(found, "ai/one")) CHECK(p.rfind("MMIO", 0) != 0);
  // The firmware is the VM's, not the class's: not judged (FORM002), not read as BIOS.
  bool firmware_unknown = false;
  for (const Found& f : found) {
    firmware_unknown |=
        f.rule == "FORM002" && f.message.rfind("ai/eight: MMIO005 not judged", 0) == 0;
  }
  CHECK(firmware_unknown);
  // What VM Operator adds is said, not silently assumed.
  bool defaults = false;
  for (const Found& f : found) {
    defaults |= f.rule == "FORM001" && f.message.find("64bitMMIOSizeGB") != std::string::npos;
  }
  CHECK(defaults);
}
