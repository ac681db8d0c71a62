// SPDX-License-Identifier: Apache-2.0
// nccl-topo on whole hosts: a plan from `generate`, an ESXi guest with VMware's emulated
// devices, and the path types NCCL computes from the file. The expectations are NCCL's rules
// (NVIDIA/nccl 5067397c, 2.30.7):
// - ncclTopoGetXmlFromSys (src/graph/xml.cc) keeps, of a device's sysfs path, the bridges two,
//   four, ... components up: a switch's upstream port, never the root port or a downstream
//   port; so the host's own tree has GPU and NIC of one switch as children of one <pci>.
// - ncclTopoSetPaths (src/graph/paths.cc) starts a hop's type at its link's (PCI = PIX), makes a
//   PCI-to-PCI hop PXB and a hop through a CPU PHB, and keeps the worst: PIX is "one <pci>
//   between them", PXB "several, no CPU".
// - ncclTopoAddPci (src/graph/topo.cc) gives a link width * speed / 80 GB/s (x16 32 GT/s: 48).
// - ncclTopoFlattenBcmSwitches (topo.cc) merges a Broadcom PEX890xx's second level into its
//   first when their subsystem ids say so (1000:0xxx over 1000:1xxx).
// The same files were run through NCCL's own code (xml.cc, topo.cc, paths.cc compiled
// unmodified on a fake guest sysfs): PIX/PXB and 48 GB/s as asserted here; docs/nccl-topo.md.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/nccl_topo_xml.h"

namespace {

using vmxkit::guest::NcclNodeKind;
using vmxkit::guest::NcclPathType;
using vmxkit::guest::NcclTopo;
using vmxkit::guest::NcclTopoTree;
using vmxkit::test::source_path;

std::string src(const std::string& relative) { return source_path(relative).string(); }
std::string data(const std::string& name) { return src("tests/data/guest/" + name); }

const std::string k2Socket = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";
const std::string kEsxcli = "examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt";
const std::string kEsxcliMemory =
    "examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-memory.txt";

/// A plan `generate` writes for these devices, as the user would make it.
std::string plan(const vmxkit::test::TempDir& dir, const std::vector<std::string>& hosts,
                 const std::vector<std::string>& gpus, const std::vector<std::string>& nics) {
  std::vector<std::string> args = {"generate"};
  for (const std::string& h : hosts) args.insert(args.end(), {"--host", h});
  for (const std::string& g : gpus) args.insert(args.end(), {"--gpu", g});
  for (const std::string& n : nics) args.insert(args.end(), {"--nic", n});
  const std::string out = (dir / "plan.vmx").string();
  args.insert(args.end(), {"-o", out});
  const auto r = vmxkit::test::run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return out;
}

NcclTopo build(const std::vector<std::string>& hosts, const std::string& vmx,
               const std::vector<std::string>& guest) {
  const vmxkit::pci::Host host = vmxkit::pci::load_host(hosts);
  const auto vm = vmxkit::vmx::Document::parse(vmxkit::test::read_bytes(vmx), vmx);
  return vmxkit::guest::build_nccl_topo(host, vm, vmxkit::guest::load_guest(guest));
}

std::size_t node(const NcclTopoTree& t, const std::string& busid) {
  const auto n = t.find(busid);
  INFO(busid);
  REQUIRE(n);
  return *n;
}

NcclPathType path(const NcclTopoTree& t, const vmxkit::guest::NcclPaths& p, const std::string& a,
                  const std::string& b) {
  const vmxkit::guest::NcclPairPath* pp = p.find(node(t, a), node(t, b));
  INFO(a << " - " << b);
  REQUIRE(pp != nullptr);
  return pp->type;
}

double bw(const NcclTopoTree& t, const vmxkit::guest::NcclPaths& p, const std::string& a,
          const std::string& b) {
  const vmxkit::guest::NcclPairPath* pp = p.find(node(t, a), node(t, b));
  REQUIRE(pp != nullptr);
  return pp->bw;
}

/// The tree as NCCL reads it back from the text written.
NcclTopoTree written(const NcclTopo& topo) {
  return vmxkit::guest::read_nccl_topo_xml(vmxkit::guest::nccl_topo_xml(topo), "nccl-topo.xml");
}

// ESXi guest: PVSCSI 03:00.0, GPU 04:00.0, VMXNET3 0b:00.0, NIC 0c:00.0, GPU 13:00.0,
// NIC 1b:00.0, each behind its own VMware root port.
const std::vector<std::string> kGuest = {data("esxi-2gpu-2nic.lspci-vvv.txt"),
                                         data("esxi-2gpu-2nic.lspci-tv.txt")};

}  // namespace

TEST_CASE("on the 2-socket example host a 2-GPU/2-NIC plan gives PIX for all four pairs in NCCL",
          "[guest][nccl-topo]") {
  // GPU0 18:00.0, GPU1 1a:00.0, NIC0 19:00.0, NIC1 1b:00.0: all below switch 16:00.0.
  vmxkit::test::TempDir dir;
  const std::string vmx = plan(dir, {src(k2Socket)}, {"0000:18:00.0", "0000:1a:00.0"},
                               {"0000:19:00.0", "0000:1b:00.0"});
  const NcclTopo topo = build({src(k2Socket)}, vmx, kGuest);
  REQUIRE(topo.mappings.size() == 4);  // VMXNET3 and PVSCSI left out, with no --map
  const NcclTopoTree t = written(topo);
  const auto p = vmxkit::guest::nccl_paths(t);
  for (const std::string gpu : {"0000:04:00.0", "0000:13:00.0"}) {
    for (const std::string nic : {"0000:0c:00.0", "0000:1b:00.0"}) {
      CHECK(path(t, p, gpu, nic) == NcclPathType::pix);
      CHECK(bw(t, p, gpu, nic) == 48.0);  // x16 at 32 GT/s on the host
    }
  }
  CHECK(path(t, p, "0000:04:00.0", "0000:13:00.0") == NcclPathType::pix);
  // One <pci> (the switch's upstream port) holds all four: PIX needs exactly that.
  const std::size_t gpu = node(t, "0000:04:00.0");
  REQUIRE(t.nodes[gpu].parent);
  const vmxkit::guest::NcclTopoNode& sw = t.nodes[*t.nodes[gpu].parent];
  CHECK(sw.busid == "ffff:16:00.0");
  CHECK(sw.children.size() == 4);
  CHECK(t.nodes[*sw.parent].kind == NcclNodeKind::cpu);
  // Not the host's bus ids, not VMware's devices.
  CHECK_FALSE(t.find("0000:18:00.0"));
  CHECK_FALSE(t.find("0000:0b:00.0"));
  CHECK_FALSE(t.find("0000:03:00.0"));
}

TEST_CASE("on a two-level switch tree the near NIC is PIX and the far one PXB, as on the host",
          "[guest][nccl-topo]") {
  // Host: root port 1f:02.0 > upstream 20:00.0 > downstream 21:0x.0 > upstream 22:00.0 (GPU
  // 24:00.0, NIC 25:00.0 below) and 26:00.0 (GPU 28:00.0, NIC 29:00.0 below).
  vmxkit::test::TempDir dir;
  const std::string host = data("host-2level.lspci-vvv.txt");
  const std::string vmx =
      plan(dir, {host}, {"0000:24:00.0", "0000:28:00.0"}, {"0000:25:00.0", "0000:29:00.0"});
  const NcclTopo topo = build({host}, vmx, kGuest);
  const NcclTopoTree t = written(topo);
  const auto p = vmxkit::guest::nccl_paths(t);
  // The upstream ports 20, 22 and 26 nest as NCCL nests them; no root or downstream port.
  CHECK(t.nodes[*t.nodes[node(t, "0000:04:00.0")].parent].busid == "ffff:22:00.0");
  CHECK(t.nodes[*t.nodes[node(t, "ffff:22:00.0")].parent].busid == "ffff:20:00.0");
  CHECK(t.nodes[*t.nodes[node(t, "ffff:26:00.0")].parent].busid == "ffff:20:00.0");
  CHECK_FALSE(t.find("ffff:1f:02.0"));
  CHECK_FALSE(t.find("ffff:21:00.0"));
  CHECK_FALSE(t.find("ffff:23:00.0"));
  CHECK(path(t, p, "0000:04:00.0", "0000:0c:00.0") == NcclPathType::pix);
  CHECK(path(t, p, "0000:04:00.0", "0000:1b:00.0") == NcclPathType::pxb);
  CHECK(path(t, p, "0000:13:00.0", "0000:1b:00.0") == NcclPathType::pix);
  CHECK(path(t, p, "0000:13:00.0", "0000:0c:00.0") == NcclPathType::pxb);
  CHECK(path(t, p, "0000:04:00.0", "0000:13:00.0") == NcclPathType::pxb);
  CHECK(bw(t, p, "0000:04:00.0", "0000:1b:00.0") == 48.0);
  // ncclTopoGetLocal gives each GPU only its near NIC, so channels do not use the far one.
  CHECK(p.local_nics.at(node(t, "0000:04:00.0")) ==
        std::vector<std::size_t>{node(t, "0000:0c:00.0")});
  CHECK(p.local_nics.at(node(t, "0000:13:00.0")) ==
        std::vector<std::size_t>{node(t, "0000:1b:00.0")});
}

TEST_CASE("a two-level Broadcom PEX890xx whose subsystem ids say so is one switch to NCCL",
          "[guest][nccl-topo]") {
  // ncclTopoFlattenBcmSwitches: top level 1000:c030 subsystem 1000:0xxx absorbs its 1000:1xxx
  // sub-switches, as NCCL does on the host: every pair PIX. The fixture's 1000:100b at every
  // level does not match the top level's mask and stays two levels (the test above).
  vmxkit::test::TempDir dir;
  std::string text = vmxkit::test::read_bytes(data("host-2level.lspci-vvv.txt"));
  auto set_subsystem = [&](const std::string& bdf, const std::string& sub) {
    const std::size_t at = text.find(bdf + " PCI bridge");
    REQUIRE(at != std::string::npos);
    const std::size_t s = text.find("Device 100b [1000:100b]", at);
    REQUIRE(s != std::string::npos);
    text.replace(s, 23, "Device " + sub + " [1000:" + sub + "]");
  };
  set_subsystem("0000:20:00.0", "0100");
  set_subsystem("0000:22:00.0", "1100");
  set_subsystem("0000:26:00.0", "1100");
  vmxkit::test::write_bytes(dir / "bcm5.txt", text);
  const std::string host = (dir / "bcm5.txt").string();
  const std::string vmx =
      plan(dir, {host}, {"0000:24:00.0", "0000:28:00.0"}, {"0000:25:00.0", "0000:29:00.0"});
  const NcclTopoTree t = written(build({host}, vmx, kGuest));
  CHECK(t.nodes[node(t, "ffff:20:00.0")].subsystem_device == 0x0100);
  const auto p = vmxkit::guest::nccl_paths(t);
  CHECK(path(t, p, "0000:04:00.0", "0000:0c:00.0") == NcclPathType::pix);
  CHECK(path(t, p, "0000:04:00.0", "0000:1b:00.0") == NcclPathType::pix);
  CHECK(path(t, p, "0000:04:00.0", "0000:13:00.0") == NcclPathType::pix);
}

TEST_CASE("from an esxcli-only host every link is written, never left to NCCL's 8 GT/s default",
          "[guest][nccl-topo]") {
  // esxcli prints no link. GPU and NIC: the guest's LnkCap of the passthrough device; the
  // switch: the fastest and widest device below it, said in a comment.
  vmxkit::test::TempDir dir;
  const std::vector<std::string> hosts = {src(kEsxcli), src(kEsxcliMemory)};
  const std::string vmx = plan(dir, hosts, {"0000:03:00.0", "0000:04:00.0"}, {"0000:05:00.0"});
  const NcclTopo topo = build(hosts, vmx, {data("esxi-l40s-cx7.lspci-vvv.txt")});
  const std::string xml = vmxkit::guest::nccl_topo_xml(topo);
  const NcclTopoTree t = written(topo);
  for (const std::size_t i : t.document_order()) {
    if (t.nodes[i].kind == NcclNodeKind::cpu) continue;
    INFO(t.nodes[i].busid);
    CHECK_FALSE(t.nodes[i].link_speed.empty());
    CHECK(t.nodes[i].link_width);
  }
  CHECK(t.nodes[node(t, "0000:04:00.0")].link_speed == "16.0 GT/s PCIe");  // L40S: Gen4 x16
  CHECK(t.nodes[node(t, "0000:0c:00.0")].link_speed == "32.0 GT/s PCIe");  // ConnectX-7
  CHECK(t.nodes[node(t, "ffff:01:00.0")].link_speed == "32.0 GT/s PCIe");
  CHECK_THAT(xml, Catch::Contains("link from the guest's lspci LnkCap") &&
                      Catch::Contains("link assumed: no capture gives this bridge's link"));
  const auto p = vmxkit::guest::nccl_paths(t);
  CHECK(path(t, p, "0000:04:00.0", "0000:0c:00.0") == NcclPathType::pix);
  CHECK(bw(t, p, "0000:04:00.0", "0000:0c:00.0") == 24.0);  // 16 lanes x 16 GT/s / 80

  // With a guest capture that has no link either: NCCL's default, written out with a
  // comment, rather than absent.
  std::string guest = vmxkit::test::read_bytes(data("esxi-l40s-cx7.lspci-vvv.txt"));
  for (const std::string key : {"\t\tLnkCap:", "\t\tLnkSta:"}) {
    for (auto at = guest.find(key); at != std::string::npos; at = guest.find(key)) {
      guest.erase(at, guest.find('\n', at) - at + 1);
    }
  }
  vmxkit::test::write_bytes(dir / "nolink.txt", guest);
  const NcclTopo bare = build(hosts, vmx, {(dir / "nolink.txt").string()});
  const NcclTopoTree b = written(bare);
  CHECK(b.nodes[node(b, "0000:0c:00.0")].link_speed == "8.0 GT/s PCIe");
  CHECK(b.nodes[node(b, "0000:0c:00.0")].link_width == 16u);
  CHECK_THAT(vmxkit::guest::nccl_topo_xml(bare),
             Catch::Contains("link unknown in every capture: NCCL's own default"));
}

TEST_CASE("an ESXi guest's lspci -tv alone, VMXNET3 and all, gives a file without --map",
          "[guest][nccl-topo]") {
  // The tree names devices without ids: VMware's are known by name, GPU and ConnectX by the
  // catalogue's names.
  vmxkit::test::TempDir dir;
  const std::string vmx = plan(dir, {src(k2Socket)}, {"0000:18:00.0", "0000:1a:00.0"},
                               {"0000:19:00.0", "0000:1b:00.0"});
  const NcclTopo topo = build({src(k2Socket)}, vmx, {data("esxi-2gpu-2nic.lspci-tv.txt")});
  CHECK(topo.mappings.size() == 4);
  for (const auto& m : topo.mappings) {
    CHECK(m.guest_bdf.to_string() != "0000:0b:00.0");  // the VMXNET3
  }
  const auto r = vmxkit::test::run_cli({"nccl-topo", "--host", src(k2Socket), "--vm", vmx,
                                        "--guest", data("esxi-2gpu-2nic.lspci-tv.txt")});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("<pci busid=\"0000:0c:00.0\""));
}

TEST_CASE("a link is the lower of the device's LnkCap and its port's, as NCCL reads sysfs",
          "[guest][nccl-topo]") {
  // ncclTopoGetXmlFromSys: link_speed the lower of max_link_speed and ../max_link_speed, width
  // the lower of max_link_width and ../max_link_width (both LnkCap); for a GPU NVML's current
  // link (LnkSta), whose width a degraded link lowers. Here the downstream port above NIC
  // 25:00.0 is x8, and GPU 28:00.0 trained at x8.
  vmxkit::test::TempDir dir;
  std::string text = vmxkit::test::read_bytes(data("host-2level.lspci-vvv.txt"));
  auto set_in = [&](const std::string& bdf, const std::string& from, const std::string& to) {
    const std::size_t at = text.find("\n" + bdf + " ");
    REQUIRE(at != std::string::npos);
    const std::size_t s = text.find(from, at);
    REQUIRE(s != std::string::npos);
    text.replace(s, from.size(), to);
  };
  set_in("0000:23:01.0", "Width x16, ASPM", "Width x8, ASPM");
  set_in("0000:28:00.0", "LnkSta:\tSpeed 32GT/s, Width x16", "LnkSta:\tSpeed 32GT/s, Width x8");
  vmxkit::test::write_bytes(dir / "host.txt", text);
  const std::string host = (dir / "host.txt").string();
  const std::string vmx =
      plan(dir, {host}, {"0000:24:00.0", "0000:28:00.0"}, {"0000:25:00.0", "0000:29:00.0"});
  const NcclTopoTree t = written(build({host}, vmx, kGuest));
  CHECK(t.nodes[node(t, "0000:0c:00.0")].link_width == 8u);  // NIC 25:00.0, below the x8 port
  CHECK(t.nodes[node(t, "0000:13:00.0")].link_width == 8u);  // GPU 28:00.0, LnkSta x8
  CHECK(t.nodes[node(t, "0000:04:00.0")].link_width == 16u);
  const auto p = vmxkit::guest::nccl_paths(t);
  CHECK(bw(t, p, "0000:04:00.0", "0000:0c:00.0") == 24.0);
  // ncclTopoGetLocal takes bandwidth before path type: the far NIC (PXB, 48 GB/s) wins over the
  // near one (PIX, 24 GB/s), on the host as from the file.
  CHECK(p.local_nics.at(node(t, "0000:04:00.0")) ==
        std::vector<std::size_t>{node(t, "0000:1b:00.0")});
}
