// SPDX-License-Identifier: Apache-2.0
// The public API of `vmxkit lint FILE...` and `vmxkit fix`: rule selection, many files linted in
// order, the report written as they come, fix of bytes and its places in the original, and what
// lint --host checks of a host.
#include <algorithm>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;

namespace {

std::vector<std::string_view> rule_ids(const std::vector<vmxkit::Diagnostic>& diagnostics) {
  std::vector<std::string_view> ids;
  for (const vmxkit::Diagnostic& d : diagnostics) ids.push_back(d.rule_id);
  return ids;
}

std::string example(const std::string& relative) {
  return vmxkit::test::source_path(relative).string();
}

// The repository's example VMs and a few check fixtures: findings of many rules, with fixes.
std::vector<std::string> some_vmx_files() {
  std::vector<std::string> files;
  for (const auto& path : vmxkit::test::repo_files(".vmx")) {
    const std::string p = path.string();
    if (p.find("/examples/vmx/") != std::string::npos ||
        p.find("/tests/checks/VMX0") != std::string::npos ||
        p.find("/tests/checks/PT0") != std::string::npos) {
      files.push_back(p);
    }
  }
  return files;
}

// A line with a stray '|' (VMX003, a safe fix that makes it `|7C`), then a line VMware cannot
// read (VMX001, no fix).
const std::string kEscapeThenMalformed = "a = \"x|y\"\nb = \"1\"\nnot a line\n";

}  // namespace

TEST_CASE("RuleSelection selects by id, prefix and ALL, and the more specific selector wins",
          "[api][lint][select]") {
  vmxkit::RuleSelection all;
  CHECK(all.empty());
  CHECK(all.enabled("PT004"));

  vmxkit::RuleSelection s;
  s.select = {"PT"};
  s.ignore = {"PT00"};
  s.extend_select = {"PT004"};
  CHECK_FALSE(s.empty());
  CHECK(s.enabled("PT004"));        // PT004 is more specific than the ignored PT00
  CHECK_FALSE(s.enabled("PT003"));  // PT00 is more specific than PT
  CHECK(s.enabled("PT010"));        // selected by PT, not ignored
  CHECK_FALSE(s.enabled("VMX001"));

  vmxkit::RuleSelection tie;
  tie.extend_select = {"MMIO"};
  tie.extend_ignore = {"MMIO"};
  CHECK_FALSE(tie.enabled("MMIO001"));  // an ignore wins a tie
  CHECK(tie.enabled("VMX001"));         // no select: every rule

  vmxkit::RuleSelection everything_but;
  everything_but.select = {"ALL"};
  everything_but.ignore = {"VMX"};
  CHECK(everything_but.enabled("PT001"));
  CHECK_FALSE(everything_but.enabled("VMX005"));
}

TEST_CASE("RuleSelection::validate names a selector that selects no lint rule",
          "[api][lint][select]") {
  vmxkit::RuleSelection ok;
  ok.select = {"ALL", "PT", "MMIO0", "VMX001"};
  CHECK_NOTHROW(ok.validate());

  vmxkit::RuleSelection host_rule;
  host_rule.ignore = {"HOST003"};  // a host check, not a lint rule
  CHECK_THROWS_WITH(host_rule.validate(), Contains("'HOST003' selects no lint rule"));

  vmxkit::RuleSelection typo;
  typo.extend_select = {"PT", "XYZ"};
  CHECK_THROWS_WITH(typo.validate(), Contains("'XYZ' selects no lint rule"));
}

TEST_CASE("RuleSelection::filter keeps the enabled findings in their order",
          "[api][lint][select]") {
  const vmxkit::LintReport r = vmxkit::lint(vmxkit::load("vm.vmx", kEscapeThenMalformed));
  REQUIRE(rule_ids(r.diagnostics) == std::vector<std::string_view>{"VMX003", "VMX001"});

  std::vector<vmxkit::Diagnostic> kept = r.diagnostics;
  vmxkit::RuleSelection none;
  none.filter(kept);
  CHECK(rule_ids(kept) == rule_ids(r.diagnostics));

  vmxkit::RuleSelection only;
  only.select = {"VMX001"};
  only.filter(kept);
  CHECK(rule_ids(kept) == std::vector<std::string_view>{"VMX001"});
}

TEST_CASE("lint_files hands every file's outcome over in order, errors included, on any jobs",
          "[api][lint][files]") {
  const std::vector<std::string> files = some_vmx_files();
  REQUIRE(files.size() >= 5);
  std::vector<vmxkit::DocumentSource> sources(files.begin(), files.end());
  sources.insert(sources.begin() + 2, vmxkit::DocumentSource("no/such/file.vmx"));
  sources.push_back(vmxkit::DocumentSource::from_bytes("stdin.vmx", kEscapeThenMalformed));
  sources.push_back(vmxkit::DocumentSource::from_bytes("bad.json", "{\"config\": "));

  for (const unsigned jobs : {1u, 3u, 16u}) {
    INFO("jobs " << jobs);
    std::vector<vmxkit::LintFileResult> got;
    vmxkit::lint_files(sources, {.lint = {}, .rules = {}, .jobs = jobs},
                       [&](vmxkit::LintFileResult r) { got.push_back(std::move(r)); });
    REQUIRE(got.size() == sources.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO(sources[i].path);
      CHECK(got[i].path == sources[i].path);
      if (sources[i].path == "no/such/file.vmx" || sources[i].path == "bad.json") {
        CHECK_FALSE(got[i].report);
        CHECK_THAT(got[i].error, Contains(sources[i].path));
        continue;
      }
      REQUIRE(got[i].report);
      CHECK(got[i].error.empty());
      const vmxkit::Input in = sources[i].bytes ? vmxkit::load(sources[i].path, *sources[i].bytes)
                                                : vmxkit::load_file(sources[i].path);
      const vmxkit::LintReport alone = vmxkit::lint(in);
      CHECK(got[i].report->path == sources[i].path);
      CHECK(got[i].report->bytes == in.bytes);
      CHECK(rule_ids(got[i].report->diagnostics) == rule_ids(alone.diagnostics));
    }
  }
}

TEST_CASE("lint_files reports only the selected rules, and lints with the host it is given",
          "[api][lint][files]") {
  const vmxkit::Host host =
      vmxkit::load_host({example("examples/hosts/"
                                 "synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")});
  const std::string vm = example("examples/vmx/gpu-rdma-worker.vmx");
  vmxkit::LintFilesOptions options;
  options.lint.host = &host;
  std::vector<vmxkit::LintReport> reports;
  const auto keep = [&](vmxkit::LintFileResult r) { reports.push_back(std::move(*r.report)); };
  vmxkit::lint_files({vm}, options, keep);
  options.rules.select = {"TOPO"};
  vmxkit::lint_files({vm}, options, keep);
  REQUIRE(reports.size() == 2);
  const auto all = rule_ids(reports[0].diagnostics);
  CHECK(std::find(all.begin(), all.end(), "TOPO002") != all.end());  // only with the host
  CHECK(std::any_of(all.begin(), all.end(), [](auto id) { return !id.starts_with("TOPO"); }));
  const auto topo = rule_ids(reports[1].diagnostics);
  CHECK_FALSE(topo.empty());
  CHECK(std::all_of(topo.begin(), topo.end(), [](auto id) { return id.starts_with("TOPO"); }));
}

TEST_CASE("lint_files lets what the callback throws out, once its threads have stopped",
          "[api][lint][files]") {
  std::vector<vmxkit::DocumentSource> sources;
  for (int i = 0; i < 64; ++i) {
    sources.push_back(vmxkit::DocumentSource::from_bytes("vm" + std::to_string(i) + ".vmx",
                                                         kEscapeThenMalformed));
  }
  int calls = 0;
  CHECK_THROWS_AS(vmxkit::lint_files(sources, {.lint = {}, .rules = {}, .jobs = 4},
                                     [&](const vmxkit::LintFileResult&) {
                                       if (++calls == 3) throw std::runtime_error("stop");
                                     }),
                  std::runtime_error);
  CHECK(calls == 3);
}

TEST_CASE("LintReportWriter writes what vmxkit lint prints, in every format",
          "[api][lint][report]") {
  const std::vector<std::string> files = some_vmx_files();
  std::vector<std::string> args = {"lint", "--format", "", "--fail-on", "error"};
  args.insert(args.end(), files.begin(), files.end());
  args.emplace_back("no/such/file.vmx");
  for (const char* format : {"text", "json", "sarif"}) {
    INFO(format);
    args[2] = format;
    const auto cli = vmxkit::test::run_cli(args);
    REQUIRE(cli.code == 2);  // the file that is not there

    std::string out;
    std::size_t pieces = 0;
    vmxkit::LintReportWriter writer(format, [&](std::string_view text) {
      out += text;
      ++pieces;
    });
    for (const std::string& f : files) {
      const std::size_t before = pieces;
      writer.add(vmxkit::lint(vmxkit::load_file(f)));
      // What add() writes is handed over before it returns.
      if (std::string_view(format) == "json") CHECK(pieces > before);
    }
    writer.add_unread();
    writer.finish();
    CHECK(out == cli.out);
  }
}

TEST_CASE("LintReportWriter colours text on request and refuses an unknown format",
          "[api][lint][report]") {
  std::string plain;
  std::string coloured;
  const vmxkit::LintReport r = vmxkit::lint(vmxkit::load("vm.vmx", kEscapeThenMalformed));
  for (const bool color : {false, true}) {
    vmxkit::LintReportWriter w(
        "text", [&](std::string_view t) { (color ? coloured : plain) += t; }, color);
    w.add(r);
    w.finish();
  }
  CHECK_THAT(plain, Contains("vm.vmx:3:4: error: expected '=' after key 'not'"));
  CHECK(plain.find('\x1b') == std::string::npos);
  CHECK(coloured.find("\x1b[") != std::string::npos);
  CHECK_THROWS_WITH(vmxkit::LintReportWriter("xml", [](std::string_view) {}),
                    Contains("'xml' is not a lint report format"));
}

TEST_CASE("fix of bytes is fix of the loaded input, and in_original places what remains",
          "[api][fix]") {
  const vmxkit::FixResult loaded = vmxkit::fix(vmxkit::load("vm.vmx", kEscapeThenMalformed));
  const vmxkit::FixResult bytes = vmxkit::fix("vm.vmx", kEscapeThenMalformed);
  CHECK(bytes.bytes == loaded.bytes);
  CHECK(bytes.bytes == "a = \"x|7Cy\"\nb = \"1\"\nnot a line\n");
  CHECK(bytes.fixes_applied == 1);
  CHECK(bytes.passes.size() == 1);
  CHECK(loaded.passes.size() == 1);
  REQUIRE(rule_ids(bytes.remaining.diagnostics) == std::vector<std::string_view>{"VMX001"});

  const vmxkit::Diagnostic& fixed = bytes.remaining.diagnostics[0];
  CHECK(fixed.begin == bytes.bytes.find(" a line"));
  const vmxkit::Diagnostic original = vmxkit::in_original(bytes, kEscapeThenMalformed, fixed);
  CHECK(original.begin == kEscapeThenMalformed.find(" a line"));
  CHECK(original.begin + 2 == fixed.begin);
  CHECK(original.message == fixed.message);
}

TEST_CASE("render_diagnostics shows a line's source under ten findings at most",
          "[api][fix][report]") {
  const std::string text = "bad line\n";
  const vmxkit::LineIndex lines(text);
  vmxkit::Diagnostic d;
  d.rule_id = "VMX001";
  d.begin = 0;
  d.end = 3;
  d.message = "a finding";
  const std::string one = vmxkit::render_diagnostic("f.vmx", text, lines, d);
  CHECK(vmxkit::render_diagnostics("f.vmx", text, lines, {d, d}) == one + one);

  const std::vector<vmxkit::Diagnostic> many(12, d);
  const std::string all = vmxkit::render_diagnostics("f.vmx", text, lines, many);
  std::size_t excerpts = 0;
  for (std::size_t at = all.find("\nbad line\n"); at != std::string::npos;
       at = all.find("\nbad line\n", at + 1)) {
    ++excerpts;
  }
  CHECK(excerpts == 10);
  CHECK(all.ends_with("f.vmx:1:1: error: a finding [VMX001]\n"));
}
