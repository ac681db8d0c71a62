// SPDX-License-Identifier: Apache-2.0
// guest-check --nccl-topo (GUEST015): a topology file whose GPU and NIC bus ids are not the
// guest's. NCCL looks a device up by its bus id as a string (ncclTopoGetPciNode ->
// xmlFindTagKv, src/graph/xml.h), and one it does not find it places by the guest's own sysfs
// (ncclTopoGetXmlFromSys): behind a VMware root port, under the <cpu> of the guest's NUMA node,
// -1 when the guest kernel has none, which is not the file's node: SYS, GPUDirect RDMA off, and
// NCCL says nothing above INFO. NCCL 2.30.7 (commit 5067397c); the same was seen running NCCL's
// own code on such a guest.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/nccl_topo_xml.h"

namespace {

using vmxkit::checks::Finding;
using vmxkit::guest::NcclPathType;
using vmxkit::test::run_cli;
using vmxkit::test::source_path;

std::string src(const std::string& relative) { return source_path(relative).string(); }
std::string data(const std::string& name) { return src("tests/data/guest/" + name); }
const std::string k2Socket = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";

/// The file nccl-topo writes for the ESXi guest fixture (GPUs 04, 13; NICs 0c, 1b) on the
/// 2-socket example host, written into `dir`.
std::string topo_file(const vmxkit::test::TempDir& dir) {
  const std::string vmx = (dir / "plan.vmx").string();
  const auto g =
      run_cli({"generate", "--host", src(k2Socket), "--gpu", "0000:18:00.0", "--gpu",
               "0000:1a:00.0", "--nic", "0000:19:00.0", "--nic", "0000:1b:00.0", "-o", vmx});
  REQUIRE(g.code == 0);
  const std::string out = (dir / "nccl-topo.xml").string();
  const auto r = run_cli({"nccl-topo", "--host", src(k2Socket), "--vm", vmx, "--guest",
                          data("esxi-2gpu-2nic.lspci-vvv.txt"), "-o", out});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return out;
}

/// The ESXi guest fixture with `from` replaced by `to` (once).
std::string guest_text(const std::string& from, const std::string& to) {
  std::string text = vmxkit::test::read_bytes(data("esxi-2gpu-2nic.lspci-vvv.txt"));
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

// The guest after another device took the NIC's root port: NIC 0c:00.0 is now 0d:00.0.
const std::string kNicFrom = "\n0c:00.0 Infiniband";
const std::string kNicTo = "\n0d:00.0 Infiniband";

vmxkit::guest::Guest guest_of(const std::string& text) {
  vmxkit::guest::Guest g;
  load_text(g, text, "guest.txt");
  g.finalize();
  return g;
}

std::vector<const Finding*> with_id(const std::vector<Finding>& fs, std::string_view id) {
  std::vector<const Finding*> out;
  for (const Finding& f : fs) {
    if (f.check->id == id) out.push_back(&f);
  }
  return out;
}

}  // namespace

TEST_CASE("a file whose NIC bus id moved says which id moved, to what, and the pairs now SYS",
          "[guest][nccl-topo][GUEST015]") {
  vmxkit::test::TempDir dir;
  const std::string file = topo_file(dir);
  const auto tree =
      vmxkit::guest::read_nccl_topo_xml(vmxkit::test::read_bytes(file), "nccl-topo.xml");
  const auto g = guest_of(guest_text(kNicFrom, kNicTo));
  const auto c = vmxkit::guest::check_nccl_topo(tree, g);
  REQUIRE(c.moved.size() == 1);
  CHECK(c.moved[0].file_busid == "0000:0c:00.0");
  CHECK(c.moved[0].id == "15b3:1021");
  CHECK(c.moved[0].guest_busid == "0000:0d:00.0");
  CHECK(c.moved[0].line > 0);
  CHECK(c.not_in_file.empty());  // the moved entry accounts for 0d:00.0
  REQUIRE(c.changed.size() == 2);
  for (const auto& p : c.changed) {
    CHECK(p.nic == "0000:0d:00.0");
    CHECK(p.in_file == NcclPathType::pix);
    CHECK(p.in_guest == NcclPathType::sys);
  }
  // The same guest as the file: nothing to say.
  CHECK(vmxkit::guest::check_nccl_topo(tree, guest_of(guest_text("", ""))).ok());

  // guest-check: a warning naming both ids and the fallback, exit 1.
  vmxkit::test::write_bytes(dir / "moved.txt", guest_text(kNicFrom, kNicTo));
  const auto r = run_cli({"guest-check", (dir / "moved.txt").string(), "--nccl-topo", file});
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("0000:0c:00.0: warning: the topology file's NIC 0000:0c:00.0 "
                                    "(15b3:1021) is not in this guest; the guest's 15b3:1021 is "
                                    "0000:0d:00.0") &&
                        Catch::Contains("GPU 0000:04:00.0 - NIC 0000:0d:00.0: SYS where the "
                                        "file (the host) has PIX") &&
                        Catch::Contains("[GUEST015 nccl-topo-mismatch]") &&
                        Catch::Contains("vmxkit nccl-topo --host HOST"));
  // NCCL's view with the file: the moved NIC is off the GPUs' switch, the other one is kept.
  CHECK_THAT(r.out, Catch::Contains("0000:04:00.0 (H100 PCIe) -> 0000:1b:00.0: PIX, GPUDirect "
                                    "RDMA on"));
}

TEST_CASE("guest-check with a file that matches the guest gives NCCL's view with the file",
          "[guest][nccl-topo][GUEST015]") {
  vmxkit::test::TempDir dir;
  const std::string file = topo_file(dir);
  const auto without = run_cli({"guest-check", data("esxi-2gpu-2nic.lspci-vvv.txt")});
  CHECK_THAT(without.out, Catch::Contains("GUEST002") &&
                              Catch::Contains("-> 0000:0c:00.0: PHB, GPUDirect RDMA off"));
  const auto with = run_cli({"guest-check", data("esxi-2gpu-2nic.lspci-vvv.txt"), "--nccl-topo",
                             file, "--format", "json"});
  INFO(with.out);
  const auto j = nlohmann::json::parse(with.out);
  for (const auto& f : j.at("findings")) {
    CHECK(f.at("id") != "GUEST015");
    CHECK(f.at("id") != "GUEST002");
  }
  REQUIRE(j.at("nccl").size() == 2);
  for (const auto& p : j.at("nccl")) {
    CHECK(p.at("path") == "PIX");
    CHECK(p.at("from") == "NCCL_TOPO_FILE");
    CHECK(p.at("gdr_at_defaults") == true);
  }
}

TEST_CASE("a file spelled other than NCCL spells bus ids, or without a bridge's class, is caught",
          "[guest][nccl-topo][GUEST015]") {
  vmxkit::test::TempDir dir;
  std::string text = vmxkit::test::read_bytes(topo_file(dir));
  // Upper case: CUDA may print it so, NCCL looks it up lower case (int64ToBusId), strcmp.
  const auto at = text.find("busid=\"0000:0c:00.0\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 20, "busid=\"0000:0C:00.0\"");
  const auto cls = text.find(" class=\"0x060400\"");
  REQUIRE(cls != std::string::npos);
  text.erase(cls, 17);
  const auto tree = vmxkit::guest::read_nccl_topo_xml(text, "edited.xml");
  const auto g = guest_of(guest_text("", ""));
  const vmxkit::guest::NcclTopoInput in{"edited.xml", tree};
  const auto findings = vmxkit::checks::check_guest(g, &in);
  const auto ours = with_id(findings, "GUEST015");
  REQUIRE(ours.size() == 2);
  CHECK_THAT(ours[0]->message, Catch::Contains("no class attribute: NCCL's init fails"));
  CHECK(ours[0]->where.line > 0);
  CHECK_THAT(ours[1]->message, Catch::Contains("NIC 0000:0C:00.0 (15b3:1021) is not in this "
                                               "guest; the guest's 15b3:1021 is 0000:0c:00.0"));
}

TEST_CASE("NCCL_TOPO_FILE in NCCL's log, the environment or a command line is read and named",
          "[guest][nccl-topo][GUEST015]") {
  const auto log = vmxkit::guest::load_guest({data("nccl-log.capture.txt")});
  REQUIRE(log.nccl_topo_file());
  CHECK(log.nccl_topo_file()->value == "/etc/nccl/nccl-topo.xml");
  CHECK(log.nccl_topo_file()->where.line == 11);
  CHECK(log.has(vmxkit::guest::InputKind::nccl_log));

  vmxkit::guest::Guest env;
  load_text(env, "$ env | grep NCCL\nNCCL_DEBUG=INFO\nNCCL_TOPO_FILE=\"/opt/topo.xml\"\n", "e.txt");
  env.finalize();
  REQUIRE(env.nccl_topo_file());
  CHECK(env.nccl_topo_file()->value == "/opt/topo.xml");
  CHECK(env.has(vmxkit::guest::InputKind::environment));

  vmxkit::guest::Guest cmd;
  load_text(cmd,
            "$ NCCL_DEBUG=INFO NCCL_TOPO_FILE=/x/t.xml all_reduce_perf -g 1\n"
            "gpuvm:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n",
            "c.txt");
  cmd.finalize();
  REQUIRE(cmd.nccl_topo_file());
  CHECK(cmd.nccl_topo_file()->value == "/x/t.xml");
  CHECK(cmd.nccl_topo_file()->where.line == 1);

  // Without the file, guest-check names it and does not judge NCCL's view from lspci alone.
  const auto r =
      run_cli({"guest-check", data("esxi-2gpu-2nic.lspci-vvv.txt"), data("nccl-log.capture.txt")});
  INFO(r.out);
  CHECK_THAT(r.out, Catch::Contains("GUEST015: info: NCCL_TOPO_FILE=/etc/nccl/nccl-topo.xml") &&
                        Catch::Contains("needs: `--nccl-topo /etc/nccl/nccl-topo.xml`"));
  CHECK_THAT(r.out, !Catch::Contains("[GUEST002 nccl-no-gdr]"));
  // Nor does it print a view from lspci that NCCL, reading the file, does not have.
  CHECK_THAT(r.out, !Catch::Contains("NCCL at its defaults"));
  const vmxkit::guest::Guest both = vmxkit::guest::load_guest(
      {data("esxi-2gpu-2nic.lspci-vvv.txt"), data("nccl-log.capture.txt")});
  CHECK(vmxkit::guest::nccl_view(both).empty());
  const auto json = run_cli({"guest-check", "--format", "json",
                             data("esxi-2gpu-2nic.lspci-vvv.txt"), data("nccl-log.capture.txt")});
  CHECK(nlohmann::json::parse(json.out).at("nccl").empty());
  // With the file given, the view is NCCL's with it.
  vmxkit::test::TempDir dir;
  const auto with =
      run_cli({"guest-check", "--format", "json", data("esxi-2gpu-2nic.lspci-vvv.txt"),
               data("nccl-log.capture.txt"), "--nccl-topo", topo_file(dir)});
  const auto nccl = nlohmann::json::parse(with.out).at("nccl");
  REQUIRE(nccl.size() == 2);
  CHECK(nccl.at(0).at("from") == "NCCL_TOPO_FILE");
}

TEST_CASE("guest-check --nccl-topo with a file NCCL would refuse stops with exit 2 and its line",
          "[guest][nccl-topo][GUEST015]") {
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "bad.xml",
                            "<system version=\"1\">\n  <cpu numaid=\"x\"/>\n</system>\n");
  const auto bad = run_cli({"guest-check", data("esxi-2gpu-2nic.lspci-vvv.txt"), "--nccl-topo",
                            (dir / "bad.xml").string()});
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Catch::Contains("bad.xml:2:3: expected <cpu numaid=\"N\">"));
  const auto missing = run_cli({"guest-check", data("esxi-2gpu-2nic.lspci-vvv.txt"), "--nccl-topo",
                                (dir / "none.xml").string()});
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("none.xml"));
}
