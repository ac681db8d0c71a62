// SPDX-License-Identifier: Apache-2.0
// generate --device-group: the plan's vGPUs and NICs as instances of a vendor device group of
// the host's ConfigTarget (tests/data/vsphere/config-target/), in the vSphere outputs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/support.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;
using vmxkit::test::TempDir;
using vmxkit::test::write_bytes;

namespace {

const std::string kHost =
    source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string();
const std::string kTarget =
    source_path("tests/data/vsphere/config-target/govc-vm-target-info.json").string();
const std::string kGroup = "nvidia-h100-cx7-0";

// generate --gpu auto --gpus N --nic auto --vgpu PROFILE on `host`, then `more`.
std::vector<std::string> generate(unsigned gpus, std::vector<std::string> more,
                                  const std::string& vgpu = "grid_h100-80c",
                                  const std::string& host = kHost) {
  std::vector<std::string> args = {
      "generate", "--host", host,     "--gpu", "auto",        "--gpus", std::to_string(gpus),
      "--nic",    "auto",   "--vgpu", vgpu,    "--system-id", "U"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A ConfigTarget with one group of these components (JSON text each).
std::string target_with(const std::string& components) {
  return R"({"numCpus": 2, "vendorDeviceGroupInfo": [{"deviceGroupName": "g", )"
         R"("componentDeviceInfo": [)" +
         components + "]}]}";
}

const std::string kVgpu =
    R"({"type": "nvidiaVgpu", "vendorName": "NVIDIA Corporation", "deviceName": "H100",
        "isConfigurable": true, "device": {"_typeName": "VirtualPCIPassthrough", "key": 0,
        "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 0}}})";

}  // namespace

TEST_CASE("each vGPU and its NIC become one instance of the group, with the template's sequenceIds",
          "[cli][generate][target]") {
  const auto r = run_cli(generate(
      2, {"--sriov", "--format", "vi-json", "--config-target", kTarget, "--device-group", kGroup}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto spec = nlohmann::json::parse(r.out);
  const auto& groups = spec["deviceGroups"]["deviceGroup"];
  REQUIRE(groups.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(groups[i]["_typeName"] == "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup");
    CHECK(groups[i]["deviceGroupName"] == kGroup);
    CHECK(groups[i]["groupInstanceKey"] == -1 - static_cast<int>(i));
  }
  const auto& devices = spec["deviceChange"];
  REQUIRE(devices.size() == 4);  // GPU0 GPU1 NIC0 NIC1
  // GPU0 (0000:18:00.0) is paired with NIC0 (0000:19:00.0) under one switch, GPU1 with NIC1.
  const int keys[] = {-1, -2, -1, -2};
  const int sequence[] = {0, 0, 1, 1};
  for (std::size_t d = 0; d < 4; ++d) {
    INFO("device " << d);
    CHECK(devices[d]["device"]["deviceGroupInfo"]["groupInstanceKey"] == keys[d]);
    CHECK(devices[d]["device"]["deviceGroupInfo"]["sequenceId"] == sequence[d]);
  }
  CHECK(devices[0]["device"]["backing"]["vgpu"] == "grid_h100-80c");
  // The NIC is the group's template: an SR-IOV adapter backed by DVX, naming no PF (vSphere
  // places the group), on the plan's port group.
  const auto& nic = devices[2]["device"];
  CHECK(nic["_typeName"] == "VirtualSriovEthernetCard");
  CHECK(nic["dvxBackingInfo"]["deviceClass"] == "com.vmware.dvxpassthru");
  CHECK_FALSE(nic.contains("sriovBacking"));
  CHECK(nic["backing"]["deviceName"] == "VM Network");
  CHECK(nic["key"] == -102);
  CHECK(r.err.find("device group \"nvidia-h100-cx7-0\" #1: GPU0 (sequenceId 0) + NIC0 "
                   "(sequenceId 1, as the group's template: DVX class com.vmware.dvxpassthru)") !=
        std::string::npos);
  CHECK(r.err.find("#2: GPU1 (sequenceId 0) + NIC1") != std::string::npos);
  CHECK(r.err.find("vCenter places each instance") != std::string::npos);
  CHECK(r.err.find("template's vGPU is") == std::string::npos);  // the template's profile
  CHECK(r.err.find("its vGPU's GPU is") == std::string::npos);   // the group's GPU model

  // A configurable vGPU takes the plan's profile, and says so.
  const auto other = run_cli(generate(
      1, {"--sriov", "--format", "vi-json", "--config-target", kTarget, "--device-group", kGroup},
      "grid_h100-40c"));
  REQUIRE(other.code == 0);
  CHECK(nlohmann::json::parse(other.out)["deviceChange"][0]["device"]["backing"]["vgpu"] ==
        "grid_h100-40c");
  CHECK(other.err.find("its template's vGPU is grid_h100-80c; the plan's --vgpu grid_h100-40c "
                       "is used (the group's vGPU is configurable)") != std::string::npos);
  CHECK(r.err.find("ESXi picks the physical GPU") == std::string::npos);
}

TEST_CASE("a plan with its group lints without P2P005, and without one P2P005 names the gap",
          "[cli][generate][target][lint]") {
  TempDir dir;
  const std::string grouped = (dir / "grouped.json").string();
  const std::string plain = (dir / "plain.json").string();
  REQUIRE(run_cli(generate(1, {"--sriov", "--format", "vi-json", "--config-target", kTarget,
                               "--device-group", kGroup, "-o", grouped}))
              .code == 0);
  REQUIRE(run_cli(generate(1, {"--sriov", "--format", "vi-json", "-o", plain})).code == 0);
  const auto with = run_cli({"lint", "--host", kHost, grouped});
  const auto without = run_cli({"lint", "--host", kHost, plain});
  INFO(with.out << without.out);
  CHECK(with.code == 0);
  CHECK(with.out.find("P2P005") == std::string::npos);
  CHECK(without.out.find("P2P005") != std::string::npos);
  // Read back, the groups are the VM's: convert keeps them, and a .vmx names what it drops.
  const auto back = run_cli({"convert", "--to", "configspec-xml", grouped});
  CHECK(back.code == 0);
  CHECK(back.out.find("<deviceGroupName>nvidia-h100-cx7-0</deviceGroupName>") != std::string::npos);
  CHECK(back.out.find("<deviceClass>com.vmware.dvxpassthru</deviceClass>") != std::string::npos);
}

TEST_CASE("the SOAP answer's group, PowerCLI and SOAP outputs carry the same instances",
          "[cli][generate][target]") {
  const std::string xml =
      source_path("tests/data/vsphere/config-target/queryconfigtarget-response.xml").string();
  const auto ps = run_cli(generate(
      1, {"--sriov", "--format", "powercli", "--config-target", xml, "--device-group", kGroup}));
  INFO(ps.err);
  REQUIRE(ps.code == 0);
  CHECK(ps.out.find("VirtualMachineVirtualDeviceGroupsVendorDeviceGroup -Property "
                    "@{GroupInstanceKey = -1; DeviceGroupName = 'nvidia-h100-cx7-0'}") !=
        std::string::npos);
  CHECK(ps.out.find("$device.DvxBackingInfo.DeviceClass = 'com.vmware.dvxpassthru'") !=
        std::string::npos);
  const auto soap = run_cli(generate(1, {"--sriov", "--format", "soap", "--vm", "vm-42",
                                         "--config-target", xml, "--device-group", kGroup}));
  REQUIRE(soap.code == 0);
  CHECK(soap.out.find("<sequenceId>1</sequenceId>") != std::string::npos);
  CHECK(soap.out.find("<deviceGroupName>nvidia-h100-cx7-0</deviceGroupName>") != std::string::npos);
}

TEST_CASE("merged into a base, the group's members are the plan's devices, not the base's",
          "[cli][generate][target]") {
  TempDir dir;
  const auto base = dir / "vm.vmx";
  write_bytes(base,
              ".encoding = \"UTF-8\"\nmemsize = \"65536\"\n"
              "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"00000:059:00.0\"\n"
              "pciPassthru0.deviceId = \"0x1021\"\npciPassthru0.vendorId = \"0x15b3\"\n"
              "pciPassthru0.systemId = \"U\"\n");
  const auto r = run_cli(generate(1, {"--sriov", "--format", "vi-json", "--base", base.string(),
                                      "--config-target", kTarget, "--device-group", kGroup}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto devices = nlohmann::json::parse(r.out)["deviceChange"];
  REQUIRE(devices.size() == 3);  // the base's device, then the plan's vGPU and NIC
  CHECK_FALSE(devices[0]["device"].contains("deviceGroupInfo"));
  CHECK(devices[1]["device"]["deviceGroupInfo"]["sequenceId"] == 0);
  CHECK(devices[2]["device"]["deviceGroupInfo"]["sequenceId"] == 1);
  CHECK(devices[2]["device"].contains("dvxBackingInfo"));
}

TEST_CASE("a group the plan does not fit is refused with the reason, and nothing is written",
          "[cli][generate][target]") {
  TempDir dir;
  const std::string out = (dir / "vm.json").string();
  auto refused = [&](std::vector<std::string> args, const std::string& why) {
    args.insert(args.end(), {"-o", out});
    const auto r = run_cli(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(why) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
  };
  const std::vector<std::string> vi = {"--format", "vi-json", "--config-target", kTarget};
  auto with = [&](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  refused(generate(1, with(vi, {"--sriov", "--device-group", "nope"})),
          "--device-group \"nope\": " + kTarget +
              " offers no such group (it offers \"nvidia-h100-cx7-0\", "
              "\"nvidia-h100-nvlink-pair\")");
  refused(generate(1, {"--sriov", "--device-group", kGroup, "--format", "vi-json"}),
          "needs the host's QueryConfigTarget answer (--config-target FILE, or --server with "
          "--esx-host)");
  refused(generate(1, with(vi, {"--device-group", kGroup})),
          "its dvx Mellanox Technologies MT2910 Family [ConnectX-7] is an SR-IOV network "
          "adapter: add --sriov");
  refused(generate(1, {"--sriov", "--format", "govc", "--config-target", kTarget, "--device-group",
                       kGroup}),
          "the govc output cannot carry a device group; use --format vi-json, soap, "
          "configspec-xml, powercli");
  refused(generate(1, with(vi, {"--sriov", "--device-group", "nvidia-h100-nvlink-pair"})),
          "pairs no vGPU with a NIC (2 components)");
  // Two GPUs on one NIC: an instance needs a NIC of its own.
  refused(with({"generate", "--host", kHost, "--gpu", "0000:18:00.0", "--gpu", "0000:1a:00.0",
                "--nic", "0000:19:00.0", "--vgpu", "grid_h100-80c", "--system-id", "U"},
               with(vi, {"--sriov", "--device-group", kGroup})),
          "an instance holds 1 vGPU and 1 NIC: the plan's 2 vGPUs need 2 NICs, it has 1");
  // Both GPUs nearest to the first NIC given: it cannot be in two instances.
  refused(
      with({"generate", "--host", kHost, "--gpu", "0000:18:00.0", "--gpu", "0000:1a:00.0", "--nic",
            "0000:19:00.0", "--nic", "0000:1b:00.0", "--vgpu", "grid_h100-80c", "--system-id", "U"},
           with(vi, {"--sriov", "--device-group", kGroup})),
      "NIC0 is paired with GPUs of two instances; an instance needs NICs of its own");
  // Passthrough without a vGPU.
  refused({"generate", "--host", kHost, "--gpu", "auto", "--gpus", "1", "--nic", "auto", "--sriov",
           "--system-id", "U", "--format", "vi-json", "--config-target", kTarget, "--device-group",
           kGroup},
          "the group's GPU is a vGPU: generate with --vgpu PROFILE");

  // What the host's templates say decides the rest.
  const auto target = dir / "target.json";
  auto refused_with = [&](const std::string& components, std::vector<std::string> flags,
                          const std::string& why) {
    write_bytes(target, target_with(components));
    refused(generate(1, with({"--format", "vi-json", "--config-target", target.string(),
                              "--device-group", "g"},
                             flags)),
            why);
  };
  const std::string sriov_nic =
      R"({"type": "sriovNic", "vendorName": "Mellanox Technologies", "deviceName": "CX7",
          "device": {"_typeName": "VirtualSriovEthernetCard", "key": 0,
          "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 1}}})";
  refused_with(
      R"({"type": "nvidiaVgpu", "vendorName": "NVIDIA Corporation", "deviceName": "H100",
          "isConfigurable": false, "device": {"_typeName": "VirtualPCIPassthrough", "key": 0,
          "backing": {"vgpu": "grid_h100-40c"},
          "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 0}}}, )" +
          sriov_nic,
      {"--sriov"},
      "its vGPU is profile grid_h100-40c (isConfigurable false), not --vgpu "
      "grid_h100-80c");
  refused_with(kVgpu + R"(, {"type": "dvx", "vendorName": "Mellanox", "deviceName": "CX7",
          "device": {"_typeName": "VirtualSriovEthernetCard", "key": 0,
          "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 1}}})",
               {"--sriov"},
               "the host's template of dvx Mellanox CX7 names no DVX device class, without which "
               "vmxkit cannot write the device");
  refused_with(kVgpu + R"(, {"type": "sriovNic", "vendorName": "Mellanox", "deviceName": "CX7"})",
               {"--sriov"},
               "the host's template of sriovNic Mellanox CX7 has no deviceGroupInfo.sequenceId");
  refused_with(kVgpu + ", " + sriov_nic + R"(, {"type": "pciPassthru", "vendorName": "Intel",
               "deviceName": "QAT"})",
               {"--sriov"}, "holds pciPassthru Intel QAT: vmxkit writes groups of vGPUs and NICs");
  refused_with(kVgpu + R"(, {"type": "sriovNic", "vendorName": "Mellanox", "deviceName": "CX7",
          "device": {"_typeName": "VirtualSriovEthernetCard", "key": 0,
          "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 0}}})",
               {"--sriov"}, "two components have sequenceId 0");
  refused_with(kVgpu + R"(, {"type": "pciPassthru", "vendorName": "Mellanox Technologies",
          "deviceName": "ConnectX-7", "device": {"_typeName": "VirtualPCIPassthrough", "key": 0,
          "backing": {"id": "0000:19:00.0", "deviceId": "1021", "systemId": "U", "vendorId": 5555},
          "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 1}}})",
               {"--sriov"}, "is a passthrough device: leave out --sriov");
}

TEST_CASE(
    "a group whose SR-IOV template names nothing keeps the plan's PF, and a passthrough "
    "template replaces the plan's NIC",
    "[cli][generate][target]") {
  TempDir dir;
  const auto target = dir / "target.json";
  write_bytes(target, target_with(kVgpu + R"(, {"type": "sriovNic", "vendorName": "Mellanox",
      "deviceName": "CX7", "device": {"_typeName": "VirtualSriovEthernetCard", "key": 0,
      "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 7}}})"));
  auto r = run_cli(generate(1, {"--sriov", "--format", "vi-json", "--config-target",
                                target.string(), "--device-group", "g"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto nic = nlohmann::json::parse(r.out)["deviceChange"][1]["device"];
  CHECK(nic["sriovBacking"]["physicalFunctionBacking"]["id"] == "0000:19:00.0");
  CHECK(nic["deviceGroupInfo"]["sequenceId"] == 7);
  CHECK(r.err.find("NIC0 (sequenceId 7)") != std::string::npos);

  write_bytes(target, target_with(kVgpu + R"(, {"type": "pciPassthru", "vendorName":
      "Mellanox Technologies", "deviceName": "ConnectX-7", "device": {"_typeName": "VirtualPCIPassthrough",
      "key": 0, "backing": {"id": "0000:1b:00.0", "deviceId": "1021", "systemId": "S",
      "vendorId": 5555}, "deviceGroupInfo": {"groupInstanceKey": 0, "sequenceId": 1}}})"));
  r = run_cli(generate(
      1, {"--format", "vi-json", "--config-target", target.string(), "--device-group", "g"}));
  REQUIRE(r.code == 0);
  nic = nlohmann::json::parse(r.out)["deviceChange"][1]["device"];
  CHECK(nic["backing"]["id"] == "0000:1b:00.0");  // the template's device, not the plan's
  CHECK(nic["backing"]["systemId"] == "S");
  CHECK(nic["key"] == -101);
}

TEST_CASE("a group whose vGPU sits on another GPU model than the plan's is named",
          "[cli][generate][target]") {
  // The L40S host with the test ConfigTarget's H100 group: vCenter would place the vGPU on the
  // group's H100, where an L40S profile does not run.
  const std::string esxi =
      source_path("examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt").string();
  const auto r = run_cli(generate(
      1, {"--sriov", "--format", "vi-json", "--config-target", kTarget, "--device-group", kGroup},
      "nvidia_l40s-48c", esxi));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.find("device group \"nvidia-h100-cx7-0\": its vGPU's GPU is GH100 [H100 PCIe], "
                   "GPU0 is L40S: vCenter places the group's vGPU on the group's GPU, which "
                   "the profile must run on") != std::string::npos);
}
