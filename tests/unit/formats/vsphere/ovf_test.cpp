// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/ovf.h"

#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/core/error.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

namespace {

std::vector<OvfVirtualSystem> read_corpus(const std::string& name) {
  const auto path = test::corpus_dir("configspec") / name;
  return read_ovf(SourceFile(path.string(), test::read_bytes(path)));
}

}  // namespace

TEST_CASE("every corpus OVF but the negative one reads", "[spec][ovf][corpus]") {
  for (const auto& path : test::corpus_files("configspec", ".ovf")) {
    INFO(path.string());
    const SourceFile file(path.string(), test::read_bytes(path));
    if (path.filename().string().find("NEGATIVE") != std::string::npos) {
      CHECK_THROWS_AS(read_ovf(file), Error);
    } else {
      CHECK_FALSE(read_ovf(file).empty());
    }
  }
}

TEST_CASE("legacy DirectPath items become pciPassthruN with vmx forms", "[spec][ovf][corpus]") {
  const auto systems = read_corpus("ovf_govmomi_pci_passthrough_legacy_directpath.ovf");
  REQUIRE(systems.size() == 1);
  CHECK(systems[0].id == "newVM-PCI-Legacy-2");
  const VmConfig& cfg = systems[0].config;
  CHECK(cfg.get("pciPassthru0.id") == "00000:003:00.1");
  CHECK(cfg.get("pciPassthru0.vendorId") == "0x8086");  // -32634 in the OVF
  CHECK(cfg.get("pciPassthru0.deviceId") == "0x1572");
  CHECK(cfg.get("pciPassthru0.systemId") == "5edfe8cd-844d-7ac2-8d86-f8f21e49fae0");
  CHECK(cfg.get("pciPassthru1.id") == "00000:006:00.1");
  CHECK(cfg.get("pciPassthru1.vendorId") == "0x14e4");
  CHECK(cfg.get("pciPassthru1.deviceId") == "0x165f");
  CHECK(cfg.get("firmware") == "efi");
  CHECK(cfg.get("nvram") == "newVM-PCI-Legacy-2.nvram");
  CHECK(cfg.memory_mb() == 1024);
  CHECK(cfg.memory_fully_reserved());
  const auto devices = cfg.passthrough_devices();
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].kind() == PassthroughKind::directpath);
  // The span of the vendorId points at the attribute value in the file.
  const auto path =
      test::corpus_dir("configspec") / "ovf_govmomi_pci_passthrough_legacy_directpath.ovf";
  const SourceFile file(path.string(), test::read_bytes(path));
  const Setting* vendor = cfg.find("pciPassthru0.vendorId");
  const Location loc = file.location(vendor->value_span.begin);
  CHECK(loc.line == 112);
  CHECK(file.bytes().substr(vendor->value_span.begin, 6) == "-32634");
}

TEST_CASE("vGPU and Dynamic DirectPath items read as vgpu and allowedDevices",
          "[spec][ovf][corpus]") {
  const VmConfig vgpu = read_corpus("ovf_govmomi_simplevm_with_vgpu.ovf")[0].config;
  CHECK(vgpu.get("pciPassthru0.vgpu") == "grid_a100-8c");
  CHECK(vgpu.passthrough_devices().at(0).kind() == PassthroughKind::vgpu);
  const VmConfig ah =
      read_corpus("ovf_govmomi_pci_passthrough_dynamic_ah_allowedDevice.ovf")[0].config;
  CHECK(ah.get("pciPassthru0.allowedDevices") == "0x8086:0x10d3");
  CHECK(ah.get("pciPassthru1.allowedDevices") == "0x8086:0x10d3");
  CHECK(ah.passthrough_devices().at(1).kind() == PassthroughKind::dynamic);
  const VmConfig dvx = read_corpus("ovf_govmomi_dvx_pci_passthrough_minimal.ovf")[0].config;
  CHECK(dvx.get("pciPassthru0.virtualDev") == "dvx");
}

TEST_CASE("ExtraConfig entries are settings as they are", "[spec][ovf][corpus]") {
  const VmConfig foo = read_corpus("ovf_govmomi_minimal_extraconfig_foo_bar.ovf")[0].config;
  REQUIRE(foo.settings.size() == 1);
  CHECK(foo.get("foo") == "bar");
  const auto nested = read_corpus("ovf_govmomi_nested_esxi_vsan_extraconfig.ovf");
  REQUIRE_FALSE(nested.empty());
  CHECK(nested[0].config.get("pciBridge4.virtualDev") == "pcieRootPort");
}

TEST_CASE("an ExtraConfig file reference References does not declare is rejected",
          "[spec][ovf][corpus]") {
  const auto path =
      test::corpus_dir("configspec") / "ovf_govmomi_NEGATIVE_efi_nvram_extraconfig_mismatch.ovf";
  CHECK_THROWS_WITH(read_ovf(SourceFile(path.string(), test::read_bytes(path))),
                    path.string() +
                        ":123:72: nvram refers to ovf:/file/file3, but References declares no File "
                        "'file3'");
}

TEST_CASE("a document that is not OVF is refused", "[spec][ovf]") {
  CHECK_THROWS_WITH(read_ovf(SourceFile("x.ovf", "<spec/>")),
                    "x.ovf:1:1: expected an OVF Envelope, found spec");
  CHECK_THROWS_WITH(read_ovf(SourceFile("x.ovf", "<Envelope><References/></Envelope>")),
                    "x.ovf:1:1: the OVF descriptor has no VirtualSystem");
}

namespace {

// The forms of govmomi's OVF fixtures ovf/fixtures/external/sriovEthernetCard.ovf and
// vdg-vm.ovf (govmomi b54705c9): an SR-IOV card is ResourceType 10 with ResourceSubType
// SriovEthernetCard (here DVX-backed, one with a PF), device groups are a
// vmw:VirtualDeviceGroupSection and deviceGroupInfo.* keys on the items.
// The descriptor: tests/data/vsphere/ovf/sriov-device-groups.ovf (convert's tests read it too).
const std::string& sriov_groups_ovf() {
  static const std::string text = vmxkit::test::read_bytes(
      vmxkit::test::source_path("tests/data/vsphere/ovf/sriov-device-groups.ovf"));
  return text;
}

}  // namespace

TEST_CASE("SR-IOV network adapters and device groups are read, unknown keys reported",
          "[spec][ovf][sriov]") {
  const auto systems = read_ovf(SourceFile("groups.ovf", sriov_groups_ovf()));
  REQUIRE(systems.size() == 1);
  const OvfVirtualSystem& vs = systems[0];
  const VmConfig& cfg = vs.config;
  CHECK(cfg.get("pciPassthru0.vgpu") == "grid_h100-80c");
  // The DVX-backed SR-IOV card: an entry with its network and virtualDev.
  CHECK(cfg.get("pciPassthru1.present") == "TRUE");
  CHECK(cfg.get("pciPassthru1.virtualDev") == "dvx");
  CHECK(cfg.get("pciPassthru1.networkName") == "VM Network");
  // The card with a PF: the VF form ESXi writes.
  CHECK(cfg.get("pciPassthru2.pfId") == "00000:026:00.1");
  CHECK(cfg.get("pciPassthru2.id") == "00000:026:00.1");
  CHECK(cfg.get("pciPassthru2.systemId") == "BYPASS");
  CHECK(cfg.get("pciPassthru2.networkName") == "RDMA");
  CHECK_FALSE(cfg.get("pciPassthru3.present"));  // a vmxnet3 card is no passthrough device
  // Device groups: the group, with the two items that name it as members.
  REQUIRE(cfg.device_groups.size() == 1);
  const DeviceGroup& g = cfg.device_groups[0];
  CHECK(g.name == "gpu-nic");
  CHECK(g.key == 0);
  CHECK(g.label == "Device Group 0");
  CHECK(g.summary == "Vendor Device Group");
  REQUIRE(g.members.size() == 2);
  CHECK(g.members[0].device == 0);
  CHECK(g.members[0].sequence_id == 0);
  CHECK(g.members[1].device == 1);
  CHECK(g.members[1].sequence_id == 1);
  CHECK(cfg.group_of(1) == &g);
  CHECK(cfg.group_of(2) == nullptr);
  // What vmxkit does not map is reported with where it is.
  REQUIRE(vs.unread.size() == 1);
  CHECK(vs.unread[0].message ==
        "vmw:Config backing.mystery of an SR-IOV network adapter is not read by vmxkit");
  CHECK(std::string_view(sriov_groups_ovf()).substr(vs.unread[0].span.begin, 12) == "<vmw:Config ");
}

TEST_CASE("an item of an undeclared device group is refused at its line", "[spec][ovf]") {
  std::string text = sriov_groups_ovf();
  const std::string declared = "ovf:groupInstanceKey=\"0\"";
  text.replace(text.find(declared), declared.size(), "ovf:groupInstanceKey=\"7\"");
  try {
    (void)read_ovf(SourceFile("groups.ovf", text));
    FAIL("no error");
  } catch (const vmxkit::Error& e) {
    CHECK(std::string(e.what()) ==
          "groups.ovf:20:9: deviceGroupInfo.groupInstanceKey 0 names no DeviceGroup of a "
          "VirtualDeviceGroupSection");
  }
  std::string twice = sriov_groups_ovf();
  const std::string group = "<DeviceGroup ";
  const std::size_t at = twice.find(group);
  const std::size_t end = twice.find('\n', at);
  twice.insert(end + 1, twice.substr(at - 4, end - at + 5));
  try {
    (void)read_ovf(SourceFile("groups.ovf", twice));
    FAIL("no error");
  } catch (const vmxkit::Error& e) {
    CHECK(std::string(e.what()) ==
          "groups.ovf:10:5: a second DeviceGroup with ovf:groupInstanceKey 0");
  }
}
