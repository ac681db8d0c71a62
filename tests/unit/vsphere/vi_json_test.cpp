// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/vi_json.h"

#include <catch2/catch.hpp>

#include "golden.h"
#include "spec_samples.h"
#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/vsphere/configspec.h"
#include "vmxkit/vsphere/json.h"

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

TEST_CASE("the ReconfigVM_Task body form {\"spec\": ...} is read too", "[spec][json]") {
  const auto r = read("{\"spec\": {\"_typeName\": \"VirtualMachineConfigSpec\", \"firmware\": \"efi\"}}");
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
  const auto path = test::corpus_dir("configspec") /
                    "govmomi_vminfo_VirtualMachineConfigInfo_vsphere_json.json";
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
  CHECK(error_of("{\n  \"memoryMB\": \"big\"\n}") ==
        "spec.json:2:15: memoryMB must be an integer, not a string");
  CHECK(error_of("{\"_typeName\": \"VirtualMachine\"}") ==
        "spec.json:1:15: expected _typeName VirtualMachineConfigSpec or VirtualMachineConfigInfo, "
        "found VirtualMachine");
  CHECK(error_of("{\"extraConfig\": [{\"key\": \"a\", \"value\": {\"_typeName\": \"str\", "
                 "\"_value\": \"x\"}}]}")
            .find("unknown boxed type 'str'") != std::string::npos);
  CHECK(error_of("{\"deviceChange\": [{\"operation\": \"add\", \"device\": {\"_typeName\": "
                 "\"VirtualPCIPassthrough\", \"key\": -1, \"backing\": {\"_typeName\": "
                 "\"VirtualPCIPassthroughDeviceBackingInfo\", \"vendorId\": \"0x10de\"}}}]}")
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
