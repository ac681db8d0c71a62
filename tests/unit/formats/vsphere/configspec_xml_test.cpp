// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/configspec_xml.h"

#include <catch2/catch.hpp>

#include "golden.h"
#include "spec_samples.h"
#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

namespace {

XmlConfigSpec read(const std::string& xml, const std::string& path = "spec.xml") {
  return read_configspec_xml(SourceFile(path, xml));
}

std::string error_of(const std::string& xml) {
  try {
    read(xml);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const std::string kHead =
    "<spec xmlns=\"urn:vim25\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n";

}  // namespace

TEST_CASE("a plan maps to a ConfigSpec with API forms of every id", "[spec][xml]") {
  const ConfigSpec s = from_vm_config(test::plan_config());
  REQUIRE(s.memory_mb == 65536);
  REQUIRE(s.device_change.size() == 5);
  const DeviceChange& gpu = s.device_change[0];
  CHECK(gpu.key == -100);
  CHECK(gpu.backing_type == BackingType::device);
  CHECK(gpu.device.id == "0000:3b:00.0");
  CHECK(gpu.device.device_id == "20b5");
  CHECK(gpu.device.vendor_id == 4318);
  CHECK(s.device_change[1].device.id == "0000:86:00.1");
  CHECK(s.device_change[1].device.vendor_id == -32634);
  CHECK(s.device_change[2].vgpu == "grid_a100-40c");
  REQUIRE(s.device_change[3].allowed_devices.size() == 1);
  CHECK(s.device_change[3].allowed_devices[0].vendor_id == 4318);
  CHECK(s.device_change[3].allowed_devices[0].device_id == 8433);
  CHECK(s.device_change[3].custom_label == "Training");
  CHECK(s.device_change[4].type == DeviceType::sriov_ethernet);
  CHECK(s.device_change[4].physical_function->id == "0000:1a:00.1");
  CHECK(s.device_change[4].network_name == "VM Network");
  REQUIRE(s.extra_config.size() == 5);
  CHECK(s.extra_config[0].key == "pciPassthru.allowP2P");
  CHECK(s.extra_config[4].key == "pciPassthru2.cfg.enable_uvm");
  CHECK(s.firmware == "efi");
  CHECK(s.memory_reservation_locked_to_max == true);
}

TEST_CASE("the ConfigSpec document is written in the schema's element order", "[spec][xml]") {
  const std::string xml = write_configspec_xml(from_vm_config(test::plan_config()));
  test::check_golden("plan.configspec.xml", xml);
  const auto at = [&](const char* s) { return xml.find(s); };
  CHECK(at("<memoryMB>") < at("<deviceChange"));
  CHECK(at("<deviceChange") < at("<extraConfig"));
  CHECK(at("<extraConfig") < at("<firmware>"));
  CHECK(at("<firmware>") < at("<memoryReservationLockedToMax>"));
  CHECK(at("<deviceName></deviceName>") < at("<id>0000:3b:00.0</id>"));
  CHECK(xml.find("<value xsi:type=\"xsd:string\">TRUE</value>") != std::string::npos);
}

TEST_CASE("the SOAP envelope wraps the spec in ReconfigVM_Task for the VM", "[spec][xml][soap]") {
  const std::string soap = write_soap_envelope(from_vm_config(test::plan_config()), "vm-123");
  test::check_golden("plan.soap.xml", soap);
  CHECK(soap.find("<_this type=\"VirtualMachine\">vm-123</_this>") < soap.find("<spec>"));
  const XmlConfigSpec back = read(soap);
  CHECK(back.envelope);
  CHECK(back.vm == "vm-123");
  CHECK(write_soap_envelope(back.spec, back.vm) == soap);
}

TEST_CASE("reading a written ConfigSpec and writing it again gives the same bytes", "[spec][xml]") {
  const std::string xml = write_configspec_xml(from_vm_config(test::plan_config()));
  const XmlConfigSpec back = read(xml);
  CHECK_FALSE(back.envelope);
  CHECK(write_configspec_xml(back.spec) == xml);
  // And through the neutral model.
  CHECK(write_configspec_xml(from_vm_config(to_vm_config(back.spec))) == xml);
}

TEST_CASE("a ConfigSpec reads as the settings the vmx would hold", "[spec][xml]") {
  const std::string xml = write_configspec_xml(from_vm_config(test::plan_config()));
  const VmConfig cfg = to_vm_config(read(xml).spec);
  CHECK(cfg.get("memsize") == "65536");
  CHECK(cfg.get("pciPassthru0.id") == "00000:059:00.0");
  CHECK(cfg.get("pciPassthru0.deviceId") == "0x20b5");
  CHECK(cfg.get("pciPassthru0.vendorId") == "0x10de");
  CHECK(cfg.get("pciPassthru1.vendorId") == "0x8086");
  CHECK(cfg.get("pciPassthru2.vgpu") == "grid_a100-40c");
  CHECK(cfg.get("pciPassthru3.allowedDevices") == "0x10de:0x20f1");
  CHECK(cfg.get("pciPassthru4.pfId") == "00000:026:00.1");
  CHECK(cfg.get("pciPassthru4.systemId") == "BYPASS");
  CHECK(cfg.get("pciPassthru.allowP2P") == "TRUE");
  CHECK(cfg.get("firmware") == "efi");
  CHECK(cfg.memory_pinned());
  const auto devices = cfg.passthrough_devices();
  REQUIRE(devices.size() == 5);
  CHECK(devices[0].kind() == PassthroughKind::directpath);
  CHECK(devices[2].kind() == PassthroughKind::vgpu);
  CHECK(devices[3].kind() == PassthroughKind::dynamic);
  CHECK(devices[4].kind() == PassthroughKind::sriov_vf);

  // Spans point at the elements: line:column of the GPU's <id> text.
  const SourceFile file("spec.xml", xml);
  const Setting* id = cfg.find("pciPassthru0.id");
  REQUIRE(id != nullptr);
  const Location loc = file.location(id->value_span.begin);
  const std::size_t expected = xml.find("0000:3b:00.0");
  CHECK(id->value_span.begin == expected);
  CHECK(xml.substr(id->value_span.begin, id->value_span.end - id->value_span.begin) ==
        "0000:3b:00.0");
  CHECK(loc.line > 1);
}

TEST_CASE("an empty extraConfig value, which removes the key, stays a setting with an empty value",
          "[spec][xml]") {
  const auto r = read(kHead +
                      "  <extraConfig><key>a</key><value xsi:type=\"xsd:string\"></value>"
                      "</extraConfig>\n  <extraConfig><key>b</key><value "
                      "xsi:type=\"xsd:string\">1</value></extraConfig>\n</spec>\n");
  REQUIRE(r.spec.extra_config.size() == 2);
  CHECK(r.spec.extra_config[0].value.empty());
  const VmConfig cfg = to_vm_config(r.spec);
  CHECK(cfg.get("a") == "");
  CHECK(cfg.get("b") == "1");
  // ... and goes back out as the same removal.
  const ConfigSpec back = from_vm_config(cfg);
  REQUIRE(back.extra_config.size() == 2);
  CHECK(back.extra_config[0].key == "a");
  CHECK(back.extra_config[0].value.empty());
}

TEST_CASE("devices other than passthrough are skipped and removals are not settings",
          "[spec][xml]") {
  const auto r = read(kHead +
                      "  <deviceChange><operation>add</operation><device xsi:type=\"VirtualDisk\">"
                      "<key>-1</key></device></deviceChange>\n"
                      "  <deviceChange><operation>remove</operation><device "
                      "xsi:type=\"VirtualPCIPassthrough\"><key>13000</key></device>"
                      "</deviceChange>\n</spec>\n");
  REQUIRE(r.spec.device_change.size() == 1);
  CHECK(r.spec.device_change[0].operation == "remove");
  CHECK(to_vm_config(r.spec).settings.empty());
}

TEST_CASE("unsafe XML is refused with file, line and column", "[spec][xml][safety]") {
  CHECK(error_of("<?xml version=\"1.0\"?>\n<!DOCTYPE spec [<!ENTITY x SYSTEM "
                 "\"file:///etc/passwd\">]>\n<spec>&x;</spec>") ==
        "spec.xml:2:1: a DOCTYPE is not allowed: vmxkit never loads DTDs or entities");
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  CHECK(error_of(deep).find("nest deeper than 64") != std::string::npos);
  CHECK(error_of(std::string(17u << 20, ' ')).find("larger than 16 MiB") != std::string::npos);
  CHECK(error_of("<spec>\n  <memoryMB>12</memory>\n</spec>").rfind("spec.xml:2:", 0) == 0);
  CHECK(error_of("") == "spec.xml:1:1: malformed XML: No document element found");
}

TEST_CASE("values of the wrong type are errors at the element", "[spec][xml]") {
  CHECK(error_of(kHead + "  <memoryMB>lots</memoryMB>\n</spec>") ==
        "spec.xml:2:3: memoryMB must be an integer, not \"lots\"");
  CHECK(error_of(kHead + "  <memoryReservationLockedToMax>yes</memoryReservationLockedToMax>\n"
                         "</spec>") ==
        "spec.xml:2:3: memoryReservationLockedToMax must be true or false, not \"yes\"");
  CHECK(error_of(kHead + "  <deviceChange><operation>add</operation>\n"
                         "    <device xsi:type=\"VirtualPCIPassthrough\"><key>-1</key>\n"
                         "      <backing xsi:type=\"VirtualPCIPassthroughDeviceBackingInfo\">"
                         "<deviceName></deviceName><id>0000:3b:00.0</id><deviceId>20b5</deviceId>"
                         "<systemId>x</systemId>\n        <vendorId>0x10de</vendorId></backing>"
                         "</device></deviceChange>\n</spec>") ==
        "spec.xml:5:9: vendorId must be a PCI vendor id as an xsd:short (0x10de is 4318, 0x8086 "
        "is -32634), not \"0x10de\"");
  CHECK(error_of(kHead + "  <deviceChange><operation>plug</operation></deviceChange></spec>")
            .find("operation must be add, remove or edit") != std::string::npos);
  CHECK(error_of("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                 "<soapenv:Body><PowerOnVM_Task/></soapenv:Body></soapenv:Envelope>")
            .find("expected ReconfigVM_Task in the SOAP Body, found PowerOnVM_Task") !=
        std::string::npos);
}

TEST_CASE("values XML cannot carry are refused when writing", "[spec][xml]") {
  ConfigSpec s;
  s.extra_config.push_back({"k", std::string("a\x01z"), "string", {}, {}, {}});
  CHECK_THROWS_AS(write_configspec_xml(s), Error);
  s.extra_config[0].value = "caf\xe9";  // windows-1252, not UTF-8
  CHECK_THROWS_WITH(write_configspec_xml(s), Catch::Contains("not valid UTF-8"));
  s.extra_config[0].value = "a<b & \"c\"";
  CHECK(write_configspec_xml(s).find("a&lt;b &amp; &quot;c&quot;") != std::string::npos);
}

TEST_CASE("written XML always loads back: ill-formed UTF-8 is refused when writing",
          "[spec][xml][fuzz]") {
  // fuzz_vsphere_load: VI/JSON with an overlong UTF-8 form loaded, rendered as ConfigSpec XML, and
  // the output was then refused by libxml2 when loaded back.
  // The VI/JSON reader now refuses that string itself; the writer still refuses such a value.
  CHECK_THROWS_WITH(load("fuzz.json", std::string("{\"_typeName\": \"VirtualMachineConfigSpec\", "
                                                  "\"firmware\":\"\xc0\x8c\"}")),
                    Catch::StartsWith("fuzz.json:1:55: invalid UTF-8 in a string (byte 0xC0)"));
  VmConfig overlong;
  overlong.add("firmware", "\xc0\x8c", {}, {});
  CHECK_THROWS_WITH(render(overlong, "configspec-xml"), Catch::Contains("not valid UTF-8"));

  ConfigSpec s;
  s.extra_config.push_back({"k", "", "string", {}, {}, {}});
  for (const char* bad :
       {"\xc0\x8c", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
        "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf"}) {
    s.extra_config[0].value = bad;
    CHECK_THROWS_WITH(write_configspec_xml(s), Catch::Contains("not valid UTF-8"));
  }
  for (const char* nonchar : {"\xef\xbf\xbe", "\xef\xbf\xbf"}) {
    s.extra_config[0].value = nonchar;
    CHECK_THROWS_WITH(write_configspec_xml(s), Catch::Contains("XML 1.0 cannot carry"));
  }
  // The shortest forms at each boundary are written and load back unchanged.
  for (const char* good :
       {"\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
        "\xef\xbf\xbd", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) {
    s.extra_config[0].value = good;
    const Loaded back = load("good.xml", write_configspec_xml(s));
    REQUIRE(back.vms.size() == 1);
    CHECK(back.vms.front().config.get("k") == std::string_view(good));
  }
}

TEST_CASE("CRLF documents keep exact element positions", "[spec][xml]") {
  const auto r =
      read("<spec>\r\n  <firmware>efi</firmware>\r\n  <memoryMB>8</memoryMB>\r\n</spec>");
  const SourceFile f("spec.xml",
                     "<spec>\r\n  <firmware>efi</firmware>\r\n  <memoryMB>8</memoryMB>\r\n</spec>");
  const Location fw = f.location(r.spec.firmware_span.begin);
  CHECK(fw.line == 2);
  CHECK(fw.column == 3);
  const Location mem = f.location(r.spec.memory_span.begin);
  CHECK(mem.line == 3);
  CHECK(r.spec.memory_span.end - r.spec.memory_span.begin ==
        std::string("<memoryMB>8</memoryMB>").size());
}

TEST_CASE("name, guestId, CPUs, cores per socket and the reservation are ConfigSpec fields",
          "[spec][xml]") {
  // They used to be left out as "owned by vSphere", so a round trip lost the reservation.
  const std::string vmx =
      "displayName = \"gpu-vm\"\nguestOS = \"ubuntu-64\"\nnumvcpus = \"16\"\n"
      "cpuid.coresPerSocket = \"8\"\nmemsize = \"4096\"\nsched.mem.min = \"4096\"\n";
  const VmConfig cfg = vmx::to_vm_config(vmx::Document::parse(vmx));
  const ConfigSpec spec = from_vm_config(cfg);
  CHECK(spec.not_sent.empty());
  CHECK(spec.name == "gpu-vm");
  CHECK(spec.guest_id == "ubuntu-64");
  CHECK(spec.num_cpus == 16);
  CHECK(spec.num_cores_per_socket == 8);
  CHECK(spec.memory_reservation_mb == 4096);
  const std::string xml = write_configspec_xml(spec);
  CHECK(xml.find("  <name>gpu-vm</name>\n  <guestId>ubuntu-64</guestId>\n  <numCPUs>16</numCPUs>\n"
                 "  <numCoresPerSocket>8</numCoresPerSocket>\n  <memoryMB>4096</memoryMB>\n"
                 "  <memoryAllocation>\n    <reservation>4096</reservation>\n"
                 "  </memoryAllocation>\n") != std::string::npos);
  const Loaded back = load("spec.xml", xml);
  CHECK(back.schema_problems.empty());  // the schema's element order
  CHECK(render_vmx(back.vms.at(0).config) == vmx);
  CHECK(back.vms.at(0).config.memory_fully_reserved());
  // A reservation elsewhere in the file still lands in schema order.
  const auto r = read(kHead +
                      "  <memoryAllocation><reservation>512</reservation>"
                      "<limit>-1</limit></memoryAllocation>\n</spec>\n");
  CHECK(r.spec.memory_reservation_mb == 512);
  CHECK(error_of(kHead + "  <numCPUs>many</numCPUs>\n</spec>") ==
        "spec.xml:2:3: numCPUs must be an integer, not \"many\"");
}

TEST_CASE("libxml2's parse errors name the line and column", "[spec][xml][load]") {
  // They used to be "libxml2 could not parse the document", without a place.
  const auto err = [](const std::string& xml) {
    try {
      (void)load("s.xml", xml);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err("<spec xmlns=\"urn:vim25\">\n  <firmware>e\xff"
            "fi</firmware>\n</spec>\n") ==
        "s.xml:2:14: invalid UTF-8 (byte 0xFF): vmxkit reads XML as UTF-8; save the file as UTF-8");
  CHECK(err("<spec xmlns=\"urn:vim25\">\n  <firmware>e&#1;fi</firmware>\n</spec>\n") ==
        "s.xml:2:14: \"&#1;\" is a character reference to a character XML 1.0 does not allow");
  CHECK(err("<spec xmlns=\"urn:vim25\"/>\n  <spec xmlns=\"urn:vim25\"/>\n") ==
        "s.xml:2:3: content after the root element (an XML document has exactly one root "
        "element)");
  CHECK(err("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<spec xmlns=\"urn:vim25\">\n"
            "  <extraConfig><key>k</key><value>caf\xe9</value></extraConfig>\n</spec>\n") ==
        "s.xml:3:38: invalid UTF-8 (byte 0xE9): the document declares encoding=\"ISO-8859-1\", "
        "and vmxkit reads XML as UTF-8 only; save it as UTF-8");
  CHECK(err("<spec xmlns=\"urn:vim25\">\n  <firmware>&nbsp;</firmware>\n</spec>\n")
            .rfind("s.xml:2:", 0) == 0);
  // Columns count bytes, after multi-byte characters too.
  CHECK(err("<spec xmlns=\"urn:vim25\">\n  <a>\xc3\xa9\xc3\xa9 &#1;</a></spec>")
            .rfind("s.xml:2:11: \"&#1;\"", 0) == 0);
  // A declaration naming another encoding is fine while the bytes are ASCII.
  CHECK(load("s.xml",
             "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<spec xmlns=\"urn:vim25\">"
             "<firmware>efi</firmware></spec>\n")
            .vms.at(0)
            .config.firmware() == "efi");
}

TEST_CASE("a value that does not convert is named at its place, control bytes escaped",
          "[spec][xml]") {
  const auto err = [](const std::string& vmx) {
    const SourceFile src("vm.vmx", vmx);
    try {
      (void)from_vm_config(vmx::to_vm_config(vmx::Document::parse(vmx, "vm.vmx")), src);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err("firmware = \"efi\"\nmemsize = \"abc\"\n") ==
        "vm.vmx:2:12: memsize = \"abc\": expected a memory size in MB");
  CHECK(err("pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"3b:00.0x\"\n") ==
        "vm.vmx:2:20: pciPassthru0.id = \"3b:00.0x\": expected a PCI address such as "
        "00000:059:00.0");
  // `|00` is a NUL once decoded: it used to cut the message off.
  CHECK(err("memsize = \"4|0096\"\n") ==
        "vm.vmx:1:12: memsize = \"4\\x0096\": expected a memory size in MB");
  CHECK(err("numvcpus = \"0\"\n") ==
        "vm.vmx:1:13: numvcpus = \"0\": expected a number of virtual CPUs (1 or more)");
  CHECK(err("sched.mem.min = \"-1\"\n") ==
        "vm.vmx:1:18: sched.mem.min = \"-1\": expected a memory reservation in MB");
  // Without the file, the path alone.
  CHECK_THROWS_WITH(
      from_vm_config(vmx::to_vm_config(vmx::Document::parse("memsize = \"x\"\n")), "p.vmx"),
      "p.vmx: memsize = \"x\": expected a memory size in MB");
  // So do the readers' messages, and XML's own refusals.
  CHECK(error_of(kHead + "  <memoryMB>1&#9;2</memoryMB>\n</spec>") ==
        "spec.xml:2:3: memoryMB must be an integer, not \"1\\x092\"");
  ConfigSpec s;
  s.extra_config.push_back({"k", std::string("a\0z", 3), "string", {}, {}, {}});
  CHECK_THROWS_WITH(write_configspec_xml(s),
                    "value \"a\\x00z\" holds the control byte 0x00, which XML 1.0 cannot carry");
}
