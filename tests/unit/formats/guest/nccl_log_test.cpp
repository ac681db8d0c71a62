// SPDX-License-Identifier: Apache-2.0
// NCCL's log and topology dump as guest inputs: the line formats of each NCCL version that
// changed them (github NVIDIA/nccl, tags v2.4.8-1 to v2.30.7-1), what the analysis makes of
// them (analysis/nccl_log.h), and the fixtures in tests/data/guest/ (each names its source).
#include "vmxkit/analysis/nccl_log.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/report/nccl_topo_xml.h"

namespace {

using vmxkit::guest::Guest;
using vmxkit::guest::InputKind;
using vmxkit::guest::NcclLog;
using vmxkit::guest::NcclPathType;

std::string fixture(const std::string& name) {
  return vmxkit::test::read_bytes(vmxkit::test::source_path("tests/data/guest/" + name));
}

Guest guest_of(const std::vector<std::pair<std::string, std::string>>& inputs) {
  Guest g;
  for (const auto& [name, text] : inputs) load_text(g, text, name);
  g.finalize();
  return g;
}

Guest fixtures(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& n : names) inputs.emplace_back(n, fixture(n));
  return guest_of(inputs);
}

const NcclLog& log_of(const Guest& g) {
  REQUIRE(g.nccl_log().has_value());
  return *g.nccl_log();
}

std::vector<std::string> ids(const std::vector<vmxkit::checks::Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.emplace_back(f.check->id);
  return out;
}

}  // namespace

TEST_CASE("NCCL's log: version, overrides, NET plugin, GDR lines, channels and the search result",
          "[guest][nccl-log]") {
  const Guest g = fixtures({"nccl-gdr-disabled.log.txt"});
  const NcclLog& log = log_of(g);
  REQUIRE(log.version);
  CHECK(log.version->value == "2.19.3+cuda12.2");
  CHECK(log.version->where.line == 4);
  REQUIRE(log.network);
  CHECK(log.network->value == "IB");
  REQUIRE(log.ib_devices.size() == 1);
  CHECK(log.ib_devices[0].name == "mlx5_0");
  CHECK(log.ib_devices[0].link == "IB");
  REQUIRE(log.gdr.size() == 1);
  CHECK_FALSE(log.gdr[0].enabled);
  CHECK(log.gdr[0].gpu == "3000");
  CHECK(log.gdr[0].hca == "0");
  CHECK(log.gdr[0].distance == 6);
  CHECK(log.gdr[0].level == 4);
  REQUIRE(log.channels.size() == 4);
  CHECK(log.channels[0].direction == "receive");
  CHECK(log.channels[0].from == "1[0]");
  CHECK(log.channels[0].to == "0[0]");
  CHECK(log.channels[0].net == "IB");
  CHECK(log.channels[0].net_dev == 0u);
  CHECK_FALSE(log.channels[0].gdr);
  REQUIRE(log.graphs.size() == 1);
  CHECK(log.graphs[0].channels == 2);
  CHECK(log.graphs[0].type_intra == "LOC");
  CHECK(log.graphs[0].type_inter == "PHB");
  REQUIRE(log.ranks.size() == 1);
  CHECK(log.ranks[0].bus_id == "3000");
  CHECK(g.has(InputKind::nccl_log));
}

TEST_CASE("NCCL's log lines of each version that changed their format are read",
          "[guest][nccl-log]") {
  const std::string text =
      // v2.4.8-1 printed the version with printf, without the INFO prefix
      "NCCL version 2.4.8+cuda10.1\n"
      // ncclLoadParam ends a number with '.'; ncclGetLevel names the level
      "h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"
      "h:1:1 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PHB\n"
      // v2.21.5-1: the HCA as a netId in hex
      "h:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA a (distance 7 > 6)\n"
      // v2.29.2-1
      "h:1:1 [0] NCCL INFO GPU Direct RDMA Enabled for GPU/0-1 (rank 3) - NET/0-2 (distance 4 <= "
      "5, read 1, mode Default)\n"
      // v2.5-v2.12 HCA line, and v2.13+
      "h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n"
      "h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 1 'mlx5_1'\n"
      // channels: v2.7 (busId), v2.12 with a proxy rank, P2P, SHM, the old "Ring"
      "h:1:1 [0] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [receive] via NET/IB/5/GDRDMA\n"
      "h:1:1 [0] NCCL INFO Channel 02/1 : 0[0] -> 1[1] [send] via NET/AWS Libfabric/1(3)/GDRDMA/"
      "Shared\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "h:1:1 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0\n"
      // the search result before 2.14 ("speed")
      "h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, type "
      "SYS/SYS, sameChannels 0\n";
  const Guest g = guest_of({{"log.txt", text}});
  const NcclLog& log = log_of(g);
  REQUIRE(log.version);
  CHECK(log.version->value == "2.4.8+cuda10.1");
  CHECK(log.env.at("NCCL_IB_DISABLE").value == "0");
  CHECK(log.env.at("NCCL_NET_GDR_LEVEL").value == "PHB");
  REQUIRE(log.gdr.size() == 2);
  CHECK(log.gdr[0].hca == "a");
  CHECK(log.gdr[0].distance == 7);
  CHECK(log.gdr[1].enabled);
  CHECK(log.gdr[1].gpu_is_rank);
  CHECK(log.gdr[1].gpu == "3");
  CHECK(log.gdr[1].hca == "0-2");
  CHECK(log.gdr[1].level == 5);
  REQUIRE(log.hca_gdr.size() == 2);
  CHECK_FALSE(log.hca_gdr[0].enabled);
  CHECK(log.hca_gdr[0].name == "mlx5_0");
  CHECK(log.hca_gdr[1].enabled);
  CHECK(log.hca_gdr[1].index == 1);
  REQUIRE(log.channels.size() == 5);
  CHECK(log.channels[0].from == "2[c7000]");
  CHECK(log.channels[0].net_dev == 5u);
  CHECK(log.channels[0].gdr);
  CHECK(log.channels[1].net == "AWS Libfabric");
  CHECK(log.channels[1].net_dev == 1u);
  CHECK(log.channels[2].net.empty());
  CHECK(log.channels[2].via == "P2P/CUMEM/read");
  CHECK(log.channels[3].via == "SHM/direct/direct");
  CHECK(log.channels[4].net == "Socket");
  REQUIRE(log.graphs.size() == 1);
  CHECK(log.graphs[0].type_inter == "SYS");
}

TEST_CASE("NCCL's path type numbers are named by the version that printed them",
          "[guest][nccl-log]") {
  using vmxkit::guest::nccl_log_path_type;
  using V = std::array<unsigned, 3>;
  // topoPathTypeStr per tag: PHB is 4 in 2.7, 5 in 2.8-2.12.6, 6 in 2.12.7-2.25, 7 in 2.26,
  // 8 from 2.27; PXB is 3, 4, 4, 5, 5.
  CHECK(nccl_log_path_type(V{2, 7, 8}, 4) == NcclPathType::phb);
  CHECK(nccl_log_path_type(V{2, 8, 4}, 5) == NcclPathType::phb);
  CHECK(nccl_log_path_type(V{2, 19, 3}, 6) == NcclPathType::phb);
  CHECK(nccl_log_path_type(V{2, 19, 3}, 7) == NcclPathType::sys);
  CHECK(nccl_log_path_type(V{2, 19, 3}, 4) == NcclPathType::pxb);
  CHECK(nccl_log_path_type(V{2, 26, 2}, 7) == NcclPathType::phb);
  CHECK(nccl_log_path_type(V{2, 27, 3}, 6) == NcclPathType::pxn);
  CHECK(nccl_log_path_type(V{2, 27, 5}, 6) == NcclPathType::p2c);
  CHECK(nccl_log_path_type(V{2, 30, 7}, 8) == NcclPathType::phb);
  CHECK(nccl_log_path_type(V{2, 30, 7}, 5) == NcclPathType::pxb);
  CHECK_FALSE(nccl_log_path_type(std::nullopt, 8).has_value());
  CHECK_FALSE(nccl_log_path_type(V{2, 4, 8}, 3).has_value());
  CHECK_FALSE(nccl_log_path_type(V{2, 30, 7}, 40).has_value());
}

TEST_CASE("a GDR decision names the guest's GPU and NIC, by bus id or by rank",
          "[guest][nccl-log]") {
  SECTION("bus id (NCCL 2.19)") {
    const Guest g = fixtures({"esxi-h100-cx7.lspci-vvv.txt", "nccl-gdr-disabled.log.txt"});
    const auto d = vmxkit::guest::nccl_gdr_decisions(g);
    REQUIRE(d.size() == 1);
    REQUIRE(d[0].gpu_index);
    CHECK(g.pci().at(*d[0].gpu_index).bdf.to_string() == "0000:03:00.0");
    CHECK(d[0].nic_name == "mlx5_0");
    CHECK(d[0].distance == NcclPathType::phb);
    CHECK(d[0].level == NcclPathType::pxb);
  }
  SECTION("rank, through the Init START line (NCCL 2.25)") {
    const std::string log =
        "v:1:1 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"
        "v:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ens192:10.0.0.5<0>\n"
        "v:1:1 [0] NCCL INFO comm 0x1 rank 5 nranks 8 cudaDev 0 nvmlDev 0 busId 3000 commId 0x2 "
        "- Init START\n"
        "v:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 5 / HCA 0 (distance 6 > 4)\n";
    const Guest g =
        guest_of({{"lspci.txt", fixture("esxi-h100-cx7.lspci-vvv.txt")}, {"log.txt", log}});
    const auto d = vmxkit::guest::nccl_gdr_decisions(g);
    REQUIRE(d.size() == 1);
    REQUIRE(d[0].gpu_index);
    CHECK(g.pci().at(*d[0].gpu_index).bdf.to_string() == "0000:03:00.0");
    CHECK(d[0].distance == NcclPathType::phb);
  }
}

TEST_CASE("a log without NCCL's version reports the numbers and what is missing",
          "[guest][nccl-log][GUEST016]") {
  const std::string log =
      "v:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 3000 / HCA 0 (distance 6 > 4)\n";
  const Guest g =
      guest_of({{"lspci.txt", fixture("esxi-h100-cx7.lspci-vvv.txt")}, {"log.txt", log}});
  const auto findings = vmxkit::checks::check_guest(g);
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [](const auto& f) { return f.check->id == "GUEST016"; });
  REQUIRE(it != findings.end());
  CHECK_THAT(it->message,
             Catch::Contains("distance 6 > 4") && Catch::Contains("no `NCCL version` line"));
  CHECK(it->subject.rfind("0000:03:00.0", 0) == 0);
}

TEST_CASE("NCCL's topology dump is a guest input detected by its content", "[guest][nccl-dump]") {
  const Guest g = fixtures({"esxi-2gpu-2nic.lspci-vvv.txt", "esxi-2gpu-2nic.nccl-dump.xml"});
  CHECK(g.has(InputKind::nccl_topo_dump));
  REQUIRE(g.nccl_topo_dump());
  const auto tree =
      vmxkit::guest::read_nccl_topo_xml(g.nccl_topo_dump()->text, g.nccl_topo_dump()->where.path);
  const auto nic = tree.find("0000:0c:00.0");
  REQUIRE(nic);
  REQUIRE(tree.nodes[*nic].nets.size() == 1);
  CHECK(tree.nodes[*nic].nets[0].name == "mlx5_0");
  CHECK(tree.nodes[*nic].nets[0].gdr == false);
  CHECK(tree.nodes[*nic].nets[0].line == 17);
  const auto gpu = tree.find("0000:13:00.0");
  REQUIRE(gpu);
  CHECK(tree.nodes[*gpu].gpu_dev == 1);
  CHECK(tree.nodes[*gpu].gpu_gdr == true);
  const vmxkit::guest::NcclTopoInput dump{"dump.xml", tree};
  const vmxkit::checks::GuestContext ctx(g, nullptr, &dump);
  const auto diffs = vmxkit::guest::nccl_dump_path_diffs(g, dump, ctx.nccl_view());
  REQUIRE(diffs.size() == 2);
  CHECK(diffs[0].nccl == NcclPathType::sys);
  CHECK(diffs[0].vmxkit == vmxkit::pci::PathClass::phb);
  CHECK(ids(vmxkit::checks::check_guest(ctx)) ==
        std::vector<std::string>{"GUEST002", "GUEST002", "GUEST017", "GUEST017", "GUEST019",
                                 "GUEST019", "GUEST012", "GUEST012", "GUEST012", "GUEST012",
                                 "GUEST012"});
}

TEST_CASE("a topology dump that is not XML is an input error with its line", "[guest][nccl-dump]") {
  Guest g;
  load_text(g, "<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n", "dump.xml");
  g.finalize();
  REQUIRE(g.nccl_topo_dump());
  CHECK_THROWS_AS(vmxkit::guest::read_nccl_topo_xml(g.nccl_topo_dump()->text, "dump.xml"),
                  vmxkit::Error);
}

TEST_CASE("a channel line's GPU: the bus id NCCL printed before 2.18.3, the rank's Init line since",
          "[guest][nccl-log]") {
  const std::string old_log =
      "v:1:1 [0] NCCL INFO NCCL version 2.12.12+cuda11.6\n"
      "v:1:1 [0] NCCL INFO Channel 00/0 : 0[3000] -> 1[3000] [send] via NET/IB/0\n";
  const Guest g =
      guest_of({{"lspci.txt", fixture("kvm-switch.lspci-vvv.txt")}, {"log.txt", old_log}});
  const auto& c = log_of(g).channels.at(0);
  const auto gpu = vmxkit::guest::nccl_channel_gpu(g, c);
  REQUIRE(gpu);
  CHECK(g.pci().at(*gpu).bdf.to_string() == "0000:03:00.0");
  // From 2.18.3 the brackets hold the nvmlDev: without an Init line the GPU is not known.
  const std::string new_log =
      "v:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "v:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n";
  const Guest h =
      guest_of({{"lspci.txt", fixture("kvm-switch.lspci-vvv.txt")}, {"log.txt", new_log}});
  CHECK_FALSE(vmxkit::guest::nccl_channel_gpu(h, log_of(h).channels.at(0)).has_value());
  const auto findings = vmxkit::checks::check_guest(h);
  const auto it = std::find_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.check->id == "GUEST012" && f.subject == "GUEST018";
  });
  REQUIRE(it != findings.end());
  CHECK_THAT(it->message, Catch::Contains("Init START"));
}

TEST_CASE("sockets with NCCL_IB_DISABLE set: GUEST020 names the override",
          "[guest][nccl-log][GUEST020]") {
  const std::string log =
      "v:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
      "v:1:1 [0] NCCL INFO NET/Socket : Using [0]ens192:10.0.0.5<0>\n"
      "v:1:1 [0] NCCL INFO Using network Socket\n";
  const Guest g =
      guest_of({{"lspci.txt", fixture("esxi-h100-cx7.lspci-vvv.txt")}, {"log.txt", log}});
  const auto findings = vmxkit::checks::check_guest(g);
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [](const auto& f) { return f.check->id == "GUEST020"; });
  REQUIRE(it != findings.end());
  CHECK_THAT(it->message, Catch::Contains("NCCL_IB_DISABLE=1 was set (log.txt:1)"));
  CHECK(it->where.line == 3);
}

TEST_CASE("a rank is looked up among the Init lines of the host that printed the line",
          "[guest][nccl-log]") {
  // Two nodes: rank 1 is 0000:03:00.0 on vm-b; vm-a's rank 1 is on another bus.
  const std::string log =
      "vm-a:1:1 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"
      "vm-a:1:1 [1] NCCL INFO comm 0x1 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 13000 commId 0x2 "
      "- Init START\n"
      "vm-b:2:2 [0] NCCL INFO comm 0x3 rank 1 nranks 4 cudaDev 0 nvmlDev 0 busId 3000 commId 0x2 "
      "- Init START\n"
      "vm-b:2:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1 / HCA 0 (distance 6 > 4)\n";
  const Guest g =
      guest_of({{"lspci.txt", fixture("esxi-h100-cx7.lspci-vvv.txt")}, {"log.txt", log}});
  CHECK(log_of(g).ranks.at(0).host == "vm-a");
  CHECK(log_of(g).gdr.at(0).host == "vm-b");
  const auto d = vmxkit::guest::nccl_gdr_decisions(g);
  REQUIRE(d.size() == 1);
  REQUIRE(d[0].gpu_index);
  CHECK(g.pci().at(*d[0].gpu_index).bdf.to_string() == "0000:03:00.0");
}

TEST_CASE("GUEST019 from the log: NCCL's distance is SYS where the guest's lspci gives PHB",
          "[guest][nccl-log][GUEST019]") {
  // NCCL 2.19.3 numbers: SYS is 7, PXB 4.
  const std::string log =
      "v:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n"
      "v:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ens192:10.0.0.5<0>\n"
      "v:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 3000 / HCA 0 (distance 7 > 4)\n";
  const Guest g =
      guest_of({{"lspci.txt", fixture("esxi-h100-cx7.lspci-vvv.txt")}, {"log.txt", log}});
  const auto findings = vmxkit::checks::check_guest(g);
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [](const auto& f) { return f.check->id == "GUEST019"; });
  REQUIRE(it != findings.end());
  CHECK_THAT(it->message, Catch::Contains("NCCL computes SYS") &&
                              Catch::Contains("vmxkit computes PHB") &&
                              Catch::Contains("different NUMA nodes"));
  CHECK(it->where.line == 3);
  // The same distance without the version line: not named, so not compared.
  const Guest h = guest_of({{"lspci.txt", fixture("esxi-h100-cx7.lspci-vvv.txt")},
                            {"log.txt", log.substr(log.find('\n') + 1)}});
  const auto none = vmxkit::checks::check_guest(h);
  CHECK(std::none_of(none.begin(), none.end(),
                     [](const auto& f) { return f.check->id == "GUEST019"; }));
}
