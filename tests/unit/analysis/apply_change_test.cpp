// SPDX-License-Identifier: Apache-2.0
// vmxkit apply's pure part: the change between a VM as read and a plan (analysis/apply_change.h).
#include "vmxkit/analysis/apply_change.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/support.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"

using vmxkit::apply::Change;
using vmxkit::apply::ChangeOptions;
using vmxkit::apply::compute_change;
using vmxkit::vsphere::BackingType;
using vmxkit::vsphere::ConfigSpec;
using vmxkit::vsphere::DeviceChange;

namespace {

const std::string kUuid = "5fe9d4dc-68b1-4c3a-9d1e-0123456789ab";

DeviceChange device(std::string id, std::string device_id, std::int32_t vendor, int key = 0,
                    std::string system_id = kUuid) {
  DeviceChange d;
  d.key = key;
  d.backing_type = BackingType::device;
  d.device.id = std::move(id);
  d.device.device_id = std::move(device_id);
  d.device.vendor_id = vendor;
  d.device.system_id = std::move(system_id);
  return d;
}

DeviceChange vgpu(std::string profile, int key = 0) {
  DeviceChange d;
  d.key = key;
  d.backing_type = BackingType::vmiop;
  d.vgpu = std::move(profile);
  return d;
}

void extra(ConfigSpec& s, std::string key, std::string value) {
  vmxkit::vsphere::OptionValue o;
  o.key = std::move(key);
  o.value = std::move(value);
  s.extra_config.push_back(std::move(o));
}

// A VM holding an old GPU (key 204) and a NIC (key 205), 16 GB, nothing reserved, BIOS.
ConfigSpec old_vm() {
  ConfigSpec vm;
  vm.memory_mb = 16384;
  vm.memory_reservation_mb = 0;
  vm.firmware = "bios";
  vm.device_change = {device("0000:18:00.0", "2331", 4318, 204),
                      device("0000:9b:00.0", "1021", 5555, 205)};
  extra(vm, "pciPassthru.allowP2P", "TRUE");
  extra(vm, "govcsim", "TRUE");
  return vm;
}

// The plan: a new GPU, the same NIC, 64 GB all reserved, EFI, the P2P keys.
ConfigSpec plan() {
  ConfigSpec p;
  p.memory_mb = 65536;
  p.memory_reservation_mb = 65536;
  p.memory_reservation_locked_to_max = true;
  p.firmware = "efi";
  p.device_change = {device("0000:1a:00.0", "2331", 4318, -100),
                     device("0000:9b:00.0", "1021", 5555, -101)};
  extra(p, "pciPassthru.allowPTP", "");
  extra(p, "pciPassthru.allowp2p", "TRUE");
  extra(p, "pciPassthru.64bitMMIOSizeGB", "256");
  return p;
}

}  // namespace

TEST_CASE("apply removes the VM's old GPU by its key, adds the new one and keeps the NIC",
          "[analysis][apply]") {
  const Change c = compute_change(old_vm(), plan());
  REQUIRE(c.spec.device_change.size() == 2);
  CHECK(c.spec.device_change[0].operation == "remove");
  CHECK(c.spec.device_change[0].key == 204);
  CHECK(c.spec.device_change[0].device.id == "0000:18:00.0");
  CHECK(c.spec.device_change[1].operation == "add");
  CHECK(c.spec.device_change[1].key == -1);
  CHECK(c.spec.device_change[1].device.id == "0000:1a:00.0");
  CHECK(c.spec.device_change[1].device.system_id == kUuid);
  CHECK(c.devices_change);
}

TEST_CASE("apply reads the server's device keys from a VM's ConfigInfo and removes by them",
          "[analysis][apply]") {
  const std::string bytes =
      vmxkit::test::read_bytes(vmxkit::test::source_path("tests/data/vsphere/clients/"
                                                         "pyvmomi-configinfo.xml"));
  const auto doc = vmxkit::vsphere::read_vim25_xml(vmxkit::SourceFile("info.xml", bytes));
  REQUIRE(doc.vms.size() == 1);
  ConfigSpec p;
  p.device_change = {device("0000:3b:00.0", "0x2330", 4318)};  // kept: 0x2330 is 2330
  const Change c = compute_change(doc.vms[0].spec, p);
  REQUIRE(c.spec.device_change.size() == 1);
  CHECK(c.spec.device_change[0].operation == "remove");
  CHECK(c.spec.device_change[0].key == 205);
}

TEST_CASE("apply of a plan the VM already is sends nothing", "[analysis][apply]") {
  ConfigSpec vm = plan();
  for (auto& d : vm.device_change) d.key = 300 + d.key;
  vm.device_change[0].device.device_id = "0x2331";  // hostd's form of the same id
  vm.device_change[0].device.vendor_id = 4318;
  vm.device_change[0].device.id = "0000:1A:00.0";
  extra(vm, "pciPassthru.allowP2P", "TRUE");
  const Change c = compute_change(vm, plan(), {true, false});
  CHECK(c.empty());
  CHECK(c.diff.empty());
}

TEST_CASE("apply passes a device through once when the VM has it and the plan names it once",
          "[analysis][apply]") {
  ConfigSpec vm;
  vm.device_change = {device("0000:9b:00.0", "1021", 5555, 205),
                      device("0000:9b:00.0", "1021", 5555, 206)};
  ConfigSpec p;
  p.device_change = {device("0000:9b:00.0", "1021", 5555)};
  const Change c = compute_change(vm, p);
  REQUIRE(c.spec.device_change.size() == 1);
  CHECK(c.spec.device_change[0].operation == "remove");
  CHECK(c.spec.device_change[0].key == 206);
}

TEST_CASE("apply adds a second vGPU of one profile only when the plan holds two",
          "[analysis][apply]") {
  ConfigSpec vm;
  vm.device_change = {vgpu("grid_h100-40c", 300)};
  ConfigSpec p;
  p.device_change = {vgpu("grid_h100-40c"), vgpu("grid_h100-40c")};
  const Change c = compute_change(vm, p);
  REQUIRE(c.spec.device_change.size() == 1);
  CHECK(c.spec.device_change[0].operation == "add");
  CHECK(c.spec.device_change[0].vgpu == "grid_h100-40c");
}

TEST_CASE("apply replaces a device whose systemId is another host's", "[analysis][apply]") {
  ConfigSpec vm;
  vm.device_change = {device("0000:1a:00.0", "2331", 4318, 204, "other-host-uuid")};
  ConfigSpec p;
  p.device_change = {device("0000:1a:00.0", "2331", 4318)};
  const Change c = compute_change(vm, p);
  REQUIRE(c.spec.device_change.size() == 2);
  CHECK(c.spec.device_change[0].operation == "remove");
  CHECK(c.spec.device_change[1].operation == "add");
}

TEST_CASE("apply sets memory and reservation from the plan, all of it reserved",
          "[analysis][apply]") {
  const Change c = compute_change(old_vm(), plan());
  CHECK(c.spec.memory_mb == 65536);
  CHECK(c.spec.memory_reservation_mb == 65536);
  CHECK(c.spec.memory_reservation_locked_to_max == true);
  CHECK(c.memory_changes);
}

TEST_CASE("apply keeps the VM's memory when the plan's is the default, reserving all of it",
          "[analysis][apply]") {
  ConfigSpec vm = old_vm();
  vm.memory_mb = 32;
  const Change c = compute_change(vm, plan(), {false, true});
  CHECK_FALSE(c.spec.memory_mb);
  CHECK(c.spec.memory_reservation_mb == 32);
  bool said = false;
  for (const auto& l : c.diff)
    said = said || (l.sign == '=' && l.what.find("memoryMB stays 32") == 0);
  CHECK(said);
}

TEST_CASE("apply leaves the firmware alone unless --firmware-change asks", "[analysis][apply]") {
  const Change kept = compute_change(old_vm(), plan());
  CHECK_FALSE(kept.spec.firmware);
  CHECK_FALSE(kept.firmware_changes);
  const Change changed = compute_change(old_vm(), plan(), {true, false});
  CHECK(changed.spec.firmware == "efi");
  CHECK(changed.firmware_changes);
}

TEST_CASE("apply sends only the extraConfig keys that differ, by case-insensitive key",
          "[analysis][apply]") {
  ConfigSpec vm = old_vm();
  extra(vm, "pciPassthru.allowPTP", "TRUE");
  const Change c = compute_change(vm, plan());
  // allowP2P is TRUE already (key case differs); allowPTP goes; 64bitMMIOSizeGB comes.
  REQUIRE(c.spec.extra_config.size() == 2);
  CHECK(c.spec.extra_config[0].key == "pciPassthru.allowPTP");
  CHECK(c.spec.extra_config[0].value.empty());
  CHECK(c.spec.extra_config[1].key == "pciPassthru.64bitMMIOSizeGB");
  CHECK(c.spec.extra_config[1].value == "256");
  // Without the key on the VM, its removal is no change.
  const Change absent = compute_change(old_vm(), plan());
  for (const auto& o : absent.spec.extra_config) CHECK(o.key != "pciPassthru.allowPTP");
}

TEST_CASE("apply finds every placeholder the plan still holds", "[analysis][apply]") {
  ConfigSpec p = plan();
  p.device_change[0].device.system_id = "<fill in: the host's system UUID>";
  extra(p, "pciPassthru.64bitMMIOSizeGB", "<fill in: size>");
  const Change c = compute_change(old_vm(), p);
  REQUIRE(c.placeholders.size() == 2);
  CHECK(c.placeholders[0].find("systemId: <fill in:") != std::string::npos);
  CHECK(c.placeholders[1].find("pciPassthru.64bitMMIOSizeGB") == 0);
  CHECK(compute_change(old_vm(), plan()).placeholders.empty());
}

TEST_CASE("apply reads a VM as a vSphere client read it, with the server's device keys",
          "[analysis][apply]") {
  const std::string dir = vmxkit::test::source_path("tests/data/vsphere/clients/");
  const ConfigSpec vm =
      vmxkit::apply::read_vm("info.xml", vmxkit::test::read_bytes(dir + "pyvmomi-configinfo.xml"));
  REQUIRE(vm.device_change.size() == 2);
  CHECK(vm.device_change[0].key == 204);
  CHECK(vm.device_change[1].key == 205);
  CHECK(vm.memory_mb == 65536);
  // A RetrievePropertiesEx answer of one VM is read the same way.
  const ConfigSpec fetched =
      vmxkit::apply::read_vm("fetch.xml", vmxkit::test::read_bytes(dir + "fetch-config.xml"));
  CHECK_FALSE(fetched.device_change.empty());
}

TEST_CASE("apply refuses a VM document without the server's device keys, or of several VMs",
          "[analysis][apply]") {
  const std::string dir = vmxkit::test::source_path("tests/data/vsphere/clients/");
  CHECK_THROWS_WITH(
      vmxkit::apply::read_vm("vm.vmx", "memsize = \"4096\"\n"),
      Catch::Contains("vm.vmx: not a vSphere XML document") && Catch::Contains("ConfigInfo"));
  CHECK_THROWS_WITH(
      vmxkit::apply::read_vm("spec.xml", vmxkit::test::read_bytes(dir + "pyvmomi-configspec.xml")),
      Catch::Contains("a ConfigSpec, not a VM's configuration"));
  CHECK_THROWS_WITH(vmxkit::apply::read_vm(
                        "two.xml", vmxkit::test::read_bytes(dir + "retrievepropertiesex-2vms.xml")),
                    Catch::Contains("two.xml: holds 2 VMs"));
}

TEST_CASE("apply reads a plan from any VM input as the ConfigSpec the outputs send",
          "[analysis][apply]") {
  const ConfigSpec p = vmxkit::apply::read_plan("plan.vmx",
                                                "memsize = \"2048\"\n"
                                                "pciPassthru0.present = \"TRUE\"\n"
                                                "pciPassthru0.id = \"0000:9a:00.0\"\n"
                                                "pciPassthru0.deviceId = \"0x2330\"\n"
                                                "pciPassthru0.vendorId = \"0x10de\"\n"
                                                "pciPassthru0.systemId = \"" +
                                                    kUuid + "\"\n");
  CHECK(p.memory_mb == 2048);
  REQUIRE(p.device_change.size() == 1);
  CHECK(p.device_change[0].device.id == "0000:9a:00.0");
  CHECK(p.device_change[0].operation == "add");
  const std::string two = vmxkit::test::read_bytes(
      vmxkit::test::source_path("tests/data/vsphere/clients/retrievepropertiesex-2vms.xml"));
  CHECK_THROWS_WITH(vmxkit::apply::read_plan("two.xml", two),
                    Catch::Contains("two.xml: a plan holds one VM; this holds 2"));
}
