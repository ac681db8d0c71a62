// SPDX-License-Identifier: Apache-2.0
// vSphere device groups (deviceGroups, deviceGroupInfo) and DVX devices through every vSphere
// reader and writer: what vCenter reports for a VM with a vendor device group of a vGPU and a
// DVX-backed SR-IOV adapter (the form of govmomi's ovf/fixtures/external/vdg-vm.ovf) is kept
// by convert in the ConfigSpec outputs and PowerCLI, and is refused by govc.
#include <catch2/catch.hpp>
#include <string>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;
using vmxkit::test::run_cli;

namespace {

// govc vm.info -json (PascalCase, as govc before 0.32 writes it): the group key is the server's.
constexpr const char* kGovcInfo = R"({"VirtualMachines": [{"Self": {"Type": "VirtualMachine",
 "Value": "vm-42"}, "Name": "rdma-vm",
 "Config": {"Name": "rdma-vm", "GuestId": "ubuntu64Guest",
  "Hardware": {"NumCPU": 8, "MemoryMB": 131072, "Device": [
   {"Key": 13000, "Backing": {"Vgpu": "grid_h100-80c"},
    "DeviceGroupInfo": {"GroupInstanceKey": 5, "SequenceId": 0}},
   {"Key": 4000, "Backing": {"DeviceName": "VM Network"}, "SriovBacking": null,
    "DvxBackingInfo": {"DeviceClass": "com.vmware.dvxpassthru",
                       "ConfigParams": [{"Key": "mode", "Value": "rdma"}]},
    "DeviceGroupInfo": {"GroupInstanceKey": 5, "SequenceId": 1}}]},
  "DeviceGroups": {"DeviceGroup": [{"GroupInstanceKey": 5, "DeviceInfo": {"Label":
   "Device Group 0", "Summary": "Vendor Device Group"}, "DeviceGroupName": "nvidia-h100-cx7"}]}}}]}
)";

// The same VM's ConfigInfo as pyVmomi serializes it.
constexpr const char* kConfigInfo = R"(<object xmlns="urn:vim25"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="VirtualMachineConfigInfo">
  <name>rdma-vm</name>
  <guestId>ubuntu64Guest</guestId>
  <hardware>
    <numCPU>8</numCPU>
    <memoryMB>131072</memoryMB>
    <device xsi:type="VirtualPCIPassthrough">
      <key>13000</key>
      <backing xsi:type="VirtualPCIPassthroughVmiopBackingInfo"><vgpu>grid_h100-80c</vgpu></backing>
      <deviceGroupInfo><groupInstanceKey>5</groupInstanceKey><sequenceId>0</sequenceId></deviceGroupInfo>
    </device>
    <device xsi:type="VirtualSriovEthernetCard">
      <key>4000</key>
      <backing xsi:type="VirtualEthernetCardNetworkBackingInfo"><deviceName>VM Network</deviceName></backing>
      <deviceGroupInfo><groupInstanceKey>5</groupInstanceKey><sequenceId>1</sequenceId></deviceGroupInfo>
      <dvxBackingInfo xsi:type="VirtualPCIPassthroughDvxBackingInfo">
        <deviceClass>com.vmware.dvxpassthru</deviceClass>
        <configParams><key>mode</key><value xsi:type="xsd:string">rdma</value></configParams>
      </dvxBackingInfo>
    </device>
  </hardware>
  <deviceGroups>
    <deviceGroup xsi:type="VirtualMachineVirtualDeviceGroupsVendorDeviceGroup">
      <groupInstanceKey>5</groupInstanceKey>
      <deviceInfo><label>Device Group 0</label><summary>Vendor Device Group</summary></deviceInfo>
      <deviceGroupName>nvidia-h100-cx7</deviceGroupName>
    </deviceGroup>
  </deviceGroups>
</object>
)";

void check_model(const VmConfig& cfg) {
  REQUIRE(cfg.device_groups.size() == 1);
  const DeviceGroup& g = cfg.device_groups[0];
  CHECK(g.key == 5);
  CHECK(g.name == "nvidia-h100-cx7");
  CHECK(g.label == "Device Group 0");
  REQUIRE(g.members.size() == 2);
  CHECK(g.members[0].device == 0);
  CHECK(g.members[1].device == 1);
  CHECK(g.members[1].sequence_id == 1);
  const auto devices = cfg.passthrough_devices();
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].kind() == PassthroughKind::vgpu);
  CHECK(devices[1].kind() == PassthroughKind::dvx);
  CHECK(cfg.get("pciPassthru1.dvx.deviceClass") == "com.vmware.dvxpassthru");
  CHECK(cfg.get("pciPassthru1.dvx.config.mode") == "rdma");
  CHECK(cfg.get("pciPassthru1.networkName") == "VM Network");
  CHECK_FALSE(cfg.get("pciPassthru1.pfId"));  // vSphere picks the VF: no PF is named
}

std::string error_of(const std::string& name, const std::string& text) {
  try {
    (void)load(name, text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("govc, ConfigInfo XML and VI/JSON carry the same device group", "[spec][groups]") {
  const Loaded govc = load("info.json", kGovcInfo);
  REQUIRE(govc.vms.size() == 1);
  check_model(govc.vms[0].config);
  const Loaded xml = load("info.xml", kConfigInfo);
  REQUIRE(xml.vms.size() == 1);
  check_model(xml.vms[0].config);

  // Written as a spec that adds the group: a temporary key, the members' sequence kept, and
  // what each writer writes reads back to the same model.
  const ConfigSpec spec = output_spec(govc.vms[0].config);
  REQUIRE(spec.device_groups.size() == 1);
  CHECK(spec.device_groups[0].group_instance_key == -1);
  REQUIRE(spec.device_change.size() == 2);
  CHECK(spec.device_change[1].type == DeviceType::sriov_ethernet);
  REQUIRE(spec.device_change[1].group);
  CHECK(spec.device_change[1].group->group_instance_key == -1);
  CHECK(spec.device_change[1].group->sequence_id == 1);
  for (const std::string_view f : {"configspec-xml", "vi-json"}) {
    const std::string text = render(govc.vms[0].config, f);
    const Loaded back = load("out", text);
    INFO(text);
    CHECK(back.schema_problems.empty());
    const VmConfig& cfg = back.vms.at(0).config;
    REQUIRE(cfg.device_groups.size() == 1);
    CHECK(cfg.device_groups[0].key == -1);
    CHECK(cfg.device_groups[0].name == "nvidia-h100-cx7");
    CHECK(cfg.device_groups[0].members.size() == 2);
    CHECK(cfg.get("pciPassthru1.dvx.config.mode") == "rdma");
    CHECK(render(cfg, f) == text);
  }
}

TEST_CASE("PowerCLI sends the device group, and govc says it cannot", "[spec][groups]") {
  const VmConfig cfg = load("info.json", kGovcInfo).vms.at(0).config;
  const std::string ps = render(cfg, "powercli");
  CHECK(ps.find("$device.DeviceGroupInfo = New-Object VMware.Vim.VirtualDeviceDeviceGroupInfo "
                "-Property @{GroupInstanceKey = -1; SequenceId = 1}") != std::string::npos);
  CHECK(ps.find("$spec.DeviceGroups = New-Object VMware.Vim.VirtualMachineVirtualDeviceGroups") !=
        std::string::npos);
  CHECK(
      ps.find("(New-Object VMware.Vim.VirtualMachineVirtualDeviceGroupsVendorDeviceGroup "
              "-Property @{GroupInstanceKey = -1; DeviceInfo = (New-Object VMware.Vim.Description "
              "-Property @{Label = 'Device Group 0'; Summary = 'Vendor Device Group'}); "
              "DeviceGroupName = 'nvidia-h100-cx7'})") != std::string::npos);
  CHECK(ps.find("$device.DvxBackingInfo.DeviceClass = 'com.vmware.dvxpassthru'") !=
        std::string::npos);
  const std::string sh = render(cfg, "govc");
  CHECK(sh.find("device group \"nvidia-h100-cx7\": no govc command adds a device group") !=
        std::string::npos);
  CHECK(sh.find("exit 1") != std::string::npos);
  CHECK(sh.find("vm.change") == std::string::npos);
}

TEST_CASE("a DVX passthrough device keeps its class and parameters", "[spec][groups][corpus]") {
  // govmomi's ovf/fixtures: a vmware.pci.passthrough-dvx item with dvx.deviceClass and
  // dvx.config.* keys, which vmxkit used to drop (and then flag as a device with no id).
  const auto path =
      vmxkit::test::corpus_dir("configspec") / "ovf_govmomi_dvx_pci_passthrough_minimal.ovf";
  const auto lint = run_cli({"lint", path.string()});
  CHECK(lint.out.find("PT001") == std::string::npos);
  const auto xml = run_cli({"convert", path.string(), "--to", "configspec-xml"});
  CHECK(xml.code == 0);
  CHECK(xml.out.find("<backing xsi:type=\"VirtualPCIPassthroughDvxBackingInfo\">\n"
                     "        <deviceClass>com.vmware.dvxpassthru</deviceClass>\n"
                     "        <configParams xsi:type=\"OptionValue\">\n"
                     "          <key>deviceId</key>\n"
                     "          <value xsi:type=\"xsd:string\">testDeviceID</value>\n") !=
        std::string::npos);
  for (const char* key : {"customKey1", "customKey2", "customKey3", "customKey4", "vendorId"}) {
    CHECK(xml.out.find(std::string("<key>") + key + "</key>") != std::string::npos);
  }
  const auto vmx = run_cli({"convert", "-", "--to", "vmx"}, xml.out);
  CHECK(vmx.out.find("pciPassthru0.virtualDev = \"dvx\"\n"
                     "pciPassthru0.dvx.deviceClass = \"com.vmware.dvxpassthru\"\n"
                     "pciPassthru0.dvx.config.deviceId = \"testDeviceID\"\n") != std::string::npos);
  // And the .vmx reads back into the same ConfigSpec.
  const auto again = run_cli({"convert", "-", "--to", "configspec-xml"}, vmx.out);
  CHECK(again.out == xml.out);
}

TEST_CASE("a device that names an undeclared group, or a nameless vendor group, is refused",
          "[spec][groups]") {
  std::string undeclared = kConfigInfo;
  undeclared.replace(undeclared.find("<groupInstanceKey>5</groupInstanceKey><sequenceId>1"), 37,
                     "<groupInstanceKey>6</groupInstanceKey>");
  CHECK(error_of("info.xml", undeclared) ==
        "info.xml:16:7: deviceGroupInfo names groupInstanceKey 6, which deviceGroups does not "
        "declare");
  std::string nameless = kConfigInfo;
  nameless.erase(nameless.find("      <deviceGroupName>"),
                 std::string("      <deviceGroupName>nvidia-h100-cx7</deviceGroupName>\n").size());
  CHECK(error_of("info.xml", nameless) ==
        "info.xml:24:5: a VendorDeviceGroup without <deviceGroupName>");
  std::string json = run_cli({"convert", "-", "--to", "vi-json"}, kGovcInfo).out;
  json.replace(json.find("\"deviceGroupName\""), 17, "\"deviceGroupNam\"");
  CHECK(error_of("spec.json", json)
            .find("\"deviceGroupNam\" is not a member of "
                  "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup "
                  "(did you mean") == std::string::npos);
  CHECK(error_of("spec.json", json)
            .find("is not a member of "
                  "VirtualMachineVirtualDeviceGroupsVendorDeviceGroup") != std::string::npos);
}

TEST_CASE("an OVF Envelope's device group belongs to the VirtualSystem whose items join it",
          "[spec][groups][ovf]") {
  const std::string ovf = R"(<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1"
    xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1" xmlns:vmw="http://www.vmware.com/schema/ovf"
    xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">
  <vmw:VirtualDeviceGroupSection>
    <DeviceGroup ovf:deviceGroupName="gpu-nic" ovf:groupInstanceKey="0"/>
  </vmw:VirtualDeviceGroupSection>
  <VirtualSystemCollection>
    <VirtualSystem ovf:id="grouped"><VirtualHardwareSection><Item>
      <rasd:ResourceSubType>vmware.pci.passthrough-vmiop</rasd:ResourceSubType>
      <rasd:ResourceType>1</rasd:ResourceType>
      <vmw:Config vmw:key="backing.vgpu" vmw:value="grid_h100-80c"/>
      <vmw:Config vmw:key="deviceGroupInfo.groupInstanceKey" vmw:value="0"/>
      <vmw:Config vmw:key="deviceGroupInfo.sequenceId" vmw:value="0"/>
    </Item></VirtualHardwareSection></VirtualSystem>
    <VirtualSystem ovf:id="plain"><VirtualHardwareSection><Item>
      <rasd:ResourceSubType>vmware.pci.passthrough-vmiop</rasd:ResourceSubType>
      <rasd:ResourceType>1</rasd:ResourceType>
      <vmw:Config vmw:key="backing.vgpu" vmw:value="grid_h100-80c"/>
    </Item></VirtualHardwareSection></VirtualSystem>
  </VirtualSystemCollection>
</Envelope>
)";
  const Loaded loaded = load("two.ovf", ovf);
  REQUIRE(loaded.vms.size() == 2);
  REQUIRE(loaded.vms[0].config.device_groups.size() == 1);
  CHECK(loaded.vms[0].config.device_groups[0].members.size() == 1);
  CHECK(loaded.vms[1].config.device_groups.empty());
}

TEST_CASE("a group member that vmxkit cannot write stops the conversion, naming it",
          "[spec][groups]") {
  // A VirtualPCIPassthrough without a backing names no device: its settings would go to
  // extraConfig, and the group would lose a member.
  std::string xml = kConfigInfo;
  const std::string backing =
      "<backing xsi:type=\"VirtualPCIPassthroughVmiopBackingInfo\"><vgpu>grid_h100-80c</vgpu>"
      "</backing>";
  xml.erase(xml.find(backing), backing.size());
  const auto r = run_cli({"convert", "-", "--to", "configspec-xml"}, xml);
  CHECK(r.code == 2);
  CHECK(r.err.find("device group \"nvidia-h100-cx7\": its member pciPassthru0 is not a device "
                   "vmxkit can write") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("an SR-IOV card with a PF and a DVX backing keeps both", "[spec][groups]") {
  const std::string vmx =
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.pfId = \"00000:026:00.1\"\n"
      "pciPassthru0.id = \"00000:026:00.1\"\n"
      "pciPassthru0.systemId = \"BYPASS\"\n"
      "pciPassthru0.networkName = \"RDMA\"\n"
      "pciPassthru0.virtualDev = \"dvx\"\n"
      "pciPassthru0.dvx.deviceClass = \"com.vmware.dvxpassthru\"\n";
  const auto json = run_cli({"convert", "-", "--to", "vi-json"}, vmx);
  CHECK(json.code == 0);
  CHECK(json.out.find("extraConfig") == std::string::npos);  // nothing left over
  CHECK(json.out.find("\"physicalFunctionBacking\"") != std::string::npos);
  CHECK(json.out.find("\"deviceClass\": \"com.vmware.dvxpassthru\"") != std::string::npos);
  const auto back = run_cli({"convert", "-", "--to", "vmx"}, json.out);
  CHECK(back.out.find("pciPassthru0.pfId = \"00000:026:00.1\"") != std::string::npos);
  CHECK(back.out.find("pciPassthru0.dvx.deviceClass = \"com.vmware.dvxpassthru\"") !=
        std::string::npos);
}

TEST_CASE("a DVX backing with an empty device class is named by PT001", "[spec][groups]") {
  std::string xml = kConfigInfo;
  const std::string cls = "<deviceClass>com.vmware.dvxpassthru</deviceClass>";
  xml.replace(xml.find(cls), cls.size(), "<deviceClass></deviceClass>");
  const auto r = run_cli({"lint", "-"}, xml);
  CHECK(r.out.find("pciPassthru1 is a DVX device (virtualDev = \"dvx\") without "
                   "dvx.deviceClass [PT001]") != std::string::npos);
  // The .vmx form with the key given and empty.
  const auto vmx = run_cli({"lint", "-"},
                           "pciPassthru0.present = \"TRUE\"\n"
                           "pciPassthru0.virtualDev = \"dvx\"\n"
                           "pciPassthru0.dvx.deviceClass = \"\"\n");
  CHECK(vmx.out.find("pciPassthru0 is a DVX device (virtualDev = \"dvx\") without "
                     "dvx.deviceClass [PT001]") != std::string::npos);
}
