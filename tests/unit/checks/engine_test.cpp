// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/engine.h"

#include <catch2/catch.hpp>
#include <map>

#include "support/support.h"
#include "vmxkit/formats/formats.h"

using namespace vmxkit;

namespace {

std::vector<std::string> ids(const checks::LintResult& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics) out.emplace_back(d.rule_id);
  return out;
}

}  // namespace

TEST_CASE("a suppression on the line before hides only that line's finding", "[rules][engine]") {
  const auto r = checks::lint("vm.vmx",
                              "# vmxkit: disable=VMX008\n"
                              "a = TRUE\n"
                              "b = TRUE\n",
                              {});
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].rule_id == "VMX008");
  CHECK(r.location(r.diagnostics[0].begin).line == 3);
}

TEST_CASE("a file suppression hides a rule everywhere and counts as used", "[rules][engine]") {
  const auto r = checks::lint("vm.vmx", "a = TRUE\n# vmxkit: disable-file=VMX008\nb = TRUE\n", {});
  CHECK(r.diagnostics.empty());
}

TEST_CASE("a trailing suppression applies to its own line", "[rules][engine]") {
  const auto r = checks::lint("vm.vmx", "a = TRUE # vmxkit: disable=VMX008\nb = \"1\"\n", {});
  CHECK(r.diagnostics.empty());
}

TEST_CASE("an unused suppression is reported and its fix removes the comment",
          "[rules][engine][fix]") {
  const std::string text = "a = \"1\"\n# vmxkit: disable=VMX008\nb = \"2\"\n";
  const auto r = checks::lint("vm.vmx", text, {});
  REQUIRE(ids(r) == std::vector<std::string>{"VMX009"});
  const auto fixed = checks::fix("vm.vmx", text, {}, false);
  CHECK(fixed.bytes == "a = \"1\"\nb = \"2\"\n");
  CHECK(fixed.remaining.diagnostics.empty());
}

TEST_CASE("fix applies only safe fixes unless unsafe ones are asked for", "[rules][engine][fix]") {
  const std::string text =
      "firmware = \"efi\"\nmemsize = \"1024\"\nsched.mem.pin = \"TRUE\"\n"
      "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"0000:3b:00.0\"\n"
      "pciPassthru0.deviceId = \"0x1021\"\npciPassthru0.vendorId = \"0x15b3\"\n"
      "pciPassthru0.systemId = \"x\"\n"
      "pciPassthru1.present = \"TRUE\"\npciPassthru1.vgpu = \"grid_a100-40c\"\n"
      "pciPassthru.use64bitMMIO = TRUE\n";
  const auto safe = checks::fix("vm.vmx", text, {}, false);
  CHECK(safe.bytes.find("00000:059:00.0") != std::string::npos);           // PT002, safe
  CHECK(safe.bytes.find("use64bitMMIO = \"TRUE\"") != std::string::npos);  // VMX008, safe
  CHECK(safe.bytes.find("allowP2P") == std::string::npos);                 // P2P001, unsafe
  const auto all = checks::fix("vm.vmx", text, {}, true);
  CHECK(all.bytes.find("pciPassthru.allowP2P = \"TRUE\"") != std::string::npos);
  CHECK(all.bytes.find("pciPassthru.RelaxACSforP2P = \"TRUE\"") != std::string::npos);
}

TEST_CASE("fix never changes a byte outside its edits", "[rules][engine][fix]") {
  const std::string text =
      "# keep   this comment\r\n"
      "displayName = \"a|0Ab\"   # and this one\r\n"
      "sata0.present = TRUE\r\n"
      "\r\n"
      "weird.key =   \"x\"\t\r\n";
  const auto fixed = checks::fix("vm.vmx", text, {}, true);
  CHECK(fixed.bytes ==
        "# keep   this comment\r\n"
        "displayName = \"a|0Ab\"   # and this one\r\n"
        "sata0.present = \"TRUE\"\r\n"
        "\r\n"
        "weird.key =   \"x\"\t\r\n");
}

TEST_CASE("two fixes inserting at one offset are applied in separate passes",
          "[rules][engine][fix]") {
  // Found by fuzz_lint: an empty unquoted 64bitMMIOSizeGB got `"256"` (MMIO003) and `""` (VMX008)
  // inserted at the same offset in one pass, giving the malformed `= "256" "" # size me`.
  const std::string text =
      "firmware = \"efi\"\nmemsize = \"65536\"\nsched.mem.min = \"65536\"\n"
      "sched.mem.pin = \"TRUE\"\npciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"00000:059:00.0\"\npciPassthru0.deviceId = \"0x2331\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\npciPassthru0.systemId = \"x\"\n"
      "pciPassthru1.present = \"TRUE\"\npciPassthru1.id = \"00000:060:00.0\"\n"
      "pciPassthru1.deviceId = \"0x1021\"\npciPassthru1.vendorId = \"0x15b3\"\n"
      "pciPassthru1.systemId = \"x\"\npciPassthru.allowP2P = \"TRUE\"\n"
      "pciPassthru.RelaxACSforP2P = \"TRUE\"\npciPassthru.use64bitMMIO = \"TRUE\"\n"
      "pciPassthru.64bitMMIOSizeGB =   # size me\n";
  const auto before = checks::lint("vm.vmx", text, {});
  CHECK(ids(before) == std::vector<std::string>{"MMIO003", "VMX008"});
  CHECK(before.diagnostics[0].begin == before.diagnostics[1].begin);
  const auto fixed = checks::fix("vm.vmx", text, {}, true);
  CHECK(fixed.remaining.diagnostics.empty());
  CHECK(fixed.bytes.ends_with("pciPassthru.64bitMMIOSizeGB =   \"256\" # size me\n"));
}

TEST_CASE("fix keeps a .vmx a .vmx when an edit leaves XML-looking text first",
          "[rules][engine][fix]") {
  // Found by fuzz_lint: removing the unused suppression left `<spec>` as the first line, and the
  // next pass read the file as ConfigSpec XML and threw.
  const auto fixed = checks::fix("vm.vmx", "# vmxkit: disable=VMX008\n<spec>\n", {}, false);
  CHECK(fixed.bytes == "<spec>\n");
  CHECK(fixed.remaining.format->name == "vmx");
  CHECK(ids(fixed.remaining) == std::vector<std::string>{"VMX001"});
  // A vSphere document is linted, never edited.
  const std::string xml = "<spec xmlns=\"urn:vim25\"><memoryMB>1024</memoryMB></spec>\n";
  const auto spec = checks::fix("spec.xml", xml, {}, true);
  CHECK(spec.bytes == xml);
  CHECK(spec.fixes_applied == 0);
}

TEST_CASE("fix never turns a file into one read as UTF-16", "[rules][engine][fix]") {
  // Found by fuzz_lint: quoting the value of NUL-laden bytes made them NUL-interleaved, the next
  // pass refused them as UTF-16BE and fix threw. That pass is not taken; the finding stays.
  const std::string text("\0\xff\0\0\0=\xfe\0m\0\0\0==)", 15);
  const auto before = checks::lint("vm.vmx", text, {});
  REQUIRE(ids(before) == std::vector<std::string>{"VMX008"});
  const auto fixed = checks::fix("vm.vmx", text, {}, true);
  CHECK(fixed.bytes == text);
  CHECK(fixed.fixes_applied == 0);
  CHECK(ids(fixed.remaining) == std::vector<std::string>{"VMX008"});
}

TEST_CASE("every corpus file lints without a crash", "[rules][engine][corpus]") {
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    INFO(path.filename().string());
    const auto r = checks::lint(path.string(), test::read_bytes(path), {});
    for (const Diagnostic& d : r.diagnostics) {
      CHECK(d.begin <= r.bytes.size());
      CHECK(d.end <= r.bytes.size() + 1);
    }
    // Fixing is idempotent: fixing the fixed file changes nothing.
    const auto once = checks::fix(path.string(), test::read_bytes(path), {}, true);
    const auto twice = checks::fix(path.string(), once.bytes, {}, true);
    CHECK(twice.bytes == once.bytes);
  }
}

TEST_CASE("the rules fire on the corpus exactly where a reader agrees", "[rules][corpus]") {
  // Reviewed by hand; each line says why the findings are right.
  const std::map<std::string, std::map<std::string, int>> expected = {
      // RST prose and `key VALUE` lines (VMX001); ``-wrapped keys (VMX010) and values (VMX008).
      {"FRAGMENT_doc_nvidia_nvaie_ocp_ui_style_key_space_value_rst.vmx",
       {{"VMX001", 5}, {"VMX008", 2}, {"VMX010", 2}}},
      // U+201C/U+201D around FALSE: the value is not a boolean.
      {"FRAGMENT_doc_tf2kit_Hypervisor_CPUID_capitalized_smart_quotes.vmx", {{"VMX004", 1}}},
      // U+201D around TRUE (VMX004) and an unquoted size (VMX008).
      {"FRAGMENT_issue_gpu-operator492_curly_quotes_64bitMMIO.vmx", {{"VMX004", 1}, {"VMX008", 1}}},
      {"FRAGMENT_issue_gpu-operator492_maintainer_advice_curly_quotes.vmx",
       {{"VMX004", 1}, {"VMX008", 1}}},
      // Passthrough and SR-IOV VFs need all memory reserved; the fragment sets no reservation.
      {"FRAGMENT_log_esxi_sriov_vf_BYPASS_pfId_plus_directpath_VF.vmx", {{"PT008", 1}}},
      // A GTX 1050 Ti (10de:1c82) the catalogue does not know: it gets the MMIO checks of an
      // NVIDIA GPU and MMIO006's word that its BARs were assumed (BIOS, no 64-bit MMIO).
      {"FRAGMENT_note_esxi_nvidia_gpu_plus_audio_function_pciSlotNumber.vmx",
       {{"PT008", 1}, {"MMIO001", 1}, {"MMIO005", 1}, {"MMIO006", 1}}},
      // ESXi 8.0.3's own lines for SR-IOV VFs (deviceId/vendorId "0", one pfId for several VFs)
      // and a DirectPath VF: nothing to say but the missing reservation of a fragment.
      {"FRAGMENT_esxi803_vmx_device_lines_directpath_vf_with_sriov.vmx", {{"PT008", 1}}},
      {"FRAGMENT_esxi803_vmx_device_lines_sriov_vf_pciPassthru31_down_pciSlotNumber.vmx",
       {{"PT008", 1}}},
      // Jinja lines (VMX001) and `sata0.present = TRUE`, which ESXi rejects (OC4VM #104).
      {"oc4vm_handwritten_hw21_macos_inline_comments_unquoted_TRUE.vmx",
       {{"VMX001", 3}, {"VMX008", 1}}},
      {"vmconfig_fixture_NEGATIVE_missing_equals.vmx", {{"VMX001", 1}}},
      {"vmconfig_fixture_NEGATIVE_no_value.vmx", {{"VMX001", 1}}},
      {"vmconfig_fixture_NEGATIVE_space_in_key.vmx", {{"VMX001", 1}}},
      {"vmconfig_fixture_NEGATIVE_unterminated_quote.vmx", {{"VMX002", 1}}},
      // `"value\"hello"`: .vmx has no backslash escape, so text follows the closing quote.
      {"vmconfig_fixture_chaotic_whitespace_tabs_dupkeys_backslash_quotes.vmx", {{"VMX001", 3}}},
      // A cut multi-byte character ate the closing quotes, under a UTF-8 declaration.
      {"ws_hw19_win10_crlf_utf8decl_invalid_utf8_sharedfolder.vmx", {{"VMX002", 2}, {"VMX007", 1}}},
  };
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    const std::string name = path.filename().string();
    INFO(name);
    const auto r = checks::lint(name, test::read_bytes(path), {});
    std::map<std::string, int> got;
    for (const Diagnostic& d : r.diagnostics) ++got[std::string(d.rule_id)];
    const auto it = expected.find(name);
    CHECK(got == (it == expected.end() ? std::map<std::string, int>{} : it->second));
  }
}

TEST_CASE("suppressions on many lines each hide only their own line's finding", "[rules][engine]") {
  // Every other entry is suppressed, by a trailing comment or by a comment block before it;
  // one suppression names an id that fires nowhere and is reported as unused.
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    if (i % 4 == 0) text += "k" + std::to_string(i) + " = TRUE # vmxkit: disable=VMX008\n";
    if (i % 4 == 1) text += "k" + std::to_string(i) + " = TRUE\n";
    if (i % 4 == 2)
      text += "# vmxkit: disable=VMX008\n# more\n\nk" + std::to_string(i) + " = TRUE\n";
    if (i % 4 == 3) text += "k" + std::to_string(i) + " = TRUE\n";
  }
  text += "# vmxkit: disable=VMX005\nlast = \"1\"\n";
  const auto r = checks::lint("vm.vmx", text, {});
  std::size_t vmx008 = 0, vmx009 = 0;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.rule_id == "VMX008") {
      ++vmx008;
      const std::string_view line = r.lines.line_text(r.bytes, d.begin);
      const std::string number(line.substr(1, line.find(' ') - 1));
      CHECK(std::stoi(number) % 2 == 1);
    }
    vmx009 += d.rule_id == "VMX009";
  }
  CHECK(vmx008 == 1000);
  CHECK(vmx009 == 1);
}

TEST_CASE("a lint result's line index is that of its bytes", "[rules][engine]") {
  for (const std::string text : {"\xEF\xBB\xBF"
                                 "a = TRUE\r\nb = \"1\"\rc = x\n",
                                 "", "a = x"}) {
    const auto r = checks::lint("vm.vmx", text, {});
    CHECK(r.bytes == text);
    const LineIndex expected(text);
    REQUIRE(r.lines.line_count() == expected.line_count());
    for (std::size_t i = 0; i <= text.size(); ++i) {
      CHECK(r.location(i).line == expected.location(i).line);
      CHECK(r.location(i).column == expected.location(i).column);
    }
  }
}

TEST_CASE("fix removes every duplicate of many keys in one pass", "[rules][engine][fix]") {
  // One VMX005 fix per key removes all its later lines, so the passes do not grow with the
  // duplicates: 3 keys, 20,000 lines, one pass that changes the file and one that finds
  // nothing more to fix.
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += (i % 3 == 0   ? "a"
             : i % 3 == 1 ? "B"
                          : "c") +
            std::string(" = \"") + std::to_string(i) + "\"\n";
  }
  const auto fixed = checks::fix("vm.vmx", text, {}, true);
  CHECK(fixed.bytes == "a = \"0\"\nB = \"1\"\nc = \"2\"\n");
  CHECK(fixed.fixes_applied == 3);
  CHECK(fixed.remaining.diagnostics.empty());
  CHECK(fixed.remaining.bytes == fixed.bytes);
}

TEST_CASE("findings come sorted by position, then rule id, whatever order rules report",
          "[rules][engine]") {
  // VMX008 (unquoted), VMX012 (not a boolean) and VMX005 (duplicate) fire at interleaved
  // positions; the rules report them in rule order.
  std::string text;
  for (int i = 0; i < 500; ++i) {
    text += "sched.mem.pin = maybe\nk" + std::to_string(i) + " = x\nsched.mem.pin = \"TRUE\"\n";
  }
  const auto r = checks::lint("vm.vmx", text, {});
  REQUIRE(r.diagnostics.size() > 1500);
  for (std::size_t i = 1; i < r.diagnostics.size(); ++i) {
    const Diagnostic& a = r.diagnostics[i - 1];
    const Diagnostic& b = r.diagnostics[i];
    CHECK((a.begin < b.begin || (a.begin == b.begin && a.rule_id <= b.rule_id)));
  }
}
