// SPDX-License-Identifier: Apache-2.0
// `vmxkit guest-check`: exit codes, text and JSON, input errors; in-process and as the built
// binary; and the README's "inside the VM" transcript.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/text.h"

namespace {

using vmxkit::test::run_cli;

std::string data(const std::string& name) {
  return vmxkit::test::source_path("tests/data/guest/" + name).string();
}

using Shell = vmxkit::test::ShellResult;
Shell shell(const std::string& command) { return vmxkit::test::run_shell(command); }

}  // namespace

TEST_CASE("guest-check exits 1 on warnings, 0 below --fail-on, and prints each finding's parts",
          "[cli][guest]") {
  const auto r = run_cli(
      {"guest-check", data("esxi-h100-cx7.lspci-vvv.txt"), data("esxi-h100-cx7.capture.txt")});
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("warning: NCCL sees PHB") &&
                        Catch::Contains("[GUEST002 nccl-no-gdr]") &&
                        Catch::Contains("  fix: give NCCL the host's real tree") &&
                        Catch::Contains("  doc: vmxkit rule GUEST002\n") &&
                        Catch::Contains("-> 0000:0b:00.0 (mlx5_0): PHB, GPUDirect RDMA off") &&
                        Catch::Contains("not ready: 0 error(s), 1 warning(s)"));
  const auto quiet =
      run_cli({"guest-check", "--fail-on", "error", data("esxi-h100-cx7.lspci-vvv.txt"),
               data("esxi-h100-cx7.capture.txt")});
  CHECK(quiet.code == 0);
  const auto ready =
      run_cli({"guest-check", data("kvm-switch.lspci-vvv.txt"), data("esxi-h100-cx7.capture.txt")});
  CHECK(ready.code == 0);
  CHECK_THAT(ready.out, Catch::EndsWith("guest ready for GPUDirect RDMA: no problems found\n"));
  const auto info = run_cli({"guest-check", "--fail-on", "info", data("kvm-switch.lspci-vvv.txt"),
                             data("esxi-h100-cx7.capture.txt")});
  CHECK(info.code == 1);  // the versions info
}

TEST_CASE("guest-check never says ready while a check is not made", "[cli][guest]") {
  const auto r = run_cli({"guest-check", data("kvm-switch.lspci-vvv.txt")});
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("guest ready for") &&
                        Catch::Contains("check(s) not made: give the inputs named above"));
}

TEST_CASE("guest-check --format json lists inputs, NCCL's view and findings with doc and source",
          "[cli][guest]") {
  const auto r =
      run_cli({"guest-check", "--format", "json", data("esxi-bar1-unassigned.lspci-vvv.txt"),
               data("esxi-no-peermem.capture.txt")});
  REQUIRE(r.code == 1);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("ready") == false);
  CHECK(doc.at("nccl").at(0).at("path") == "PHB");
  CHECK(doc.at("nccl").at(0).at("gdr_at_defaults") == false);
  std::vector<std::string> ids;
  for (const auto& f : doc.at("findings")) {
    ids.push_back(f.at("id"));
    CHECK(f.at("doc") == "docs/rules.md#" + vmxkit::ascii_lowercase(f.at("id").get<std::string>()) +
                             "-" + f.at("name").get<std::string>());
    CHECK(!f.at("source").get<std::string>().empty());
  }
  CHECK(ids == std::vector<std::string>{"GUEST001", "GUEST003", "GUEST002", "GUEST004", "GUEST010",
                                        "GUEST011"});
  CHECK(doc.at("findings").at(0).at("fix").get<std::string>().rfind("modprobe nvidia-peermem", 0) ==
        0);
  // The source is the References of the check's doc, on one line.
  CHECK_THAT(doc.at("findings").at(0).at("source").get<std::string>(),
             Catch::StartsWith("NVIDIA GPUDirect RDMA guide, \"Using nvidia-peermem\"") &&
                 Catch::Contains("; NVIDIA GPU Operator") && !Catch::Contains("\n"));
  CHECK(doc.at("inputs").at(0).at("kind") == "lspci");
}

TEST_CASE("guest-check --format sarif gives one located result per finding, valid SARIF 2.1.0",
          "[cli][guest][sarif]") {
  const auto json =
      run_cli({"guest-check", "--format", "json", data("esxi-bar1-unassigned.lspci-vvv.txt"),
               data("esxi-no-peermem.capture.txt")});
  const auto r =
      run_cli({"guest-check", "--format", "sarif", data("esxi-bar1-unassigned.lspci-vvv.txt"),
               data("esxi-no-peermem.capture.txt")});
  REQUIRE(r.code == json.code);
  const auto sarif = nlohmann::json::parse(r.out);
  const auto findings = nlohmann::json::parse(json.out).at("findings");
  const auto& run = sarif.at("runs").at(0);
  const auto& results = run.at("results");
  REQUIRE(results.size() == findings.size());
  const auto& rules = run.at("tool").at("driver").at("rules");
  // The rules are the registry's guest checks, described as lint describes its rules: the
  // summary, the doc as help, the severity as the default level.
  REQUIRE(rules.size() == 20);
  CHECK(rules.at(0).at("id") == "GUEST001");
  CHECK(rules.at(19).at("id") == "GUEST020");
  const auto& rule = rules.at(1);
  CHECK_THAT(rule.at("shortDescription").at("text").get<std::string>(),
             Catch::StartsWith("NCCL will not use GPUDirect RDMA"));
  CHECK(rule.at("fullDescription") == rule.at("shortDescription"));
  CHECK_THAT(rule.at("help").at("text").get<std::string>(),
             Catch::Contains("## What it does") && Catch::Contains("ncclTopoCheckGdr"));
  CHECK(rule.at("help").at("markdown") == rule.at("help").at("text"));
  CHECK(rule.at("defaultConfiguration").at("level") == "warning");
  CHECK(run.at("columnKind") == "unicodeCodePoints");
  // lint lists every check, the guest checks among them, in the same shape.
  const auto lint = nlohmann::json::parse(run_cli({"lint", "--format", "sarif", "-"}, "").out);
  const auto& lint_rules = lint.at("runs").at(0).at("tool").at("driver").at("rules");
  for (const auto& guest_rule : rules) {
    const auto it = std::find_if(lint_rules.begin(), lint_rules.end(),
                                 [&](const auto& l) { return l.at("id") == guest_rule.at("id"); });
    REQUIRE(it != lint_rules.end());
    CHECK(*it == guest_rule);
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& res = results[i];
    CHECK(res.at("ruleId") == findings[i].at("id"));
    CHECK(rules.at(res.at("ruleIndex").get<std::size_t>()).at("id") == res.at("ruleId"));
    const std::string level =
        findings[i].at("severity") == "info" ? "note" : findings[i].at("severity");
    CHECK(res.at("level") == level);
    if (!findings[i].at("location").is_null()) {
      // "tests/.../file.txt:12" in the JSON is uri + startLine here.
      const std::string where = findings[i].at("location");
      const auto& loc = res.at("locations").at(0).at("physicalLocation");
      const std::string uri = loc.at("artifactLocation").at("uri");
      CHECK(where.find(uri.substr(uri.rfind('/') + 1)) != std::string::npos);
      CHECK(where.substr(where.rfind(':') + 1) ==
            std::to_string(loc.at("region").at("startLine").get<int>()));
    }
    if (!findings[i].at("fix").is_null()) {
      CHECK(res.at("properties").at("fix") == findings[i].at("fix"));
    }
  }
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "out.sarif", r.out);
  const std::string cmd =
      "python3 -c 'import json,sys,jsonschema; "
      "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' '" +
      vmxkit::test::source_path("tests/data/sarif/sarif-2.1.0-rtm.5.json").string() + "' '" +
      (dir / "out.sarif").string() + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("guest-check input errors exit 2 with file:line:col", "[cli][guest]") {
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "bad.txt", "$ lsmod\nModule Size Used by\nnvidia x 0\n");
  const auto r = run_cli({"guest-check", (dir / "bad.txt").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.txt:3:8: expected the module size"));
  const auto stdin_run = run_cli({"guest-check", "-"}, "hello world\n");
  CHECK(stdin_run.code == 2);
  CHECK_THAT(stdin_run.err, Catch::Contains("<stdin>:1:1: unknown guest input"));
  const auto none = run_cli({"guest-check"});
  CHECK(none.code == 2);
}

TEST_CASE("the built vmxkit binary runs guest-check with the same exit codes", "[cli][guest]") {
  const std::string bin = std::string("'") + VMXKIT_BINARY + "'";
  const Shell bad = shell(bin + " guest-check '" + data("esxi-h100-cx7.lspci-vvv.txt") + "' '" +
                          data("esxi-no-peermem.capture.txt") + "'");
  INFO(bad.out);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.out, Catch::Contains("[GUEST001 gdr-kernel-path]"));
  const Shell good = shell(bin + " guest-check '" + data("kvm-switch.lspci-vvv.txt") + "' '" +
                           data("esxi-h100-cx7.capture.txt") + "'");
  CHECK(good.code == 0);
  const Shell missing = shell(bin + " guest-check /nonexistent/guest.txt");
  CHECK(missing.code == 2);
}

TEST_CASE("the README's inside-the-VM transcript is what vmxkit prints", "[cli][guest][readme]") {
  const std::string readme = vmxkit::test::read_bytes(vmxkit::test::source_path("README.md"));
  const auto start = readme.find("```console\n$ vmxkit guest-check");
  REQUIRE(start != std::string::npos);
  const auto end = readme.find("\n```", start + 10);
  std::istringstream in(readme.substr(start + 11, end - start - 11));
  std::string command;
  std::string expected;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("$ ", 0) == 0) {
      REQUIRE(command.empty());  // one command in the block
      command = line.substr(2);
    } else {
      expected += line + "\n";
    }
  }
  REQUIRE(!command.empty());
  const std::string path = std::filesystem::path(VMXKIT_BINARY).parent_path().string();
  const Shell r = shell("cd '" + vmxkit::test::source_path("").string() + "' && PATH='" + path +
                        "':\"$PATH\" " + command);
  CHECK(r.out == expected);
}

TEST_CASE("guest-check prints what NCCL's log says it decided, as text and as JSON",
          "[cli][guest][nccl-log]") {
  const auto text = run_cli({"guest-check", data("esxi-h100-cx7.lspci-vvv.txt"),
                             data("esxi-h100-cx7.capture.txt"), data("nccl-gdr-disabled.log.txt")});
  INFO(text.out);
  CHECK_THAT(text.out,
             Catch::Contains("NCCL's log: NCCL 2.19.3+cuda12.2, network IB (mlx5_0/IB)\n") &&
                 Catch::Contains("  GPU Direct RDMA off: 0000:03:00.0 (H100 SXM5 80GB) - HCA 0 "
                                 "(mlx5_0): distance 6 (PHB) > 4 (PXB)\n") &&
                 Catch::Contains("  channels: 0 via NET with GDRDMA, 4 via NET without"));
  const auto json = run_cli({"guest-check", "--format", "json", data("nccl-gdr-disabled.log.txt")});
  const auto doc = nlohmann::json::parse(json.out);
  const auto& log = doc.at("nccl_log");
  CHECK(log.at("version") == "2.19.3+cuda12.2");
  CHECK(log.at("gdr").at(0).at("distance") == 6);
  CHECK(log.at("gdr").at(0).at("distance_type") == "PHB");
  CHECK(log.at("gdr").at(0).at("gpu") == "GPU 3000");
  CHECK(log.at("channels").at("net") == 4);
  const auto none = run_cli({"guest-check", "--format", "json", data("kvm-switch.lspci-vvv.txt")});
  CHECK(nlohmann::json::parse(none.out).at("nccl_log").is_null());
}

TEST_CASE("an NCCL topology dump with a DOCTYPE is refused as bad input, never expanded",
          "[cli][guest][nccl-dump]") {
  const auto r = run_cli({"guest-check", "-"},
                         "<!DOCTYPE system [<!ENTITY x \"0000:03:00.0\">]>\n"
                         "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"&x;\"/></cpu>"
                         "</system>\n");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("<stdin>:1:") && Catch::Contains("DOCTYPE is not allowed"));
}
