// SPDX-License-Identifier: Apache-2.0
// generate's words for its pairs: each judged pair's verdict, reasons and fixes, the pairs it
// could not judge, and the refusal of a plan that cannot do peer-to-peer DMA.
#include "vmxkit/report/plan_explanation.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/plan.h"
#include "vmxkit/analysis/readiness.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vsphere/configspec.h"

using namespace vmxkit;

namespace {

pci::Host example_host() {
  return pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
}

}  // namespace

TEST_CASE("a plan's pairs are explained from their verdicts, each fix under its reason",
          "[report][gen]") {
  const pci::Host host = example_host();
  generate::Request r;
  r.gpus = {"0000:18:00.0"};
  r.nics = {"0000:3b:00.0"};  // same socket, other host bridge: NODE
  r.allow_degraded = true;
  const generate::Plan plan = generate::make_plan(r, &host, host.catalog());
  const std::vector<std::string> lines = report::plan_pair_lines(&host, plan);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "GPU0 <-> NIC0: NODE (degraded)");
  CHECK(lines[1].rfind("  - NODE: host bridges ", 0) == 0);
  CHECK(lines[1].find("; GPUDirect RDMA goes through the CPU") != std::string::npos);
  CHECK(lines[2] == "    fix: place both devices under one PCIe switch");
  // The whole block puts them after the devices chosen.
  const std::vector<std::string> block = report::plan_explanation(&host, plan);
  REQUIRE(block.size() > 6);
  CHECK(block[2] == "NIC0: " + plan.nics[0].label);
  CHECK(std::vector<std::string>(block.begin() + 3, block.begin() + 6) == lines);
}

TEST_CASE("a plan without a host says its pairs were not checked, and a refusal names each pair",
          "[report][gen]") {
  generate::Request r;
  r.gpus = {"h100-pcie"};
  r.nics = {"cx7"};
  const generate::Plan plan = generate::make_plan(r, nullptr, pci::Catalog::builtin());
  CHECK(report::plan_pair_lines(nullptr, plan) ==
        std::vector<std::string>{"GPU0 <-> NIC0: path not checked (no host capture)"});
  CHECK(report::plan_refusal_text(nullptr, plan).empty());

  const pci::Host host = example_host();
  r.gpus = {"0000:18:00.0"};
  r.nics = {"0000:3b:00.0"};
  const generate::Plan refused = generate::make_plan(r, &host, host.catalog());
  REQUIRE(refused.refusals.size() == 1);
  CHECK(refused.refusals[0].degraded);
  const std::string text = report::plan_refusal_text(&host, refused);
  CHECK(text.rfind("this configuration cannot do peer-to-peer DMA:\n  GPU0 <-> NIC0: NODE: ", 0) ==
        0);
  CHECK(text.ends_with(" (pass --allow-degraded to accept it)"));
  // A refused reason's fix is the refusal's to give, not the explanation's.
  const std::vector<std::string> lines = report::plan_pair_lines(&host, refused);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].rfind("  - NODE: ", 0) == 0);
}

namespace {

// A plan of facts alone, as make_plan() leaves them: one GPU and one NIC from the catalogue,
// no pairs, a 128 GB window.
generate::Plan facts_plan() {
  generate::Plan plan;
  generate::Choice gpu;
  gpu.label = "H100 PCIe (10de:2331)";
  plan.gpus.push_back(gpu);
  generate::Choice nic;
  nic.role = generate::DeviceRole::nic;
  nic.label = "ConnectX-7 (15b3:1021)";
  plan.nics.push_back(nic);
  plan.memory_mb = 65536;
  plan.mmio.size_gb = 128;
  plan.mmio.steps = {{pci::MmioStepKind::minimum_reason, 0, 0, 0, "step one"},
                     {pci::MmioStepKind::result, 0, 0, 128, {}}};
  plan.needs_64bit_mmio = true;
  plan.system_id = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";
  return plan;
}

pci::OwnerFinding finding(pci::OwnerProblem problem, pci::PassthroughUse use, const char* bdf,
                          std::string model) {
  pci::OwnerFinding f;
  f.problem = problem;
  f.use = use;
  f.bdf = *vmxkit::parse_bdf(bdf);
  f.model = std::move(model);
  return f;
}

}  // namespace

TEST_CASE("the plan's comment block is worded from its facts, line by line", "[report][gen]") {
  generate::Plan plan = facts_plan();
  CHECK(report::plan_explanation(nullptr, plan) ==
        std::vector<std::string>{
            "no host capture: devices from the catalogue; host addresses are placeholders to fill "
            "in",
            "GPU0: H100 PCIe (10de:2331)", "NIC0: ConnectX-7 (15b3:1021)",
            "64-bit MMIO window: 128 GB", "  step one", "  => pciPassthru.64bitMMIOSizeGB = 128",
            "memory: 65536 MB, all reserved (passthrough DMA needs it)"});

  plan.needs_64bit_mmio = false;
  plan.mmio.size_gb = 16;
  plan.mmio.steps.clear();
  plan.memory_default = true;
  plan.directpath = true;
  plan.system_id.clear();
  const std::vector<std::string> block = report::plan_explanation(nullptr, plan);
  CHECK(std::vector<std::string>(block.begin() + 3, block.end()) ==
        std::vector<std::string>{
            "64-bit MMIO window: 16 GB (not needed: BARs fit in 16 GiB)",
            "memory: 65536 MB (default; set --memory-mb), all reserved (passthrough DMA needs it)",
            "DirectPath I/O: this VM cannot be suspended, migrated with vMotion, or snapshotted "
            "while it holds the devices (vSphere VM administration, PCI devices)",
            "systemId: not given (--system-id); fill in the host's system UUID: `esxcli system "
            "uuid get` on the host, or the device's systemId in "
            "QueryConfigTarget().pciPassthrough"});
}

TEST_CASE(
    "the comment block names the host, vGPUs, SR-IOV VFs, a large host's pairs and ESXi's "
    "findings",
    "[report][gen]") {
  const pci::Host host = example_host();
  generate::Plan plan = facts_plan();
  plan.host_label = "h.txt";
  plan.vgpu = "grid_h100-80c";
  plan.nics[0].sriov_vf = true;
  plan.not_ready.push_back({0, finding(pci::OwnerProblem::incapable, pci::PassthroughUse::full,
                                       "0000:43:00.0", "L40S")});
  plan.esxi_owners.push_back(
      {1, finding(pci::OwnerProblem::not_vmkernel, pci::PassthroughUse::sriov_pf, "0000:45:00.0",
                  "ConnectX-7")});
  plan.nearest_pairs = true;
  for (int i = 0; i < 70; ++i) plan.gpus.push_back(plan.gpus[0]);
  plan.pairs.push_back({0, 1, true, {}});
  plan.pairs.push_back({0, 2, true, {}});
  plan.refusals.push_back({0, std::nullopt, false});  // stops after ESXi's findings
  const std::vector<std::string> block = report::plan_explanation(&host, plan);
  REQUIRE(block.size() == 81);
  CHECK(block[0] ==
        "skipped (not ready): 0000:43:00.0 (L40S) cannot be passed through on this host "
        "(Passthru Capable: false)");
  CHECK(block[1] ==
        "    fix: check the device's firmware and the host's BIOS (VT-d/AMD-Vi, SR-IOV) settings, "
        "or use another device");
  CHECK(block[2] == "host: h.txt");
  CHECK(block[3] == "GPU0: H100 PCIe (10de:2331) as vGPU grid_h100-80c");
  CHECK(block[74] == "NIC0: ConnectX-7 (15b3:1021) (an SR-IOV VF of it)");
  CHECK(block[75] ==
        "GPU pairs: 72 GPUs and NICs are more than the 64 whose every pair is judged (as `vmxkit "
        "topo` prints them); each GPU is judged with its nearest 4 GPUs: 2 of the 2485 pairs");
  CHECK(block[76] ==
        "vGPU placement: ESXi picks the physical GPU of each vGPU at power-on, by its placement "
        "policy; the paths below hold only if it picks the GPUs named here, which a vendor device "
        "group of the GPU and NIC (vSphere 8.0 U1, added in vCenter) makes sure of (rule P2P005)");
  CHECK(block[77].rfind("GPU0 <-> GPU1: ", 0) == 0);
  CHECK(block[78].rfind("GPU0 <-> GPU2: ", 0) == 0);
  CHECK(block[79] ==
        "ESXi: 0000:45:00.0 (ConnectX-7) is enabled for passthrough, but SR-IOV (the driver that "
        "creates the VFs) needs it owned by the VMkernel");
  CHECK(block[80] ==
        "    fix: esxcli hardware pci pcipassthru set -d 0000:45:00.0 -e false -a (ESXi 7.0+; "
        "earlier: Configure > PCI Devices and reboot)");
  CHECK(report::not_ready_text(plan.esxi_owners[0]) == block[79].substr(6) + "\n" + block[80]);
  const generate::NotReadyError error("--nic auto: no NIC of the host is ready for this VM",
                                      {plan.not_ready[0], plan.esxi_owners[0]});
  CHECK(report::not_ready_error_text(error) ==
        "--nic auto: no NIC of the host is ready for this VM:\n  " +
            report::not_ready_text(plan.not_ready[0]) + "\n  " +
            report::not_ready_text(plan.esxi_owners[0]));
}

TEST_CASE("the comment block words a vendor device group's instances", "[report][gen]") {
  generate::Plan plan = facts_plan();
  plan.vgpu = "nvidia_h100-80c";
  plan.gpus[0].model = pci::Catalog::builtin().find_alias("h100-pcie");
  generate::PlannedGroup group;
  group.name = "NVIDIA H100 + CX7";
  group.replaced_vgpus = {"nvidia_h100-40c"};
  generate::GroupMember gpu{0, 7, std::nullopt, "NVIDIA L40S"};
  generate::GroupMember nic{1, 8, vsphere::DeviceChange{}, ""};
  nic.template_device->dvx = vsphere::DvxBacking{"com.vmware.dvxpassthru", {}, {}};
  group.instances.push_back({gpu, nic});
  plan.device_group = group;
  const std::vector<std::string> block = report::plan_explanation(nullptr, plan);
  REQUIRE(block.size() == 11);
  CHECK(block[3] ==
        "device group \"NVIDIA H100 + CX7\": its template's vGPU is nvidia_h100-40c; the plan's "
        "--vgpu nvidia_h100-80c is used (the group's vGPU is configurable)");
  CHECK(block[4] ==
        "device group \"NVIDIA H100 + CX7\": its vGPU's GPU is NVIDIA L40S, GPU0 is H100 PCIe: "
        "vCenter places the group's vGPU on the group's GPU, which the profile must run on");
  CHECK(block[5] ==
        "device group \"NVIDIA H100 + CX7\" #1: GPU0 (sequenceId 7) + NIC0 (sequenceId 8, as the "
        "group's template: DVX class com.vmware.dvxpassthru)");
  CHECK(block[6] ==
        "vGPU placement: vCenter places each instance of \"NVIDIA H100 + CX7\" as a unit, on the "
        "devices the vendor found linked (NVIDIA: device groups \"guarantee correct placement "
        "across PCIe switches\"); the paths below are those of the devices named here, which need "
        "not be the ones the group gets. The ConfigSpec, SOAP, VI/JSON and PowerCLI outputs carry "
        "the group; a .vmx and govc cannot");
  CHECK(block[7] == "64-bit MMIO window: 128 GB");
}
