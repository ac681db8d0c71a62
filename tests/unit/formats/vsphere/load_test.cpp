// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/load.h"

#include <catch2/catch.hpp>

#include "spec_samples.h"
#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/vi_json.h"

namespace {
// The format table's name of what the bytes are, as load() tells it.
std::string_view recognised(std::string_view bytes) {
  return vmxkit::formats::recognise_vm_input(bytes).name;
}
}  // namespace

using namespace vmxkit;
using namespace vmxkit::vsphere;

TEST_CASE("the format is told from the content", "[spec][load]") {
  CHECK(recognised("memsize = \"4\"\n") == "vmx");
  CHECK(recognised("") == "vmx");
  CHECK(recognised("\xEF\xBB\xBF  {\"_typeName\": 1}") == "vi-json");
  CHECK(recognised("<?xml version=\"1.0\"?>\n<!-- c -->\n<spec xmlns=\"urn:vim25\"/>") ==
        "configspec-xml");
  CHECK(recognised("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/"
                   "envelope/\">") == "soap");
  CHECK(recognised("<Envelope xmlns=\"http://schemas.dmtf.org/ovf/envelope/1\">") == "ovf");
}

TEST_CASE("every format of one plan loads as the same passthrough devices", "[spec][load]") {
  const ConfigSpec spec = from_vm_config(test::plan_config());
  for (const auto& [text, format] : std::vector<std::pair<std::string, std::string>>{
           {test::kPlanVmx, "vmx"},
           {write_configspec_xml(spec), "configspec-xml"},
           {write_soap_envelope(spec, "vm-9"), "soap"},
           {write_vi_json(spec), "vi-json"}}) {
    const Loaded l = load("in", text);
    INFO(format);
    CHECK(l.format->name == format);
    CHECK(l.schema_problems.empty());
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

TEST_CASE("ConfigSpec input that breaks the schema loads with its schema problems",
          "[spec][load]") {
  const Loaded l =
      load("s.xml", "<spec xmlns=\"urn:vim25\">\n  <firmware>uefi</firmware>\n</spec>\n");
  REQUIRE(l.schema_problems.size() == 1);
  CHECK(l.source.location(l.schema_problems[0].span.begin).line == 2);
  CHECK(l.vms[0].config.firmware() == "uefi");
}

TEST_CASE("truncated and corrupted documents fail with an Error, never a crash",
          "[spec][load][safety]") {
  const ConfigSpec spec = from_vm_config(test::plan_config());
  const auto ovf_path = test::source_path("tests/data/vsphere/ovf/sriov-device-groups.ovf");
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

namespace {

std::string load_error(const std::string& bytes, const std::string& path = "in") {
  try {
    (void)load(path, bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// `text` (ASCII) as UTF-16 or UTF-32, little- or big-endian.
std::string widen(std::string_view text, std::size_t unit, bool little) {
  std::string out;
  for (const char c : text) {
    std::string u(unit, '\0');
    u[little ? 0 : unit - 1] = c;
    out += u;
  }
  return out;
}

}  // namespace

TEST_CASE("UTF-16 and UTF-32 text is refused at 1:1, with or without a BOM", "[spec][load]") {
  const std::string xml = "<spec xmlns=\"urn:vim25\"><memoryMB>4</memoryMB></spec>\n";
  // It used to load as an empty .vmx: "converted" to nothing with exit 0.
  CHECK(recognised(widen(xml, 2, true)) == "configspec-xml");
  CHECK(recognised(std::string("\xFE\xFF", 2) + widen(xml, 2, false)) == "configspec-xml");
  CHECK(recognised(widen("{\"a\": 1}", 4, true)) == "vi-json");
  CHECK(load_error(std::string("\xFF\xFE", 2) + widen(xml, 2, true)) ==
        "in:1:1: UTF-16 text: save it as UTF-8 (found UTF-16LE with a byte order mark; vmxkit "
        "reads UTF-8 only)");
  CHECK(load_error(widen(xml, 2, true)) ==
        "in:1:1: UTF-16 text: save it as UTF-8 (found UTF-16LE, NUL-interleaved; vmxkit reads "
        "UTF-8 only)");
  CHECK(load_error(widen(xml, 2, false)).rfind("in:1:1: UTF-16 text: save it as UTF-8", 0) == 0);
  CHECK(load_error(widen("memsize = \"4096\"\n", 2, true))
            .rfind("in:1:1: UTF-16 text: save it as UTF-8", 0) == 0);
  CHECK(load_error(std::string("\xFF\xFE\0\0", 4) + widen(xml, 4, true))
            .rfind("in:1:1: UTF-32 text: save it as UTF-8 (found UTF-32LE", 0) == 0);
  CHECK(load_error(widen(xml, 4, false)).rfind("in:1:1: UTF-32 text", 0) == 0);
  // The XML reader refuses it on its own too.
  CHECK_THROWS_WITH(read_configspec_xml(SourceFile("s.xml", widen(xml, 2, true))),
                    Catch::StartsWith("s.xml:1:1: UTF-16 text"));
  // UTF-8 text with non-ASCII characters is not mistaken for wide text.
  CHECK(load("in", "displayName = \"gr\xc3\xbc\xc3\x9f\"\n").vms.at(0).config.get("displayName") ==
        "gr\xc3\xbc\xc3\x9f");
}

TEST_CASE("a document that is one JSON scalar is JSON, refused at 1:1", "[spec][load]") {
  // `42` in a .json file used to be read as a .vmx with one unreadable line.
  for (const char* doc : {"42", "-1.5e3\n", "\"x\"", "true", "null\r\n"}) {
    INFO(doc);
    CHECK(recognised(doc) == "vi-json");
    CHECK(load_error(doc, "n.json").rfind("n.json:1:1: a JSON document whose top level is ", 0) ==
          0);
  }
  CHECK(recognised("42 = \"x\"\n") == "vmx");
  CHECK(recognised("\"a\" b") == "vmx");
}

TEST_CASE("a .vmx's malformed lines are reported with the loaded document", "[spec][load]") {
  const Loaded l = load("bad.vmx", "memsize = \"4096\nfirmware efi\nnumvcpus = \"2\"\n");
  REQUIRE(l.malformed.size() == 2);
  CHECK(l.source.location(l.malformed[0].begin).line == 1);
  CHECK(l.source.location(l.malformed[1].begin).line == 2);
  CHECK(l.vms.at(0).config.get("numvcpus") == "2");
  CHECK(load("ok.vmx", "memsize = \"4096\"\n").malformed.empty());
}
