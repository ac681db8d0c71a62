// SPDX-License-Identifier: Apache-2.0
// vmxkit convert through the command line, in-process.
#include <catch2/catch.hpp>

#include "support/support.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

const std::string kVm =
    "memsize = \"65536\"\n"
    "pciPassthru0.present = \"TRUE\"\n"
    "pciPassthru0.id = \"00000:059:00.0\"\n"
    "pciPassthru0.deviceId = \"0x20b5\"\n"
    "pciPassthru0.vendorId = \"0x10de\"\n"
    "pciPassthru0.systemId = \"host-uuid\"\n"
    "pciPassthru.allowP2P = \"TRUE\"\n"
    "firmware = \"efi\"\n"
    "sched.mem.pin = \"TRUE\"\n";

}  // namespace

TEST_CASE("convert turns a vmx into a ConfigSpec and back", "[cli][convert]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "vm.vmx", kVm);
  auto r = run_cli({"convert", (dir / "vm.vmx").string(), "--to", "configspec-xml"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("<id>0000:3b:00.0</id>") != std::string::npos);
  CHECK(r.out.find("<vendorId>4318</vendorId>") != std::string::npos);
  write_bytes(dir / "spec.xml", r.out);
  r = run_cli({"convert", (dir / "spec.xml").string(), "--to", "vmx"});
  REQUIRE(r.code == 0);
  CHECK(r.out == kVm);
}

TEST_CASE("convert writes VI/JSON to a file with -o and reads it from stdin", "[cli][convert]") {
  vmxkit::test::TempDir dir;
  auto r = run_cli({"convert", "-", "--to", "vi-json", "-o", (dir / "spec.json").string()}, kVm);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  const std::string json = read_bytes(dir / "spec.json");
  CHECK(json.find("\"_typeName\": \"VirtualMachineConfigSpec\"") != std::string::npos);
  r = run_cli({"convert", (dir / "spec.json").string(), "--to", "vmx"});
  CHECK(r.code == 0);
  CHECK(r.out == kVm);
}

TEST_CASE("convert --envelope wraps the spec for a VM moref", "[cli][convert]") {
  auto r = run_cli({"convert", "-", "--to", "configspec-xml", "--envelope", "--vm", "vm-77"}, kVm);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("<_this type=\"VirtualMachine\">vm-77</_this>") != std::string::npos);
  r = run_cli({"convert", "-", "--to", "soap"}, kVm);
  CHECK(r.code == 2);
  CHECK(r.err.find("needs the VM's moref (--vm vm-123)") != std::string::npos);
}

TEST_CASE("convert renders govc and PowerCLI scripts", "[cli][convert]") {
  auto r = run_cli({"convert", "-", "--to", "govc"}, kVm);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("govc device.pci.add -vm \"$VM\" '0000:3b:00.0'") != std::string::npos);
  CHECK(r.out.find("-e 'pciPassthru.allowP2P=TRUE'") != std::string::npos);
  CHECK(r.out.find("-memory-pin=true") != std::string::npos);
  r = run_cli({"convert", "-", "--to", "powercli"}, kVm);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("New-AdvancedSetting -Entity $vm -Name 'pciPassthru.allowP2P' -Value 'TRUE'") !=
        std::string::npos);
  CHECK(r.out.find("(Get-View -Id $vm.Id).ReconfigVM($spec)") != std::string::npos);
}

TEST_CASE("convert reports bad input with file:line:col and exit 2", "[cli][convert]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "bad.json", "{\n  \"memoryMB\": true\n}\n");
  auto r = run_cli({"convert", (dir / "bad.json").string(), "--to", "vmx"});
  CHECK(r.code == 2);
  CHECK(r.err.find("bad.json:2:15: memoryMB must be an integer, not true") != std::string::npos);
  r = run_cli({"convert", (dir / "bad.json").string(), "--to", "yaml"});
  CHECK(r.code == 2);
  r = run_cli({"convert", (dir / "missing.vmx").string(), "--to", "vmx"});
  CHECK(r.code == 2);
}

TEST_CASE("convert warns about schema problems and still converts", "[cli][convert]") {
  const std::string xml =
      "<spec xmlns=\"urn:vim25\">\n  <firmware>efi</firmware>\n  <memoryMB>8</memoryMB>\n</spec>\n";
  const auto r = run_cli({"convert", "-", "--to", "vmx"}, xml);
  CHECK(r.code == 0);
  CHECK(r.out == "memsize = \"8\"\nfirmware = \"efi\"\n");
  CHECK(r.err.find("<stdin>:3:3: warning: not valid in vmxkit's vim25 subset") != std::string::npos);
}

TEST_CASE("convert picks one VirtualSystem of a multi-VM OVF", "[cli][convert][corpus]") {
  const auto path =
      vmxkit::test::corpus_dir("configspec") / "ovf_govmomi_nested_esxi_vsan_extraconfig.ovf";
  auto r = run_cli({"convert", path.string(), "--to", "vmx"});
  CHECK(r.code == 2);
  CHECK(r.err.find("pick one with --system") != std::string::npos);
}
