// SPDX-License-Identifier: Apache-2.0
// What vmxkit prints stays bounded by the number of findings, not by the size of the lines they
// are on, and the streamed reports are the documents their writers describe.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/report/diagnostic_text.h"

using vmxkit::test::run_cli;

namespace {

// A .vmx whose second line is a 10 MB line VMware cannot read: a key with no '='.
std::string file_with_huge_malformed_line() {
  return "memsize = \"4096\"\n" + std::string(10'000'000, 'k') + " value\nfirmware = \"efi\"\n";
}

}  // namespace

TEST_CASE("a 10 MB unreadable line puts less than 10 KB on stderr", "[perf][report]") {
  const std::string text = file_with_huge_malformed_line();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"get", "-", "memsize"},
                                             {"set", "-", "memsize=8192"},
                                             {"unset", "-", "firmware"},
                                             {"fmt", "-"},
                                             {"fix", "-"}}) {
    INFO(args[0]);
    const auto r = run_cli(args, text);
    CHECK(r.err.size() < 10'000);
    CHECK(r.err.find("expected '=' after key 'kkkk") != std::string::npos);
  }
  const auto lint = run_cli({"lint", "-"}, text);
  CHECK(lint.out.size() < 10'000);
  CHECK(lint.out.find("<stdin>:2:10000001: error:") != std::string::npos);
}

TEST_CASE("10,000 findings on one long line print a bounded report", "[perf][report]") {
  // One 1 MB line, as a ConfigSpec on one line is, with a finding every 100 bytes.
  const std::string text = std::string(1'000'000, 'x') + "\n";
  const vmxkit::LineIndex index(text);
  std::vector<vmxkit::Diagnostic> diagnostics(10'000);
  for (std::size_t i = 0; i < diagnostics.size(); ++i) {
    diagnostics[i].rule_id = "XML001";
    diagnostics[i].begin = i * 100;
    diagnostics[i].end = i * 100 + 1;
    diagnostics[i].message = "unexpected attribute 'a" + std::to_string(i) + "'";
    diagnostics[i].notes.push_back({0, 1, "the element starts here"});
  }
  vmxkit::report::DiagnosticPrinter printer("spec.xml", text, index, false);
  std::string out;
  for (const auto& d : diagnostics) printer.print(out, d);
  // Each finding prints its location line and its note's; the source line is shown at most
  // kMaxExcerptsPerLine times, each as a window of at most kMaxSourceColumns bytes.
  CHECK(out.size() < 10'000 * 150 + vmxkit::report::kMaxExcerptsPerLine * 2 * 220);
  CHECK(out.find("spec.xml:1:999901: error: unexpected attribute 'a9999' [XML001]\n") !=
        std::string::npos);
  CHECK(out.find("(line 1 was shown 10 times; later findings on it are shown without it)") !=
        std::string::npos);
}

TEST_CASE("a long source line is shown as a window with the caret under the column",
          "[perf][report]") {
  std::string line;
  for (int i = 0; i < 1000; ++i) line.push_back(static_cast<char>('a' + i % 26));
  const std::string text = line + "\nnext\n";
  const vmxkit::LineIndex index(text);
  for (const std::size_t column : {1u, 50u, 500u, 990u, 1000u}) {
    INFO(column);
    vmxkit::Diagnostic d;
    d.rule_id = "VMX001";
    d.begin = column - 1;
    d.end = column;
    d.message = "m";
    std::string out;
    vmxkit::report::DiagnosticPrinter("vm.vmx", text, index, false).print(out, d);
    const std::size_t source_begin = out.find('\n') + 1;
    const std::size_t caret_begin = out.find('\n', source_begin) + 1;
    const std::string source = out.substr(source_begin, caret_begin - 1 - source_begin);
    const std::string caret = out.substr(caret_begin, out.find('\n', caret_begin) - caret_begin);
    CHECK(source.size() <= vmxkit::report::kMaxSourceColumns + 6);
    REQUIRE(caret.size() >= 1);
    CHECK(caret.back() == '^');
    // The caret stands under the byte at `column`.
    CHECK(source[caret.size() - 1] == line[column - 1]);
    CHECK(source.starts_with("...") == (column > vmxkit::report::kMaxSourceColumns / 2 + 1));
  }
}

TEST_CASE("a message longer than kMaxMessageBytes is cut", "[perf][report]") {
  const std::string text = "a = \"1\"\n";
  const vmxkit::LineIndex index(text);
  vmxkit::Diagnostic d;
  d.rule_id = "VMX004";
  d.message = "key '" + std::string(1'000'000, 'k') + "' contains a no-break space";
  std::string out;
  vmxkit::report::DiagnosticPrinter("vm.vmx", text, index, false).print(out, d);
  CHECK(out.size() < vmxkit::report::kMaxMessageBytes + 200);
  CHECK(out.find(std::string(100, 'k') + "... [VMX004]\n") != std::string::npos);
}

namespace {

// Lint inputs with findings, notes, fixes, several files and bytes JSON must escape.
std::vector<std::string> report_files(vmxkit::test::TempDir& dir) {
  std::vector<std::string> paths;
  const std::vector<std::string> texts = {
      "a = TRUE\nA = \"x\"\nb = \"\x01\x7F\xC3\xA9 \\\\ \\\"\"\n# vmxkit: disable=VMX004\n",
      "sched.mem.pin = maybe\r\nk =\t\"v\"\r\nbad \"line\r\n", "",
      "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"0000:3b:00.0\"\n", "key\xFF\xFE = 1\n"};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    paths.push_back((dir / ("vm" + std::to_string(i) + ".vmx")).string());
    vmxkit::test::write_bytes(paths.back(), texts[i]);
  }
  // Real files too: the repository's own .vmx files, 40 of them (the report is in the order
  // given, so which ones does not matter).
  const auto repo = vmxkit::test::repo_files(".vmx");
  for (std::size_t i = 0; i < repo.size() && i < 40; ++i) paths.push_back(repo[i].string());
  return paths;
}

}  // namespace

TEST_CASE("the streamed JSON and SARIF reports are the documents nlohmann writes",
          "[perf][report]") {
  vmxkit::test::TempDir dir;
  std::vector<std::string> args = {"lint", "--format", "json"};
  const auto files = report_files(dir);
  args.insert(args.end(), files.begin(), files.end());
  for (const std::string format : {"json", "sarif"}) {
    INFO(format);
    args[2] = format;
    const auto r = run_cli(args);
    CHECK(r.code == 1);
    const auto doc = nlohmann::ordered_json::parse(r.out);
    CHECK(r.out == doc.dump(2, ' ', false) + "\n");
  }
  // No file read: an empty list.
  const auto none = run_cli({"lint", "--format", "json", (dir / "missing.vmx").string()});
  CHECK(none.code == 2);
  const auto doc = nlohmann::ordered_json::parse(none.out);
  CHECK(none.out == doc.dump(2, ' ', false) + "\n");
  CHECK(doc["files"].empty());
}

TEST_CASE("lint on many threads reports the files in the order given", "[perf][lint]") {
  vmxkit::test::TempDir dir;
  const auto files = report_files(dir);
  std::vector<std::string> args = {"lint", "--format", "json", "-j", "1"};
  // Many files, so workers run ahead of the writer: the first files again and again.
  for (int round = 0; round < 20; ++round) args.insert(args.end(), files.begin(), files.end());
  const auto serial = run_cli(args);
  args[4] = "4";
  const auto parallel = run_cli(args);
  CHECK(parallel.code == serial.code);
  CHECK(parallel.out == serial.out);
  args[2] = "text";
  const auto text_parallel = run_cli(args);
  args[4] = "1";
  CHECK(text_parallel.out == run_cli(args).out);
}
