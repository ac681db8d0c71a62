// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <catch2/catch.hpp>

#include "declared_plans.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/terraform.h"

using namespace vmxkit;
using namespace vmxkit::terraform;

namespace {

constexpr const char* kOut = "tests/data/terraform/out/";

std::string refusal_of(const VmConfig& config) {
  try {
    write_terraform(config, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

VmConfig vmx_config(const std::string& text) {
  return vmx::to_vm_config(vmx::Document::parse(text, "plan.vmx"));
}

}  // namespace

TEST_CASE(
    "a GPUDirect RDMA plan is written as vsphere_virtual_machine arguments with its "
    "comment block",
    "[terraform][write]") {
  const test::DeclaredPlan p = test::rdma_plan();
  const std::string hcl = write_terraform(p.config, p.comments);
  test::check_declared_golden(std::string(kOut) + "gpu-rdma.tf", hcl);
  CHECK(hcl.rfind("# host: synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt\n", 0) == 0);
  CHECK(hcl.find("# GPU0 <-> NIC0: PIX (ok)\n") != std::string::npos);
  CHECK(hcl.find("resource \"vsphere_virtual_machine\" \"gpu_vm\" {\n") != std::string::npos);
  CHECK(hcl.find("  pci_device_id                    = [\"0000:3a:00.0\", \"0000:3b:00.0\"]\n") !=
        std::string::npos);
  CHECK(hcl.find("    \"pciPassthru.64bitMMIOSizeGB\" = \"256\"\n") != std::string::npos);
  CHECK(hcl.find("  memory_reservation               = 262144\n") != std::string::npos);
  CHECK(hcl.find("  memory_reservation_locked_to_max = true\n") != std::string::npos);
  CHECK(hcl.find("  firmware                         = \"efi\"\n") != std::string::npos);
  CHECK(hcl.find("host_system_id") != std::string::npos);
  // The .vmx-only keys and device fields are not arguments.
  CHECK(hcl.find("sched.mem") == std::string::npos);
  CHECK(hcl.substr(hcl.find("resource ")).find("systemId") == std::string::npos);
}

TEST_CASE("an SR-IOV VF of the plan is a network_interface block with its physical function",
          "[terraform][write]") {
  const test::DeclaredPlan p = test::rdma_plan(true);
  const std::string hcl = write_terraform(p.config, p.comments);
  test::check_declared_golden(std::string(kOut) + "gpu-sriov.tf", hcl);
  CHECK(hcl.find("  network_interface {\n") != std::string::npos);
  CHECK(hcl.find("    adapter_type      = \"sriov\"\n") != std::string::npos);
  CHECK(hcl.find("    physical_function = \"0000:3b:00.0\"\n") != std::string::npos);
  CHECK(hcl.find("    network_id        = \"<fill in: the id of the port group \\\"VM "
                 "Network\\\", data.vsphere_network.NAME.id>\"\n") != std::string::npos);
  CHECK(hcl.find("pci_device_id                    = [\"0000:3a:00.0\"]") != std::string::npos);
}

TEST_CASE(
    "a vGPU plan is written as a vsphere_virtual_machine_class, the provider's only vGPU "
    "argument",
    "[terraform][write]") {
  const test::DeclaredPlan p = test::vgpu_plan();
  const std::string hcl = write_terraform(p.config, p.comments);
  test::check_declared_golden(std::string(kOut) + "vgpu-class.tf", hcl);
  CHECK(hcl.find("resource \"vsphere_virtual_machine_class\" \"gpu_vm\" {\n") != std::string::npos);
  CHECK(hcl.find("  vgpu_devices       = [\"grid_h100-80c\"]\n") != std::string::npos);
  CHECK(hcl.find("  memory_reservation = 100\n") != std::string::npos);
  CHECK(hcl.find("# vmxkit: firmware = \"efi\" is not carried by a class") != std::string::npos);
  CHECK(hcl.find("pciPassthru.allowP2P") != std::string::npos);  // said, in a comment
  CHECK(hcl.find("extra_config") == std::string::npos);
}

TEST_CASE("what the provider cannot express is refused with the reason", "[terraform][write]") {
  const std::string base = "memsize = \"4096\"\npciPassthru0.present = \"TRUE\"\n";
  CHECK(refusal_of(vmx_config(base + "pciPassthru0.allowedDevices = \"0x10de:0x2331\"\n"))
            .find("--format terraform: the provider has no argument for Dynamic DirectPath "
                  "devices (provider issue #2352)") == 0);
  CHECK(refusal_of(vmx_config(base + "pciPassthru0.virtualDev = \"dvx\"\n"
                                     "pciPassthru0.dvx.deviceClass = \"com.x\"\n"))
            .find("no argument for DVX devices") != std::string::npos);
  CHECK(refusal_of(vmx_config(base + "pciPassthru0.vgpu = \"grid_h100-80c\"\n"
                                     "pciPassthru1.present = \"TRUE\"\n"
                                     "pciPassthru1.id = \"00000:059:00.0\"\n"))
            .find("has no vGPU argument, and its vsphere_virtual_machine_class carries no "
                  "DirectPath device") != std::string::npos);
  CHECK(refusal_of(vmx_config(base + "pciPassthru0.vgpu = \"grid_h100-80c\"\n"
                                     "pciPassthru.64bitMMIOSizeGB = \"1024\"\n"))
            .find("pciPassthru.64bitMMIOSizeGB = \"1024\" would be lost") != std::string::npos);
  CHECK(refusal_of(vmx_config(base + "pciPassthru0.vgpu = \"grid_h100-80c\"\n"
                                     "pciPassthru0.cfg.enable_uvm = \"1\"\n"))
            .find("pciPassthru0.cfg.enable_uvm = \"1\" would be lost") != std::string::npos);
  CHECK(refusal_of(vmx_config(base + "pciPassthru0.id = \"<fill in: host address>\"\n"))
            .find("expected a PCI address such as 00000:059:00.0") != std::string::npos);
  VmConfig grouped = vmx_config(base + "pciPassthru0.vgpu = \"grid_h100-80c\"\n");
  grouped.device_groups.push_back({-1, std::string("nvidia-group"), "", "", {{0, 0, {}}}, {}});
  CHECK(refusal_of(grouped).find("no argument for vSphere device groups") != std::string::npos);
}

TEST_CASE("HCL strings escape quotes, backslashes, control bytes and template sequences",
          "[terraform][write]") {
  const std::string hcl =
      write_terraform(vmx_config("memsize = \"1024\"\nguestinfo.a = \"x${y}%{z}\\ |22q|22\"\n"
                                 "guestinfo.b = \"tab|09end\"\n"),
                      {"a comment with a line\nbreak"});
  CHECK(hcl.find("    \"guestinfo.a\" = \"x$${y}%%{z}\\\\ \\\"q\\\"\"\n") != std::string::npos);
  CHECK(hcl.find("    \"guestinfo.b\" = \"tab\\tend\"\n") != std::string::npos);
  CHECK(hcl.rfind("# a comment with a line break\n", 0) == 0);
}

namespace {

// The state document tests/integration/hclcheck makes from a golden HCL file with HashiCorp's
// HCL parser (the ctest entry terraform_hcl_outputs_parse checks that it is current).
TerraformVm parsed_back(const std::string& tf) {
  const auto path = test::source_path(std::string(kOut) + tf + ".state.json");
  const TerraformJson doc = read_terraform_json(SourceFile(path.string(), test::read_bytes(path)));
  REQUIRE(doc.vms.size() == 1);
  return doc.vms[0];
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("the HCL written for a plan, parsed by HashiCorp's HCL library, reads back as the plan",
          "[terraform][write]") {
  for (const bool sriov : {false, true}) {
    const test::DeclaredPlan p = test::rdma_plan(sriov);
    const std::string tf = sriov ? "gpu-sriov.tf" : "gpu-rdma.tf";
    INFO(tf);
    // The golden is what the writer writes now, and the state document is made from it.
    CHECK(write_terraform(p.config, p.comments) ==
          test::read_bytes(test::source_path(std::string(kOut) + tf)));
    const TerraformVm back = parsed_back(tf);
    CHECK(back.address == "vsphere_virtual_machine.gpu_vm");
    // Terraform's maps are sorted by key: the extraConfig order is not kept, its content is.
    CHECK(sorted(test::carried(back.config)) == sorted(test::carried(p.config)));
  }
}

TEST_CASE("eight GPUs and their NICs are written as one pci_device_id list that HCL reads back",
          "[terraform][write]") {
  const test::DeclaredPlan p = test::eight_gpu_plan();
  const std::string hcl = write_terraform(p.config, p.comments);
  test::check_declared_golden(std::string(kOut) + "gpu8-rdma.tf", hcl);
  REQUIRE(p.config.passthrough_devices().size() == 16);
  const TerraformVm back = parsed_back("gpu8-rdma.tf");
  CHECK(back.config.passthrough_devices().size() == 16);
  CHECK(sorted(test::carried(back.config)) == sorted(test::carried(p.config)));
}

TEST_CASE("the vGPU class written for a plan reads back with its vGPU, memory and reservation",
          "[terraform][write]") {
  const test::DeclaredPlan p = test::vgpu_plan();
  const TerraformVm back = parsed_back("vgpu-class.tf");
  CHECK(back.type == ResourceType::virtual_machine_class);
  CHECK(back.config.get("pciPassthru0.vgpu") == p.config.get("pciPassthru0.vgpu"));
  CHECK(back.config.get("memsize") == "131072");
  CHECK(back.config.memory_reservation_mb() == 131072);
  // What VM Operator gives: 64-bit MMIO of 512 GB, at least the 256 GB the plan asks.
  CHECK(back.config.get("pciPassthru.64bitMMIOSizeGB") == "512");
  CHECK(p.config.get("pciPassthru.64bitMMIOSizeGB") == "256");
}
