// SPDX-License-Identifier: Apache-2.0
// lint / fix / rules / rule through the command line, in-process.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/support.h"
#include "vmxkit/checks/engine.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;
using vmxkit::test::write_bytes;

namespace {

const std::string kBadVm =
    "firmware = \"efi\"\n"
    "memsize = \"4096\"\n"
    "sched.mem.pin = \"TRUE\"\n"
    "pciPassthru0.present = \"TRUE\"\n"
    "pciPassthru0.id = \"0000:3b:00.0\"\n"
    "pciPassthru0.deviceId = \"0x2331\"\n"
    "pciPassthru0.vendorId = \"0x10de\"\n"
    "pciPassthru0.systemId = \"x\"\n"
    "pciPassthru1.present = \"TRUE\"\n"
    "pciPassthru1.id = \"00000:060:00.0\"\n"
    "pciPassthru1.deviceId = \"0x1021\"\n"
    "pciPassthru1.vendorId = \"0x15b3\"\n"
    "pciPassthru1.systemId = \"x\"\n"
    "pciPassthru.use64bitMMIO = \"TRUE\"\n"
    "pciPassthru.64bitMMIOSizeGB = \"256\"\n";

}  // namespace

TEST_CASE("lint prints gcc-style findings with the source line and exits 1", "[cli][lint]") {
  const auto r = run_cli({"lint", "-"}, kBadVm);
  CHECK(r.code == 1);
  CHECK(r.out.find("<stdin>:5:20: error: pciPassthru0.id '0000:3b:00.0' is the hex form") !=
        std::string::npos);
  CHECK(r.out.find("pciPassthru0.id = \"0000:3b:00.0\"\n                   ^\n") !=
        std::string::npos);
  CHECK(r.out.find("[P2P001]") != std::string::npos);
  CHECK(r.out.find("Found ") != std::string::npos);
}

TEST_CASE("lint --fail-on error ignores warnings for the exit code", "[cli][lint]") {
  const std::string only_warning = "a = TRUE\n";
  CHECK(run_cli({"lint", "-"}, only_warning).code == 1);
  CHECK(run_cli({"lint", "--fail-on", "error", "-"}, only_warning).code == 0);
  CHECK(run_cli({"lint", "-"}, "a = \"TRUE\"\n").code == 0);
}

TEST_CASE("lint walks directories for .vmx files and reports unreadable input with exit 2",
          "[cli][lint]") {
  vmxkit::test::TempDir dir;
  std::filesystem::create_directories(dir / "a" / "b");
  write_bytes(dir / "a" / "b" / "one.vmx", "x = TRUE\n");
  write_bytes(dir / "a" / "two.vmx", "y = \"1\"\n");
  write_bytes(dir / "a" / "notes.txt", "not a vmx\n");
  auto r = run_cli({"lint", "--format", "json", (dir / "a").string()});
  CHECK(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["summary"]["files"] == 2);
  CHECK(j["summary"]["warnings"] == 1);
  r = run_cli({"lint", (dir / "missing.vmx").string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("missing.vmx: cannot open") != std::string::npos);
}

TEST_CASE("lint --format json carries positions, notes and fixes", "[cli][lint][json]") {
  const auto r = run_cli({"lint", "--format", "json", "-"}, kBadVm);
  const auto j = nlohmann::json::parse(r.out);
  const auto& diags = j["files"][0]["diagnostics"];
  bool saw_pt002 = false;
  for (const auto& d : diags) {
    if (d["rule"] != "PT002") continue;
    saw_pt002 = true;
    CHECK(d["severity"] == "error");
    CHECK(d["start"]["line"] == 5);
    CHECK(d["start"]["column"] == 20);
    CHECK(d["fix"]["safety"] == "safe");
    CHECK(d["fix"]["edits"][0]["replacement"] == "00000:059:00.0");
  }
  CHECK(saw_pt002);
}

TEST_CASE("lint --format sarif validates against the SARIF 2.1.0 schema", "[cli][lint][sarif]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "gpu vm.vmx", kBadVm);
  write_bytes(dir / "dups.vmx", "a = \"1\"\nA = \"2\"\n\xEF\xBB\xBF\n");
  const auto r = run_cli({"lint", "--format", "sarif", dir.path().string()});
  REQUIRE(r.code == 1);
  write_bytes(dir / "out.sarif", r.out);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["version"] == "2.1.0");
  CHECK(j["runs"][0]["results"].size() >= 4);
  const std::string cmd =
      "python3 -c 'import json,sys,jsonschema; "
      "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' '" +
      source_path("tests/data/sarif/sarif-2.1.0-rtm.5.json").string() + "' '" +
      (dir / "out.sarif").string() + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("fix writes the fixed file, a diff, or in place", "[cli][fix]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  write_bytes(path, kBadVm);
  auto r = run_cli({"fix", "--diff", path.string()});
  CHECK(r.out.find("-pciPassthru0.id = \"0000:3b:00.0\"\n+pciPassthru0.id = \"00000:059:00.0\"") !=
        std::string::npos);
  CHECK(read_bytes(path) == kBadVm);
  r = run_cli({"fix", "-i", "--unsafe-fixes", path.string()});
  const std::string fixed = read_bytes(path);
  CHECK(fixed.find("00000:059:00.0") != std::string::npos);
  CHECK(fixed.find("pciPassthru.allowP2P = \"TRUE\"") != std::string::npos);
  CHECK(r.err.find("Fixed ") != std::string::npos);
  CHECK(run_cli({"lint", path.string()}).code == 0);
  // A vSphere document is reported, left as it is, and the way to fix it is named.
  const std::string spec = read_bytes(vmxkit::test::source_path("tests/checks/XML001/fires.xml"));
  const auto xml = dir / "spec.xml";
  write_bytes(xml, spec);
  r = run_cli({"fix", "-i", "--unsafe-fixes", xml.string()});
  CHECK(r.code == 1);
  CHECK(read_bytes(xml) == spec);
  CHECK(r.err.find("fix edits .vmx files only") != std::string::npos);
}

TEST_CASE("rules lists the catalogue and rule prints a doc", "[cli][rules]") {
  auto r = run_cli({"rules"});
  CHECK(r.code == 0);
  CHECK(r.out.find("P2P001   missing-allow-p2p") != std::string::npos);
  r = run_cli({"rule", "P2P001"});
  CHECK(r.code == 0);
  CHECK(r.out.find("## Why is this bad?") != std::string::npos);
  CHECK(run_cli({"rule", "missing-allow-p2p"}).code == 0);
  CHECK(run_cli({"rule", "NOPE000"}).code == 2);
}

namespace {

// `memsize = "4096"` and a line break, as UTF-16LE: what Notepad's "Unicode" writes.
std::string utf16le_vmx(bool bom) {
  std::string out = bom ? std::string("\xFF\xFE") : std::string();
  for (const char c : std::string("memsize = \"4096\"\nfirmware = \"efi\"\n")) {
    out.push_back(c);
    out.push_back('\0');
  }
  return out;
}

}  // namespace

TEST_CASE("a UTF-16 .vmx is refused by every command, not read as malformed lines",
          "[cli][lint][encoding]") {
  vmxkit::test::TempDir dir;
  for (const bool bom : {true, false}) {
    INFO("BOM: " << bom);
    const std::string bytes = utf16le_vmx(bom);
    const std::string path = (dir / "wide.vmx").string();
    write_bytes(path, bytes);
    const std::string expected = std::string(bom ? "found UTF-16LE with a byte order mark"
                                                 : "found UTF-16LE, NUL-interleaved");
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"lint", path},
                                               {"fmt", path},
                                               {"fmt", "-i", path},
                                               {"get", path, "memsize"},
                                               {"set", "-i", path, "memsize=8192"},
                                               {"unset", "-i", path, "firmware"},
                                               {"fix", "-i", path}}) {
      INFO(args[0] << " " << args[1]);
      const auto r = run_cli(args);
      CHECK(r.code == 2);
      CHECK(r.err.find(path + ":1:1: UTF-16 text: save it as UTF-8 (" + expected) !=
            std::string::npos);
      CHECK(r.out.find("VMX001") == std::string::npos);
      CHECK(read_bytes(path) == bytes);
    }
  }
}

TEST_CASE("lint's summary counts the files it could not read", "[cli][lint]") {
  vmxkit::test::TempDir dir;
  const std::string good = (dir / "good.vmx").string();
  write_bytes(good, "firmware = \"efi\"\n");
  const std::string missing = (dir / "missing.vmx").string();
  const auto text = run_cli({"lint", missing});
  CHECK(text.code == 2);
  CHECK(text.out == "No problems found in 0 files. 1 file could not be read.\n");
  const auto json = run_cli({"lint", "--format", "json", missing, good});
  CHECK(json.code == 2);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["summary"]["unread"] == 1);
  CHECK(doc["summary"]["files"] == 1);
}

TEST_CASE("fix --diff reports the remaining findings at their places in the file as it stays",
          "[cli][fix]") {
  // Two duplicate lines before the finding are removed by the fixes: the fixed text has it on
  // line 6, the file (which --diff leaves as it is) on line 8. It was reported at 6.
  const std::string vm =
      "firmware = \"efi\"\n"
      "memsize = \"4096\"\n"
      "memsize = \"4096\"\n"
      "MEMSIZE = \"4096\"\n"
      "sched.mem.pin = \"TRUE\"\n"
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"0000:3b:00.0\"\n"
      "pciPassthru0.deviceId = \"0xZZZZ\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru0.systemId = \"x\"\n"
      "pciPassthru.use64bitMMIO = \"TRUE\"\n"
      "pciPassthru.64bitMMIOSizeGB = \"100\"\n";
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "vm.vmx").string();
  write_bytes(path, vm);
  auto r = run_cli({"fix", "--unsafe-fixes", "--diff", path});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains(path + ":8:26: error: pciPassthru0.deviceId '0xZZZZ'") &&
                        Catch::Contains("1 remain"));
  CHECK(read_bytes(path) == vm);
  // Printed whole, the fixed text is what the places refer to.
  r = run_cli({"fix", "--unsafe-fixes", path});
  CHECK_THAT(r.err, Catch::Contains(path + ":6:26: error: pciPassthru0.deviceId '0xZZZZ'"));
}

TEST_CASE("a place in text the fixes wrote maps to what that text replaced", "[checks][fix]") {
  vmxkit::checks::FixResult result;
  // "ab\ncd\n" -> pass 1 replaces "b" with "XYZ" and inserts "new\n" at the end:
  // "aXYZ\ncd\nnew\n"; pass 2 removes "a": "XYZ\ncd\nnew\n".
  result.passes = {{{1, 2, 1, 4}, {6, 6, 8, 12}}, {{0, 1, 0, 0}}};
  const std::string original = "ab\ncd\n";
  const auto at = [&](std::size_t begin, std::size_t end) {
    vmxkit::Diagnostic d;
    d.begin = begin;
    d.end = end;
    d.notes.push_back({begin, end, "note"});
    const vmxkit::Diagnostic m = vmxkit::checks::in_original(result, original, d);
    CHECK(m.notes.front().begin == m.begin);
    return std::pair{m.begin, m.end};
  };
  CHECK(at(4, 6) == std::pair<std::size_t, std::size_t>{3, 5});  // "cd": unchanged text
  CHECK(at(1, 2) == std::pair<std::size_t, std::size_t>{1, 2});  // inside "XYZ": "b"
  CHECK(at(0, 0) == std::pair<std::size_t, std::size_t>{1, 2});  // "X": past the removed "a"
  // In the inserted last line: the original's last line break, not a line it does not have.
  CHECK(at(7, 10) == std::pair<std::size_t, std::size_t>{5, 5});
}
