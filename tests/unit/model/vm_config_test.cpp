// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/model/vm_config.h"

#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/formats/vmx/document.h"

using namespace vmxkit;

TEST_CASE("booleans parse as VMware writes and accepts them", "[vmx][config]") {
  for (const char* t : {"TRUE", "true", "True", "1", "yes", "YES"}) CHECK(parse_bool(t) == true);
  for (const char* f : {"FALSE", "false", "0", "no"}) CHECK(parse_bool(f) == false);
  for (const char* bad : {"", "TRUE ", "tru", "2", "\xe2\x80\x9dTRUE\xe2\x80\x9d"}) {
    CHECK_FALSE(parse_bool(bad).has_value());
  }
}

TEST_CASE("integers parse in decimal and 0x hex", "[vmx][config]") {
  CHECK(parse_int("4096") == 4096);
  CHECK(parse_int("0x10de") == 0x10de);
  CHECK_FALSE(parse_int("12GB").has_value());
  CHECK_FALSE(parse_int("").has_value());
  CHECK_FALSE(parse_int("0x").has_value());
}

TEST_CASE("passthrough devices are grouped by index and typed", "[vmx][config]") {
  const auto doc = vmx::Document::parse(
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"00000:101:00.0\"\n"
      "pciPassthru0.deviceId = \"0x2331\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru.use64bitMMIO = \"TRUE\"\n"
      "PCIPASSTHRU12.present = \"TRUE\"\n"
      "pciPassthru12.systemId = \"BYPASS\"\n"
      "pciPassthru12.pfId = \"00000:026:00.1\"\n"
      "pciPassthru3.present = \"FALSE\"\n"
      "pciPassthru3.vgpu = \"grid_a100-40c\"\n"
      "memsize = \"65536\"\nsched.mem.min = \"65536\"\nfirmware = \"efi\"\n");
  const VmConfig cfg = vmx::to_vm_config(doc);
  const auto devices = cfg.passthrough_devices();
  REQUIRE(devices.size() == 3);
  CHECK(devices[0].index == 0);
  CHECK(devices[0].present);
  CHECK(devices[0].kind() == PassthroughKind::directpath);
  CHECK(*devices[0].device_id == "0x2331");
  CHECK(devices[0].settings.size() == 4);
  CHECK(devices[1].index == 3);
  CHECK_FALSE(devices[1].present);
  CHECK(devices[1].kind() == PassthroughKind::vgpu);
  CHECK(devices[2].index == 12);
  CHECK(devices[2].kind() == PassthroughKind::sriov_vf);
  CHECK(cfg.get_bool("pciPassthru.use64BitMMIO") == true);
  CHECK(cfg.firmware() == "efi");
  CHECK(cfg.memory_mb() == 65536);
  CHECK(cfg.memory_fully_reserved());
}

TEST_CASE("memory is fully reserved by pinning or a reservation of all of memsize",
          "[vmx][config]") {
  auto cfg = [](const char* text) { return vmx::to_vm_config(vmx::Document::parse(text)); };
  CHECK_FALSE(cfg("memsize = \"8192\"\n").memory_fully_reserved());
  CHECK_FALSE(cfg("memsize = \"8192\"\nsched.mem.min = \"4096\"\n").memory_fully_reserved());
  CHECK(cfg("memsize = \"8192\"\nsched.mem.minSize = \"8192\"\n").memory_fully_reserved());
  CHECK(cfg("memsize = \"8192\"\nsched.mem.pin = \"TRUE\"\n").memory_fully_reserved());
}

TEST_CASE("the SR-IOV fragment from ESXi yields one DirectPath VF and five SR-IOV VFs",
          "[vmx][config][corpus]") {
  const auto path =
      test::corpus_dir("vmx") / "FRAGMENT_log_esxi_sriov_vf_BYPASS_pfId_plus_directpath_VF.vmx";
  const auto cfg = vmx::to_vm_config(vmx::Document::parse(test::read_bytes(path)));
  const auto devices = cfg.passthrough_devices();
  REQUIRE(devices.size() == 6);
  CHECK(devices[0].kind() == PassthroughKind::directpath);
  CHECK(*devices[0].vendor_id == "0x15b3");
  for (std::size_t i = 1; i < devices.size(); ++i) {
    CHECK(devices[i].kind() == PassthroughKind::sriov_vf);
    CHECK(devices[i].index == 26 + i);
  }
}
