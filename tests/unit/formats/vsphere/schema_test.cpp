// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/schema.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "spec_samples.h"
#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

namespace {

std::vector<SchemaProblem> validate(const std::string& xml) {
  return validate_configspec(SourceFile("spec.xml", xml));
}

std::string describe(const SourceFile& f, const SchemaProblem& p) {
  const Location l = f.location(p.span.begin);
  return std::to_string(l.line) + ":" + std::to_string(l.column) + ": " + p.message;
}

const std::string kHead =
    "<spec xmlns=\"urn:vim25\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n";

const std::string kGpu =
    "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"00000:059:00.0\"\n"
    "pciPassthru0.deviceId = \"0x20b5\"\npciPassthru0.vendorId = \"0x10de\"\n"
    "pciPassthru0.systemId = \"host-uuid\"\n";

}  // namespace

TEST_CASE("the schema is compiled in and compiles", "[spec][schema]") {
  CHECK(configspec_schema().find("targetNamespace=\"urn:vim25\"") != std::string_view::npos);
  CHECK(validate(kHead + "</spec>\n").empty());
}

TEST_CASE("every document vmxkit writes validates against the schema", "[spec][schema]") {
  const std::vector<std::string> plans = {
      test::kPlanVmx,
      kGpu,
      "pciPassthru0.present = \"TRUE\"\npciPassthru0.vgpu = \"grid_h100-80c\"\n",
      "pciPassthru0.present = \"TRUE\"\npciPassthru0.allowedDevices = "
      "\"0x10de:0x20f1,0x8086:0x1572\"\n",
      "pciPassthru7.present = \"TRUE\"\npciPassthru7.pfId = \"00000:026:00.1\"\n"
      "pciPassthru7.systemId = \"BYPASS\"\npciPassthru7.dvs.portgroupId = \"dvportgroup-75\"\n"
      "pciPassthru7.dvs.switchId = \"50 2a 9b\"\n",
      "firmware = \"bios\"\nsched.mem.pin = \"FALSE\"\nkey.with.amp = \"a&b<c>\"\n",
      "displayName = \"a&b\"\nguestOS = \"ubuntu-64\"\nnumvcpus = \"4\"\n"
      "cpuid.coresPerSocket = \"2\"\nmemsize = \"2048\"\nsched.mem.min = \"2048\"\n" +
          kGpu + "empty = \"\"\n",
      "",
  };
  for (const std::string& vmx : plans) {
    const ConfigSpec spec = from_vm_config(vmx::to_vm_config(vmx::Document::parse(vmx)));
    const std::string xml = write_configspec_xml(spec);
    const std::string soap = write_soap_envelope(spec, "vm-42");
    INFO(xml);
    CHECK(validate(xml).empty());
    CHECK(validate(soap).empty());
  }
}

TEST_CASE("schema problems are errors at the element", "[spec][schema]") {
  const std::string xml = kHead +
                          "  <deviceChange>\n"
                          "    <operation>add</operation>\n"
                          "    <device xsi:type=\"VirtualPCIPassthrough\">\n"
                          "      <key>-1</key>\n"
                          "      <backing xsi:type=\"VirtualPCIPassthroughDeviceBackingInfo\">\n"
                          "        <id>0000:3b:00.0</id>\n"
                          "        <deviceId>0x20b5</deviceId>\n"
                          "        <systemId>u</systemId>\n"
                          "        <vendorId>32902</vendorId>\n"
                          "      </backing>\n"
                          "    </device>\n"
                          "  </deviceChange>\n"
                          "</spec>\n";
  const SourceFile f("spec.xml", xml);
  const auto diags = validate_configspec(f);
  REQUIRE(diags.size() == 1);                       // libxml2 stops a sequence at its first problem
  CHECK(diags[0].span.begin == diags[0].span.end);  // at the start tag
  CHECK(describe(f, diags[0]) ==
        "7:9: not valid in vmxkit's vim25 subset: Element 'id': This element is not expected. "
        "Expected is one of ( dynamicType, dynamicProperty, deviceName )");

  const std::string bad_values =
      kHead +
      "  <deviceChange>\n"
      "    <operation>add</operation>\n"
      "    <device xsi:type=\"VirtualPCIPassthrough\">\n"
      "      <key>-1</key>\n"
      "      <backing xsi:type=\"VirtualPCIPassthroughDeviceBackingInfo\">\n"
      "        <deviceName></deviceName>\n"
      "        <id>0000:3b:00.0</id>\n"
      "        <deviceId>0x20b5</deviceId>\n"
      "        <systemId>u</systemId>\n"
      "        <vendorId>32902</vendorId>\n"
      "      </backing>\n"
      "    </device>\n"
      "  </deviceChange>\n"
      "</spec>\n";
  const SourceFile g("spec.xml", bad_values);
  const auto d2 = validate_configspec(g);
  REQUIRE(d2.size() == 2);
  CHECK(describe(g, d2[0]).rfind("9:9: ", 0) == 0);
  CHECK(d2[0].message.find("'0x20b5'") != std::string::npos);
  CHECK(describe(g, d2[1]).rfind("11:9: ", 0) == 0);
  CHECK(d2[1].message.find("'32902' is not a valid value of the atomic type 'xs:short'") !=
        std::string::npos);
}

TEST_CASE("elements out of the schema's order are reported", "[spec][schema]") {
  const std::string xml = kHead +
                          "  <firmware>efi</firmware>\n"
                          "  <extraConfig xsi:type=\"OptionValue\"><key>a</key>"
                          "<value xsi:type=\"xsd:string\">b</value></extraConfig>\n"
                          "</spec>\n";
  const SourceFile f("spec.xml", xml);
  const auto diags = validate_configspec(f);
  REQUIRE(diags.size() == 1);
  CHECK(describe(f, diags[0])
            .rfind("3:3: not valid in vmxkit's vim25 subset: Element "
                   "'extraConfig': This element is not expected",
                   0) == 0);
}

TEST_CASE("schema validation refuses a DOCTYPE before libxml2 sees it", "[spec][schema][safety]") {
  CHECK_THROWS_WITH(validate("<!DOCTYPE spec SYSTEM \"http://127.0.0.1:1/x.dtd\">\n<spec/>"),
                    Catch::Contains("DOCTYPE is not allowed"));
}

TEST_CASE("an element with 20,000 attributes is refused at its start tag before validation",
          "[spec][schema][safety]") {
  std::string attrs;
  for (int i = 0; i < 20000; ++i) attrs += " a" + std::to_string(i) + "=\"v\"";
  const std::string xml = kHead + "  <deviceChange" + attrs + ">\n" +
                          "    <operation>add</operation>\n  </deviceChange>\n</spec>\n";
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(validate(xml),
                    "spec.xml:2:3: element 'deviceChange' has more than 64 "
                    "attributes (vim25 and OVF elements have a handful)");
  // The reader refuses it too, so lint stops at once with exit 2 (libxml2 took 2.6 s to read
  // this, twice, and 12.6 s to validate it).
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "attrs.xml", xml);
  const auto r = vmxkit::test::run_cli({"lint", (dir / "attrs.xml").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("attrs.xml:2:3: element 'deviceChange' has more than 64"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  // The root element counts too, and 64 attributes are still validated.
  auto namespaces = [](int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += " xmlns:n" + std::to_string(i) + "=\"urn:n" + std::to_string(i) + "\"";
    return out;
  };
  CHECK_THROWS_WITH(validate("<spec xmlns=\"urn:vim25\"" + namespaces(64) + "/>\n"),
                    Catch::StartsWith("spec.xml:1:1: element 'spec' has more than 64 attributes"));
  CHECK(validate("<spec xmlns=\"urn:vim25\"" + namespaces(63) + "/>\n").empty());
}
