// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/vi_json.h"

#include <catch2/catch.hpp>

#include "golden.h"
#include "spec_samples.h"
#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/json.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

namespace {

JsonConfigSpec read(const std::string& text, const std::string& path = "spec.json") {
  return read_vi_json(SourceFile(path, text));
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

JsonConfigSpec read_corpus(const std::string& name) {
  const auto path = test::corpus_dir("configspec") / name;
  return read_vi_json(SourceFile(path.string(), test::read_bytes(path)));
}

}  // namespace

TEST_CASE("the plan is written as VI/JSON with _typeName and boxed values", "[spec][json]") {
  const std::string text = write_vi_json(from_vm_config(test::plan_config()));
  test::check_golden("plan.vi.json", text);
  CHECK(text.find("\"value\": {\"_typeName\": \"string\", \"_value\": \"TRUE\"}") !=
        std::string::npos);
  CHECK(text.find("\"vendorId\": -32634") != std::string::npos);
  CHECK(text.find("\"deviceId\": \"20b5\"") != std::string::npos);
}

TEST_CASE("reading written VI/JSON and writing it again gives the same bytes", "[spec][json]") {
  const std::string text = write_vi_json(from_vm_config(test::plan_config()));
  const JsonConfigSpec back = read(text);
  CHECK(back.type_name == "VirtualMachineConfigSpec");
  CHECK(write_vi_json(back.spec) == text);
  CHECK(write_vi_json(from_vm_config(to_vm_config(back.spec))) == text);
}

TEST_CASE("VI/JSON and XML of one plan read as the same settings", "[spec][json]") {
  const VmConfig a = to_vm_config(read(write_vi_json(from_vm_config(test::plan_config()))).spec);
  CHECK(a.get("pciPassthru0.id") == "00000:059:00.0");
  CHECK(a.get("pciPassthru1.vendorId") == "0x8086");
  CHECK(a.get("pciPassthru3.allowedDevices") == "0x10de:0x20f1");
  CHECK(a.get("pciPassthru.64bitMMIOSizeGB") == "256");
  CHECK(a.memory_pinned());
}

TEST_CASE("the ReconfigVM_Task body form with a spec member is read too", "[spec][json]") {
  const auto r =
      read("{\"spec\": {\"_typeName\": \"VirtualMachineConfigSpec\", \"firmware\": \"efi\"}}");
  CHECK(r.spec.firmware == "efi");
}

TEST_CASE("govmomi's VirtualMachineConfigInfo vectors read, in any member order",
          "[spec][json][corpus]") {
  const JsonConfigSpec a = read_corpus("govmomi_vminfo_VirtualMachineConfigInfo_vsphere_json.json");
  const JsonConfigSpec b = read_corpus("govmomi_vminfo_typename_at_end.json");
  CHECK(a.type_name == "VirtualMachineConfigInfo");
  CHECK(b.type_name == "VirtualMachineConfigInfo");
  const VmConfig ca = to_vm_config(a.spec);
  const VmConfig cb = to_vm_config(b.spec);
  CHECK(ca.get("nvram") == "test.nvram");
  CHECK(ca.get("svga.present") == "TRUE");
  CHECK(ca.firmware() == "bios");
  CHECK(ca.memory_mb() == 2048);
  CHECK(ca.get("sched.mem.pin") == "FALSE");
  CHECK(ca.passthrough_devices().empty());
  REQUIRE(ca.settings.size() == cb.settings.size());
  for (std::size_t i = 0; i < ca.settings.size(); ++i) {
    CHECK(ca.settings[i].key == cb.settings[i].key);
    CHECK(ca.settings[i].value == cb.settings[i].value);
  }
  // Spans point at the JSON values.
  const auto path =
      test::corpus_dir("configspec") / "govmomi_vminfo_VirtualMachineConfigInfo_vsphere_json.json";
  const std::string bytes = test::read_bytes(path);
  const Setting* nvram = ca.find("nvram");
  CHECK(bytes.substr(nvram->value_span.begin, nvram->value_span.end - nvram->value_span.begin) ==
        "\"test.nvram\"");
}

TEST_CASE("the invalid _typeName vector is rejected at the value", "[spec][json][corpus]") {
  const auto path =
      test::corpus_dir("configspec") / "govmomi_vminfo_NEGATIVE_invalid_typename.json";
  try {
    read_vi_json(SourceFile(path.string(), test::read_bytes(path)));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          path.string() + ":10:27: _value of a boxed string must be a JSON string, not true");
  }
}

TEST_CASE("malformed or mistyped VI/JSON is an error with line and column", "[spec][json]") {
  CHECK(error_of("{\"_typeName\": \"VirtualMachineConfigSpec\",\n  \"memoryMB\": \"big\"\n}") ==
        "spec.json:2:15: memoryMB must be an integer, not a string");
  CHECK(error_of("{\"_typeName\": \"VirtualMachine\"}") ==
        "spec.json:1:15: expected _typeName VirtualMachineConfigSpec or VirtualMachineConfigInfo, "
        "found VirtualMachine");
  CHECK(error_of("{\"spec\": {\"extraConfig\": [{\"key\": \"a\", \"value\": {\"_typeName\": "
                 "\"str\", \"_value\": \"x\"}}]}}")
            .find("unknown boxed type \"str\"") != std::string::npos);
  CHECK(error_of(
            "{\"spec\": {\"deviceChange\": [{\"operation\": \"add\", \"device\": {\"_typeName\": "
            "\"VirtualPCIPassthrough\", \"key\": -1, \"backing\": {\"_typeName\": "
            "\"VirtualPCIPassthroughDeviceBackingInfo\", \"vendorId\": \"0x10de\"}}}]}}")
            .find("vendorId must be a PCI vendor id as a short number") != std::string::npos);
  CHECK(error_of("{\"a\": [1, 2,]}") == "spec.json:1:13: expected a JSON value");
  CHECK(error_of("{\"a\": \"x") == "spec.json:1:7: unterminated string");
  CHECK(error_of("{} x") == "spec.json:1:4: unexpected text after the JSON value");
  CHECK(error_of(std::string(100, '[') + std::string(100, ']')).find("deeper than 64") !=
        std::string::npos);
  CHECK(error_of("").find("unexpected end of document") != std::string::npos);
  CHECK(error_of("{\"a\": 01}").find("expected ',' or '}'") != std::string::npos);
}

TEST_CASE("JSON strings decode escapes and surrogate pairs", "[spec][json]") {
  const auto v = json::parse(SourceFile("x.json", "[\"a\\u00e9\\ud83d\\ude00\\n\", -1.5e3]"));
  REQUIRE(v.items.size() == 2);
  CHECK(v.items[0].text == "a\xc3\xa9\xf0\x9f\x98\x80\n");
  CHECK(v.items[1].text == "-1.5e3");
  CHECK_THROWS_AS(json::parse(SourceFile("x.json", "[\"\\ud83d\"]")), Error);
}

TEST_CASE("a JSON document that is not a typed vSphere object is refused at its start",
          "[spec][json]") {
  // An object without _typeName used to read as an empty ConfigSpec: "No problems found".
  CHECK(error_of("{\"foo\":1}") ==
        "spec.json:1:1: a JSON object without _typeName: not a vSphere document (expected "
        "_typeName VirtualMachineConfigSpec or VirtualMachineConfigInfo, or a ReconfigVM_Task "
        "body {\"spec\": ...})");
  CHECK(
      error_of("{\"memoryMB\": 4096}").rfind("spec.json:1:1: a JSON object without _typeName", 0) ==
      0);
  CHECK(error_of("[{\"_typeName\": \"VirtualMachineConfigSpec\"}]")
            .rfind("spec.json:1:1: a JSON document whose top level is an array, not an object",
                   0) == 0);
  CHECK(error_of("42").rfind("spec.json:1:1: a JSON document whose top level is the number 42",
                             0) == 0);
  // The ReconfigVM_Task body holds the request's parameters only.
  CHECK(error_of("{\"spec\": {\"firmware\": \"efi\"}, \"vm\": \"vm-1\"}") ==
        "spec.json:1:31: \"vm\" is not a member of ReconfigVMRequestType");
  CHECK(error_of("{\"spec\": {\"_typeName\": \"VirtualMachineConfigInfo\"}}") ==
        "spec.json:1:24: expected _typeName VirtualMachineConfigSpec, found "
        "VirtualMachineConfigInfo");
  CHECK(
      read("{\"_this\": {\"_typeName\": \"ManagedObjectReference\", \"type\": \"VirtualMachine\", "
           "\"_value\": \"vm-1\"}, \"spec\": {\"firmware\": \"efi\"}}")
          .spec.firmware == "efi");
}

TEST_CASE("a member given twice is an error at the second one", "[spec][json]") {
  // Readers disagree on which one counts (vmxkit took the first, silently).
  CHECK(
      error_of(
          "{\"_typeName\": \"VirtualMachineConfigSpec\",\n \"memoryMB\": 1,\n \"memoryMB\": 2}") ==
      "spec.json:3:2: duplicate member \"memoryMB\" (first at line 2, column 2): a member may "
      "appear once per object");
  // Objects large enough for the hash index too.
  std::string many =
      "{\"_typeName\": \"VirtualMachineConfigInfo\", \"extraConfig\": [{\"key\": \"k\"";
  for (int i = 0; i < 40; ++i) many += ", \"m" + std::to_string(i) + "\": 0";
  many += ", \"m7\": 1}]}";
  CHECK_THROWS_WITH(json::parse(SourceFile("m.json", many)),
                    Catch::Contains("duplicate member \"m7\" (first at line 1, column"));
}

TEST_CASE("names that are no member of the vSphere type are refused, real members are accepted",
          "[spec][json]") {
  const std::string head = "{\"_typeName\": \"VirtualMachineConfigSpec\", ";
  CHECK(error_of(head + "\"memoryMb\": 4096}") ==
        "spec.json:1:43: \"memoryMb\" is not a member of VirtualMachineConfigSpec (did you mean "
        "\"memoryMB\"?)");
  CHECK(error_of(head + "\"extraConfig\": [{\"_typeName\": \"OptionValue\", \"key\": \"a\", "
                        "\"vaule\": \"x\"}]}") ==
        "spec.json:1:100: \"vaule\" is not a member of OptionValue");
  CHECK(error_of(head + "\"memoryAllocation\": {\"reservaton\": 4096}}")
            .find("\"reservaton\" is not a member of ResourceAllocationInfo") != std::string::npos);
  CHECK(error_of(head + "\"deviceChange\": [{\"operation\": \"add\", \"device\": {\"_typeName\": "
                        "\"VirtualPCIPassthrough\", \"key\": -1, \"backing\": {\"_typeName\": "
                        "\"VirtualPCIPassthroughVmiopBackingInfo\", \"vGpu\": \"grid\"}}}]}")
            .find("\"vGpu\" is not a member of VirtualPCIPassthroughVmiopBackingInfo (did you mean "
                  "\"vgpu\"?)") != std::string::npos);
  CHECK(error_of(head + "\"extraConfig\": [{\"key\": \"a\", \"value\": {\"_typeName\": \"string\", "
                        "\"_value\": \"x\", \"extra\": 1}}]}")
            .find("\"extra\" in a boxed value") != std::string::npos);
  // Members vSphere has and vmxkit does not model are not its business.
  const auto r = read(head +
                      "\"cpuHotAddEnabled\": true, \"annotation\": \"x\", \"virtualNuma\": "
                      "{\"_typeName\": \"VirtualMachineVirtualNuma\"}, \"dynamicType\": \"\", "
                      "\"memoryMB\": 8}");
  CHECK(r.spec.memory_mb == 8);
}

TEST_CASE("a device type that is no VirtualDevice is an error, other devices are skipped",
          "[spec][json]") {
  const std::string head =
      "{\"_typeName\": \"VirtualMachineConfigSpec\", \"deviceChange\": "
      "[{\"operation\": \"add\", \"device\": {\"_typeName\": ";
  // A misspelt passthrough device used to be skipped as "not passthrough".
  CHECK(error_of(head + "\"VirtualPCIPasthrough\", \"key\": -1}}]}") ==
        "spec.json:1:105: unknown device type VirtualPCIPasthrough: not a vSphere VirtualDevice "
        "(VirtualPCIPassthrough, VirtualDisk, ...)");
  CHECK(read(head + "\"VirtualDisk\", \"key\": -1, \"capacityInKB\": 1}}]}")
            .spec.device_change.empty());
  CHECK(error_of(head + "\"VirtualPCIPassthrough\", \"key\": -1, \"bakcing\": {}}}]}")
            .find("\"bakcing\" is not a member of VirtualPCIPassthrough") != std::string::npos);
}

TEST_CASE("invalid UTF-8 in a JSON string is an error at its byte", "[spec][json]") {
  // It used to pass into the output, which other JSON readers then refuse.
  CHECK(error_of("{\"_typeName\": \"VirtualMachineConfigSpec\", \"firmware\": \"ef\xe9\"}") ==
        "spec.json:1:58: invalid UTF-8 in a string (byte 0xE9): JSON text must be UTF-8; save the "
        "file as UTF-8");
  CHECK_THROWS_WITH(json::parse(SourceFile("x.json", "[\"\xed\xa0\x80\"]")),
                    Catch::StartsWith("x.json:1:3: invalid UTF-8"));
  CHECK(json::parse(SourceFile("x.json", "[\"caf\xc3\xa9\"]")).items[0].text == "caf\xc3\xa9");
  // The writer refuses what it cannot write as JSON.
  ConfigSpec s;
  s.extra_config.push_back({"k", "caf\xe9", "string", {}, {}, {}});
  CHECK_THROWS_WITH(write_vi_json(s), Catch::Contains("value \"caf\\xE9\" is not valid UTF-8"));
}

TEST_CASE("name, guestId, CPUs, cores per socket and the memory reservation map both ways",
          "[spec][json]") {
  const VmConfig vmx = vmx::to_vm_config(vmx::Document::parse(
      "displayName = \"gpu-vm\"\nguestOS = \"ubuntu-64\"\nnumvcpus = \"16\"\n"
      "cpuid.coresPerSocket = \"8\"\nmemsize = \"4096\"\nsched.mem.min = \"4096\"\n"));
  const ConfigSpec spec = from_vm_config(vmx);
  CHECK(spec.not_sent.empty());
  CHECK(spec.extra_config.empty());
  const std::string text = write_vi_json(spec);
  CHECK(text.find("\"name\": \"gpu-vm\",\n  \"guestId\": \"ubuntu-64\",\n  \"numCPUs\": 16,\n"
                  "  \"numCoresPerSocket\": 8,\n  \"memoryMB\": 4096,\n  \"memoryAllocation\": "
                  "{\"_typeName\": \"ResourceAllocationInfo\", \"reservation\": 4096}") !=
        std::string::npos);
  const VmConfig back = to_vm_config(read(text).spec);
  REQUIRE(back.settings.size() == vmx.settings.size());
  for (std::size_t i = 0; i < vmx.settings.size(); ++i) {
    CHECK(back.settings[i].key == vmx.settings[i].key);
    CHECK(back.settings[i].value == vmx.settings[i].value);
  }
  CHECK(back.memory_fully_reserved());
}

TEST_CASE("a ConfigInfo's name, guest, hardware CPUs and memory reservation are settings",
          "[spec][json][corpus]") {
  const VmConfig c =
      to_vm_config(read_corpus("govmomi_vminfo_VirtualMachineConfigInfo_vsphere_json.json").spec);
  CHECK(c.get("displayName") == "test");
  CHECK(c.get("guestOS") == "vmwarePhoton64Guest");
  CHECK(c.get("numvcpus") == "1");
  CHECK(c.get("cpuid.coresPerSocket") == "1");
  CHECK(c.get("sched.mem.min") == "0");
  CHECK(c.settings.front().key == "displayName");
}
