// SPDX-License-Identifier: Apache-2.0
// The vendor device groups of a QueryConfigTarget answer (tests/data/vsphere/config-target/,
// written in the API reference's form), and generate --config-target, which names those of a
// vGPU and a NIC.
#include "vmxkit/formats/vsphere/config_target.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "support/support.h"
#include "vmxkit/core/error.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;
using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;

namespace {

const std::string kDir = "tests/data/vsphere/config-target/";

std::vector<VendorDeviceGroup> read(const std::string& name, const std::string& text) {
  return read_vendor_device_groups(SourceFile(name, text));
}

std::string error_of(const std::string& text) {
  try {
    (void)read("target", text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("govc's vm.target.info JSON and a SOAP answer give the same groups", "[spec][target]") {
  for (const char* file : {"govc-vm-target-info.json", "queryconfigtarget-response.xml"}) {
    INFO(file);
    const auto groups = read(file, read_bytes(source_path(kDir + file)));
    REQUIRE(groups.size() >= 1);
    const VendorDeviceGroup& g = groups[0];
    CHECK(g.device_group_name == "nvidia-h100-cx7-0");
    CHECK(g.description == "H100 and ConnectX-7 under one PCIe switch");
    REQUIRE(g.components.size() == 2);
    CHECK(g.components[0].type == "nvidiaVgpu");
    CHECK(g.components[0].configurable);
    CHECK(g.components[0].sequence_id == 0);
    CHECK(g.components[1].type == "dvx");
    CHECK(g.components[1].vendor_name == "Mellanox Technologies");
    CHECK_FALSE(g.components[1].configurable);
    CHECK(g.components[1].sequence_id == 1);
    CHECK(g.pairs_vgpu_with_nic());
    // The template devices, read as a ConfigSpec's devices are.
    REQUIRE(g.components[0].device);
    CHECK(g.components[0].device->backing_type == BackingType::vmiop);
    CHECK(g.components[0].device->vgpu == "grid_h100-80c");
    CHECK(g.components[0].device_type == "VirtualPCIPassthrough");
    REQUIRE(g.components[1].device);
    CHECK(g.components[1].device->type == DeviceType::sriov_ethernet);
    REQUIRE(g.components[1].device->dvx);
    CHECK(g.components[1].device->dvx->device_class == "com.vmware.dvxpassthru");
    CHECK_FALSE(g.components[1].device->physical_function);
    CHECK(g.components[1].device_type == "VirtualSriovEthernetCard");
  }
  // Two vGPUs of an NVLink pair are no GPU-NIC group.
  const auto groups =
      read("target.json", read_bytes(source_path(kDir + "govc-vm-target-info.json")));
  REQUIRE(groups.size() == 2);
  CHECK_FALSE(groups[1].pairs_vgpu_with_nic());
}

TEST_CASE("Go's PascalCase names and a ConfigTarget with no groups are read", "[spec][target]") {
  const auto groups = read("target.json", R"({"NumCpus": 1, "VendorDeviceGroupInfo": [
    {"DeviceGroupName": "g", "ComponentDeviceInfo": [
      {"Type": "nvidiaVgpu", "VendorName": "NVIDIA", "DeviceName": "L40S", "IsConfigurable": true},
      {"Type": "sriovNic", "VendorName": "Mellanox", "DeviceName": "ConnectX-7"}]}]})");
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].components[1].type == "sriovNic");
  CHECK_FALSE(groups[0].components[1].device);  // no template: none read
  CHECK(groups[0].pairs_vgpu_with_nic());
  CHECK(read("target.json", R"({"numCpus": 8, "numCpuCores": 64})").empty());
  CHECK(read("target.xml",
             "<object xmlns=\"urn:vim25\" xmlns:xsi=\"http://www.w3.org/2001/"
             "XMLSchema-instance\" xsi:type=\"ConfigTarget\"><numCpus>8</numCpus>"
             "</object>")
            .empty());
}

TEST_CASE("what is no ConfigTarget is refused, saying what it is", "[spec][target]") {
  CHECK(error_of(R"({"_typeName": "VirtualMachineConfigSpec"})") ==
        "target:1:1: not a ConfigTarget (expected what govc vm.target.info -json prints, with "
        "numCpus and, when the host offers device groups, vendorDeviceGroupInfo)");
  CHECK(error_of("<spec xmlns=\"urn:vim25\"/>") ==
        "target:1:1: <spec> is not a ConfigTarget (expected the answer of QueryConfigTarget)");
  CHECK(error_of("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                 "<soapenv:Body><soapenv:Fault><faultcode>ServerFaultCode</faultcode>"
                 "<faultstring>The object has already been deleted</faultstring>"
                 "</soapenv:Fault></soapenv:Body></soapenv:Envelope>") ==
        "target:1:91: a SOAP Fault, not a ConfigTarget: The object has already been deleted");
  CHECK(error_of(R"({"numCpus": 1, "vendorDeviceGroupInfo": [{"deviceGroupDescription": "x"}]})") ==
        "target:1:42: a vendorDeviceGroupInfo entry without deviceGroupName");
  CHECK(error_of(R"({"numCpus": 1, "vendorDeviceGroupInfo": {}})") ==
        "target:1:41: vendorDeviceGroupInfo must be an array, not an object");
  // A template device is read as strictly as a ConfigSpec's.
  CHECK(error_of(R"({"numCpus": 1, "vendorDeviceGroupInfo": [{"deviceGroupName": "g",
    "componentDeviceInfo": [{"type": "sriovNic", "device": {"sriovBacking":
    {"physicalFunctionBacking": {"vendorId": 99999}}}}]}]})")
            .starts_with("target:3:46: VendorId must be a PCI vendor id"));
  CHECK(error_of("<ConfigTarget xmlns=\"urn:vim25\" xmlns:xsi=\"http://www.w3.org/2001/"
                 "XMLSchema-instance\"><vendorDeviceGroupInfo><deviceGroupName>g"
                 "</deviceGroupName><componentDeviceInfo><type>dvx</type>"
                 "<device xsi:type=\"VirtualPCIPassthrough\"/></componentDeviceInfo>"
                 "</vendorDeviceGroupInfo></ConfigTarget>")
            .find("<device> without <key>") != std::string::npos);
}

TEST_CASE("generate --config-target names the host's groups of a vGPU and a NIC",
          "[cli][generate][target]") {
  const std::string host =
      source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string();
  const std::string target = source_path(kDir + "govc-vm-target-info.json").string();
  const std::vector<std::string> vgpu = {
      "generate", "--host", host,     "--gpu",         "auto",    "--gpus",      "1",
      "--nic",    "auto",   "--vgpu", "grid_h100-80c", "--sriov", "--system-id", "U"};
  auto args = vgpu;
  args.insert(args.end(), {"--config-target", target});
  const auto r = run_cli(args);
  CHECK(r.code == 0);
  CHECK(r.err.find("vendor device groups of a vGPU and a NIC on this host, which vCenter places "
                   "as a unit: 'nvidia-h100-cx7-0': H100 and ConnectX-7 under one PCIe switch "
                   "(nvidiaVgpu NVIDIA Corporation GH100 [H100 PCIe], dvx Mellanox Technologies "
                   "MT2910 Family [ConnectX-7])") != std::string::npos);
  CHECK(r.err.find("This plan holds no group: --device-group NAME writes its vGPUs and NICs as "
                   "instances of one") != std::string::npos);
  CHECK(r.err.find("nvidia-h100-nvlink-pair") == std::string::npos);
  CHECK(r.out == run_cli(vgpu).out);  // the plan itself does not change

  // A host with no such group says so; a plan without a vGPU needs none.
  vmxkit::test::TempDir dir;
  const auto none = dir / "none.json";
  vmxkit::test::write_bytes(none, R"({"numCpus": 2, "vendorDeviceGroupInfo": []})");
  args = vgpu;
  args.insert(args.end(), {"--config-target", none.string()});
  CHECK(run_cli(args).err.find("the host offers no vendor device group of a vGPU and a NIC (0 "
                               "groups in all)") != std::string::npos);
  const auto passthrough =
      run_cli({"generate", "--host", host, "--gpu", "auto", "--gpus", "1", "--nic", "auto",
               "--system-id", "U", "--config-target", target});
  CHECK(passthrough.code == 0);
  CHECK(passthrough.err.find("device groups matter for a vGPU with a NIC, which this plan is "
                             "not") != std::string::npos);

  // A file that is no ConfigTarget: exit 2, and -o is not written.
  const auto out = dir / "vm.vmx";
  args = vgpu;
  args.insert(args.end(), {"--config-target", host, "-o", out.string()});
  const auto bad = run_cli(args);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("lspci-vvv.txt:1:1: not a ConfigTarget: expected the JSON of govc "
                     "vm.target.info -json or the XML of a QueryConfigTarget answer") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}
