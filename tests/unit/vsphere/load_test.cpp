// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/load.h"

#include <catch2/catch.hpp>

#include "spec_samples.h"
#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/vsphere/configspec.h"
#include "vmxkit/vsphere/configspec_xml.h"
#include "vmxkit/vsphere/vi_json.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

TEST_CASE("the format is told from the content", "[spec][load]") {
  CHECK(detect_format("memsize = \"4\"\n") == Format::vmx);
  CHECK(detect_format("") == Format::vmx);
  CHECK(detect_format("\xEF\xBB\xBF  {\"_typeName\": 1}") == Format::vi_json);
  CHECK(detect_format("<?xml version=\"1.0\"?>\n<!-- c -->\n<spec xmlns=\"urn:vim25\"/>") ==
        Format::configspec_xml);
  CHECK(detect_format("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/"
                      "envelope/\">") == Format::soap);
  CHECK(detect_format("<Envelope xmlns=\"http://schemas.dmtf.org/ovf/envelope/1\">") ==
        Format::ovf);
}

TEST_CASE("every format of one plan loads as the same passthrough devices", "[spec][load]") {
  const ConfigSpec spec = from_vm_config(test::plan_config());
  for (const auto& [text, format] :
       std::vector<std::pair<std::string, Format>>{
           {test::kPlanVmx, Format::vmx},
           {write_configspec_xml(spec), Format::configspec_xml},
           {write_soap_envelope(spec, "vm-9"), Format::soap},
           {write_vi_json(spec), Format::vi_json}}) {
    const Loaded l = load("in", text);
    INFO(to_string(format));
    CHECK(l.format == format);
    CHECK(l.diagnostics.empty());
    REQUIRE(l.vms.size() == 1);
    const auto devices = l.vms[0].config.passthrough_devices();
    REQUIRE(devices.size() == 5);
    CHECK(devices[0].id == "00000:059:00.0");
    CHECK(devices[1].vendor_id == "0x8086");
    CHECK(devices[4].kind() == PassthroughKind::sriov_vf);
    CHECK(l.vms[0].config.get("pciPassthru.64bitMMIOSizeGB") == "256");
  }
  CHECK(load("in", write_soap_envelope(spec, "vm-9")).vm == "vm-9");
}

TEST_CASE("every corpus document loads or is rejected with file:line:col", "[spec][load][corpus]") {
  for (const char* ext : {".ovf", ".json"}) {
    for (const auto& path : test::corpus_files("configspec", ext)) {
      INFO(path.string());
      std::string bytes = test::read_bytes(path);
      if (path.filename().string().find("NEGATIVE") != std::string::npos) {
        try {
          load(path.string(), bytes);
          FAIL("accepted");
        } catch (const Error& e) {
          CHECK(e.line() > 0);
          CHECK(e.column() > 0);
        }
      } else {
        const Loaded l = load(path.string(), bytes);
        CHECK_FALSE(l.vms.empty());
      }
    }
  }
}

TEST_CASE("ConfigSpec input that breaks the schema loads with XML001 findings", "[spec][load]") {
  const Loaded l = load("s.xml",
                        "<spec xmlns=\"urn:vim25\">\n  <firmware>uefi</firmware>\n</spec>\n");
  REQUIRE(l.diagnostics.size() == 1);
  CHECK(l.diagnostics[0].rule_id == "XML001");
  CHECK(l.source.location(l.diagnostics[0].begin).line == 2);
  CHECK(l.vms[0].config.firmware() == "uefi");
}

TEST_CASE("truncated and corrupted documents fail with an Error, never a crash",
          "[spec][load][safety]") {
  const ConfigSpec spec = from_vm_config(test::plan_config());
  const auto ovf_path =
      test::corpus_dir("configspec") / "ovf_govmomi_pci_passthrough_legacy_directpath.ovf";
  for (const std::string& doc : {write_configspec_xml(spec), write_soap_envelope(spec, "vm-1"),
                                 write_vi_json(spec), test::read_bytes(ovf_path)}) {
    for (std::size_t cut = 0; cut < doc.size(); cut += 7) {
      std::string bytes = doc.substr(0, cut);
      try {
        (void)load("cut", bytes);
      } catch (const Error&) {
      }
      if (cut < doc.size()) {
        bytes = doc;
        bytes[cut] = static_cast<char>(bytes[cut] ^ 0x5a);
        try {
          (void)load("flip", bytes);
        } catch (const Error&) {
        }
      }
    }
  }
  SUCCEED("no crash and no exception other than vmxkit::Error");
}
