// SPDX-License-Identifier: Apache-2.0
// vmxkit convert through the command line, in-process.
#include <catch2/catch.hpp>
#include <filesystem>

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
  CHECK(r.out.find("(New-Object VMware.Vim.OptionValue -Property @{Key = 'pciPassthru.allowP2P'; "
                   "Value = 'TRUE'})") != std::string::npos);
  CHECK(r.out.find("(Get-View -Id $vm.Id).ReconfigVM($spec)") != std::string::npos);
}

TEST_CASE("convert reports bad input with file:line:col and exit 2", "[cli][convert]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "bad.json",
              "{\"_typeName\": \"VirtualMachineConfigSpec\",\n  \"memoryMB\": true\n}\n");
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
  CHECK(r.err.find("<stdin>:3:3: warning: not valid in vmxkit's vim25 subset") !=
        std::string::npos);
}

TEST_CASE("convert keeps OVF device groups in the ConfigSpec outputs, and says a .vmx drops them",
          "[cli][convert]") {
  // The form of govmomi's ovf/fixtures/external/vdg-vm.ovf: a group and two member items.
  const std::string ovf =
      read_bytes(vmxkit::test::source_path("tests/data/vsphere/ovf/sriov-device-groups.ovf"));
  const std::string dropped =
      "vmxkit: warning: <stdin>:9:5: device group 'gpu-nic' (groupInstanceKey 0, 2 members) is "
      "not converted";
  const auto vmx = run_cli({"convert", "-", "--to", "vmx"}, ovf);
  CHECK(vmx.code == 0);
  CHECK(vmx.out.find("grid_h100-80c") != std::string::npos);
  CHECK(vmx.err.find(dropped) != std::string::npos);

  const auto xml = run_cli({"convert", "-", "--to", "configspec-xml"}, ovf);
  CHECK(xml.code == 0);
  CHECK(xml.err.find("device group") == std::string::npos);
  CHECK(xml.err.find("XML001") == std::string::npos);
  // The group, with a temporary key, and both members pointing at it in their order.
  CHECK(xml.out.find(
            "    <deviceGroup xsi:type=\"VirtualMachineVirtualDeviceGroupsVendorDeviceGroup\">\n"
            "      <groupInstanceKey>-1</groupInstanceKey>\n"
            "      <deviceInfo xsi:type=\"Description\">\n"
            "        <label>Device Group 0</label>\n"
            "        <summary>Vendor Device Group</summary>\n"
            "      </deviceInfo>\n"
            "      <deviceGroupName>gpu-nic</deviceGroupName>\n") != std::string::npos);
  for (const char* seq : {"0", "1"}) {
    CHECK(xml.out.find(std::string("<deviceGroupInfo xsi:type=\"VirtualDeviceDeviceGroupInfo\">\n"
                                   "        <groupInstanceKey>-1</groupInstanceKey>\n"
                                   "        <sequenceId>") +
                       seq + "</sequenceId>") != std::string::npos);
  }
  // What was written reads back with the same group, and lints without schema problems.
  const auto back = run_cli({"convert", "-", "--to", "vi-json"}, xml.out);
  CHECK(back.code == 0);
  CHECK(back.err.empty());
  CHECK(back.out.find("\"deviceGroupName\": \"gpu-nic\"") != std::string::npos);
  const auto again = run_cli({"convert", "-", "--to", "configspec-xml"}, back.out);
  CHECK(again.out == xml.out);
}

TEST_CASE("convert picks one VirtualSystem of a multi-VM OVF", "[cli][convert][corpus]") {
  const auto path =
      vmxkit::test::corpus_dir("configspec") / "ovf_govmomi_nested_esxi_vsan_extraconfig.ovf";
  auto r = run_cli({"convert", path.string(), "--to", "vmx"});
  CHECK(r.code == 2);
  CHECK(r.err.find("pick one with --system") != std::string::npos);
}

TEST_CASE("convert refuses a vmx with unreadable lines, naming each, and writes nothing",
          "[cli][convert]") {
  // It used to write an empty <spec> and exit 0.
  vmxkit::test::TempDir dir;
  const auto out = dir / "spec.xml";
  const auto r = run_cli({"convert", "-", "--to", "configspec-xml", "-o", out.string()},
                         "memsize = \"4096\nfirmware efi\nnumvcpus = \"2\"\n");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(out));
  CHECK(r.err.find("<stdin>:1:11: error: ") != std::string::npos);
  CHECK(r.err.find("<stdin>:2:9: error: ") != std::string::npos);
  CHECK(r.err.find("vmxkit: error: <stdin>: not converted: 2 lines VMware cannot read (fix them; "
                   "nothing was written)") != std::string::npos);
}

TEST_CASE("convert refuses UTF-16 text and a JSON document that is not an object",
          "[cli][convert]") {
  vmxkit::test::TempDir dir;
  const std::string xml = "<spec xmlns=\"urn:vim25\"><memoryMB>4</memoryMB></spec>\n";
  std::string utf16 = "\xFF\xFE";
  for (const char c : xml) utf16 += std::string{c, '\0'};
  write_bytes(dir / "wide.xml", utf16);
  auto r = run_cli({"convert", (dir / "wide.xml").string(), "--to", "vmx"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("wide.xml:1:1: UTF-16 text: save it as UTF-8") != std::string::npos);
  write_bytes(dir / "n.json", "42\n");
  r = run_cli({"convert", (dir / "n.json").string(), "--to", "vmx"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("n.json:1:1: a JSON document whose top level is the number 42, not an object") !=
        std::string::npos);
  r = run_cli({"lint", "-"}, "{\"foo\":1}");
  CHECK(r.code == 2);
  CHECK(r.err.find("<stdin>:1:1: a JSON object without _typeName: not a vSphere document") !=
        std::string::npos);
}

TEST_CASE("convert names the place of a value that does not convert", "[cli][convert]") {
  auto r = run_cli({"convert", "-", "--to", "configspec-xml"},
                   "firmware = \"efi\"\nmemsize = \"abc\"\n");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "vmxkit: error: <stdin>:2:12: memsize = \"abc\": expected a memory size in MB\n");
  r = run_cli({"convert", "-", "--to", "vi-json"},
              "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"3b:00.0x\"\n");
  CHECK(r.code == 2);
  CHECK(r.err.find("<stdin>:2:20: pciPassthru0.id = \"3b:00.0x\": expected a PCI address") !=
        std::string::npos);
  // A NUL (|00) in the value is shown, not the end of the message.
  r = run_cli({"convert", "-", "--to", "govc"}, "memsize = \"4|0096\"\n");
  CHECK(r.code == 2);
  CHECK(r.err ==
        "vmxkit: error: <stdin>:1:12: memsize = \"4\\x0096\": expected a memory size in "
        "MB\n");
}

TEST_CASE("convert keeps the name, guest, CPUs and memory reservation through ConfigSpec",
          "[cli][convert]") {
  // sched.mem.min and numvcpus were "not sent": the converted VM then failed PT008.
  const std::string vmx =
      "displayName = \"gpu-vm\"\n"
      "guestOS = \"ubuntu-64\"\n"
      "numvcpus = \"16\"\n"
      "cpuid.coresPerSocket = \"8\"\n"
      "memsize = \"65536\"\n"
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"00000:059:00.0\"\n"
      "pciPassthru0.deviceId = \"0x20b5\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru0.systemId = \"host-uuid\"\n"
      "sched.mem.min = \"65536\"\n";
  vmxkit::test::TempDir dir;
  for (const char* to : {"configspec-xml", "vi-json"}) {
    INFO(to);
    const auto spec = dir / (std::string("spec.") + to);
    auto r = run_cli({"convert", "-", "--to", to, "-o", spec.string()}, vmx);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());  // nothing "not sent"
    r = run_cli({"lint", spec.string(), "--fail-on", "error"});
    CHECK(r.out.find("PT008") == std::string::npos);
    r = run_cli({"convert", spec.string(), "--to", "vmx"});
    REQUIRE(r.code == 0);
    CHECK(r.out == vmx);
  }
  // No govc command sets numCoresPerSocket: the script refuses before it changes anything.
  const auto r = run_cli({"convert", "-", "--to", "govc"}, vmx);
  CHECK(r.out.find("cpuid.coresPerSocket = 8: govc vm.change has no flag for "
                   "numCoresPerSocket") != std::string::npos);
  CHECK(r.out.find("exit 1\n") != std::string::npos);
  CHECK(r.out.find("govc vm.change -vm") == std::string::npos);
  const auto ps = run_cli({"convert", "-", "--to", "powercli"}, vmx);
  CHECK(ps.out.find("$spec.NumCPUs = 16\n$spec.NumCoresPerSocket = 8\n") != std::string::npos);
  CHECK(ps.out.find("$spec.MemoryAllocation.Reservation = 65536\n") != std::string::npos);
}

TEST_CASE("convert keeps an empty extraConfig value and notes that vSphere removes the key",
          "[cli][convert]") {
  // It used to vanish from the .vmx without a word.
  const std::string json =
      "{\"_typeName\": \"VirtualMachineConfigSpec\", \"extraConfig\": [{\"_typeName\": "
      "\"OptionValue\", \"key\": \"pciPassthru.allowP2P\", \"value\": {\"_typeName\": \"string\", "
      "\"_value\": \"\"}}], \"firmware\": \"efi\"}";
  auto r = run_cli({"convert", "-", "--to", "vmx"}, json);
  REQUIRE(r.code == 0);
  CHECK(r.out == "pciPassthru.allowP2P = \"\"\nfirmware = \"efi\"\n");
  CHECK(r.err ==
        "vmxkit: note: written as key = \"\" from an empty extraConfig value, with which "
        "vSphere removes the key: pciPassthru.allowP2P\n");
  r = run_cli({"convert", "-", "--to", "vi-json"}, json);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());  // the same removal, in the same format family
  CHECK(r.out.find("\"_value\": \"\"") != std::string::npos);
  r = run_cli({"convert", "-", "--to", "configspec-xml"}, "a = \"\"\nb = \"1\"\n");
  REQUIRE(r.code == 0);
  CHECK(r.err ==
        "vmxkit: note: sent as extraConfig with an empty value, which makes vSphere "
        "remove the key: a\n");
}

TEST_CASE("convert maps vhv.enable and sched.mem.max to nestedHVEnabled and the memory limit",
          "[cli][convert]") {
  // vSphere ignores extraConfig keys that clash with ConfigSpec fields: these two must be sent
  // as their fields, and read back from them.
  const std::string vm = kVm + "vhv.enable = \"TRUE\"\nsched.mem.max = \"-1\"\n";
  vmxkit::test::TempDir dir;
  write_bytes(dir / "vm.vmx", vm);
  for (const std::string to : {"configspec-xml", "vi-json"}) {
    INFO(to);
    auto r = run_cli({"convert", (dir / "vm.vmx").string(), "--to", to});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("vhv.enable") == std::string::npos);
    CHECK(r.out.find("sched.mem.max") == std::string::npos);
    if (to == "configspec-xml") {
      CHECK(r.out.find("<limit>-1</limit>") != std::string::npos);
      CHECK(r.out.find("<nestedHVEnabled>true</nestedHVEnabled>") != std::string::npos);
    } else {
      CHECK(r.out.find("\"limit\": -1") != std::string::npos);
      CHECK(r.out.find("\"nestedHVEnabled\": true") != std::string::npos);
    }
    const std::string spec = (dir / ("spec." + std::string(to == "vi-json" ? "json" : "xml")));
    write_bytes(spec, r.out);
    r = run_cli({"convert", spec, "--to", "vmx"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("sched.mem.max = \"-1\"\n") != std::string::npos);
    CHECK(r.out.find("vhv.enable = \"TRUE\"\n") != std::string::npos);
  }
  const auto govc = run_cli({"convert", (dir / "vm.vmx").string(), "--to", "govc"});
  CHECK(govc.out.find(" -mem.limit -1 -nested-hv-enabled=true") != std::string::npos);
  const auto ps = run_cli({"convert", (dir / "vm.vmx").string(), "--to", "powercli"});
  CHECK(ps.out.find("$spec.MemoryAllocation.Limit = -1\n") != std::string::npos);
  CHECK(ps.out.find("$spec.NestedHVEnabled = $true\n") != std::string::npos);
}

TEST_CASE("a key or value an output cannot carry is named at its file, line and column",
          "[cli][convert][generate]") {
  // The writers refused such values without a place: `value "x\xFFy" is not valid UTF-8`.
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "vm.vmx").string();
  write_bytes(path, kVm + "bad = \"x\xFFy\"\n");  // line 10; 0xFF is its 9th byte
  for (const std::string to : {"vi-json", "configspec-xml", "soap", "terraform", "vmclass"}) {
    INFO(to);
    const auto r = run_cli({"convert", path, "--to", to, "--vm", "vm-1"});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(path + ":10:9: ") && Catch::Contains("UTF-8"));
    CHECK(r.out.empty());
  }
  // A key, and a control byte XML cannot carry (written |01 in the .vmx: at the value's start).
  write_bytes(path, kVm + "k\xC3y = \"1\"\n");
  auto r = run_cli({"convert", path, "--to", "vi-json"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ":10:2: ") && Catch::Contains("UTF-8"));
  write_bytes(path, kVm + "ctl = \"a|01b\"\n");
  r = run_cli({"convert", path, "--to", "configspec-xml"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ":10:8: ") && Catch::Contains("control byte 0x01"));
  // The .vmx keeps the bytes as they are.
  CHECK(run_cli({"convert", path, "--to", "vmx"}).code == 0);

  // generate --base names the place in the base file.
  write_bytes(path, "firmware = \"efi\"\nbad = \"x\xFFy\"\n");
  const std::string host =
      vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string();
  r = run_cli({"generate", "--host", host, "--gpu", "auto", "--base", path, "--format", "vi-json"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ":2:9: ") && Catch::Contains("UTF-8"));
}
