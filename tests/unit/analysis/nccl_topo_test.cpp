// SPDX-License-Identifier: Apache-2.0
// nccl-topo: guest GPU/NIC -> host device, and the NCCL topology XML read back with pugixml.
#include "vmxkit/analysis/nccl_topo.h"

#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/nccl_topo_xml.h"

namespace {

using vmxkit::test::run_cli;
using vmxkit::test::source_path;

const std::string kHost = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";

std::string src(const std::string& relative) { return source_path(relative).string(); }
std::string data(const std::string& name) { return src("tests/data/guest/" + name); }

struct Inputs {
  vmxkit::pci::Host host;
  vmxkit::vmx::Document vm;
  vmxkit::guest::Guest guest;
};

Inputs load(const std::string& vmx, const std::vector<std::string>& guest_files) {
  Inputs in{vmxkit::pci::load_host({src(kHost)}), {}, {}};
  in.vm = vmxkit::vmx::Document::parse(vmxkit::test::read_bytes(vmx), vmx);
  in.guest = vmxkit::guest::load_guest(guest_files);
  return in;
}

vmxkit::guest::NcclTopo build(const std::string& vmx, const std::string& guest,
                              const std::vector<std::string>& maps = {}) {
  const Inputs in = load(vmx, {guest});
  vmxkit::guest::NcclTopoOptions o;
  o.maps = maps;
  return vmxkit::guest::build_nccl_topo(in.host, in.vm, in.guest, o);
}

pugi::xml_node find_pci(const pugi::xml_document& doc, const std::string& busid) {
  return doc.find_node([&](const pugi::xml_node& n) {
    return std::string(n.name()) == "pci" && busid == n.attribute("busid").value();
  });
}

pugi::xml_node enclosing_cpu(pugi::xml_node n) {
  while (n && std::string(n.name()) != "cpu") n = n.parent();
  return n;
}

/// The lowest element that holds both `a` and `b`.
pugi::xml_node common_ancestor(pugi::xml_node a, pugi::xml_node b) {
  for (pugi::xml_node x = a.parent(); x; x = x.parent()) {
    for (pugi::xml_node y = b.parent(); y; y = y.parent()) {
      if (x == y) return x;
    }
  }
  return {};
}

void parse(pugi::xml_document& doc, const std::string& xml) {
  const pugi::xml_parse_result r = doc.load_string(xml.c_str());
  INFO(xml);
  REQUIRE(r);
}

using Shell = vmxkit::test::ShellResult;
Shell shell(const std::string& command) { return vmxkit::test::run_shell(command); }

}  // namespace

TEST_CASE("nccl-topo puts the guest's GPU and NIC under the host switch they share",
          "[guest][nccl-topo]") {
  const auto topo = build(data("nccl-topo-pix.vmx"), data("nccl-topo-pix.lspci-vvv.txt"));
  const std::string xml = vmxkit::guest::nccl_topo_xml(topo);
  pugi::xml_document doc;
  parse(doc, xml);
  const pugi::xml_node system = doc.child("system");
  REQUIRE(system);
  CHECK(std::string(system.attribute("version").value()) == "1");

  // Every GPU and NIC with the guest's bus id, none with the host's.
  const pugi::xml_node gpu = find_pci(doc, "0000:03:00.0");
  const pugi::xml_node nic = find_pci(doc, "0000:0b:00.0");
  REQUIRE(gpu);
  REQUIRE(nic);
  CHECK(std::string(gpu.attribute("class").value()) == "0x030200");
  CHECK(std::string(gpu.attribute("device").value()) == "0x2331");
  CHECK(std::string(nic.attribute("class").value()) == "0x020700");
  CHECK_FALSE(find_pci(doc, "0000:18:00.0"));
  CHECK_FALSE(find_pci(doc, "0000:19:00.0"));
  CHECK(topo.mappings.size() == 2);

  // Under the same switch as on the host, the way NCCL's sysfs walk writes it there
  // (ncclTopoGetXmlFromSys, src/graph/xml.cc: "Rewind two '/'"): of the path root port
  // 15:02.0 / upstream port 16:00.0 / downstream port 17:0x.0 / device, only the upstream
  // port, straight under the <cpu>, with both devices as its direct children.
  const pugi::xml_node common = common_ancestor(gpu, nic);
  REQUIRE(common);
  CHECK(std::string(common.name()) == "pci");
  CHECK(std::string(common.attribute("busid").value()) == "ffff:16:00.0");
  CHECK(gpu.parent() == common);
  CHECK(nic.parent() == common);
  CHECK(std::string(common.parent().name()) == "cpu");
  CHECK_FALSE(find_pci(doc, "ffff:15:02.0"));  // the root port
  CHECK_FALSE(find_pci(doc, "ffff:17:00.0"));  // the downstream ports
  CHECK_FALSE(find_pci(doc, "ffff:17:01.0"));

  // The cpu of the host's NUMA node of the GPU.
  const Inputs in = load(data("nccl-topo-pix.vmx"), {data("nccl-topo-pix.lspci-vvv.txt")});
  const auto* host_gpu = in.host.find(*vmxkit::parse_bdf("0000:18:00.0"));
  REQUIRE(host_gpu != nullptr);
  REQUIRE(host_gpu->numa_node);
  const pugi::xml_node cpu = enclosing_cpu(gpu);
  REQUIRE(cpu);
  CHECK(cpu.attribute("numaid").as_int(-99) == *host_gpu->numa_node);
  CHECK(cpu == enclosing_cpu(nic));
  CHECK(std::distance(system.children("cpu").begin(), system.children("cpu").end()) == 1);

  // Link attributes on every element, in the strings NCCL's kvDictPciGen reads.
  int pcis = 0;
  for (const pugi::xpath_node& x : doc.select_nodes("//pci")) {
    ++pcis;
    INFO(x.node().attribute("busid").value());
    CHECK(std::string(x.node().attribute("link_speed").value()) == "32.0 GT/s PCIe");
    CHECK(std::string(x.node().attribute("link_width").value()) == "16");
    CHECK_FALSE(std::string(x.node().attribute("class").value()).empty());
  }
  CHECK(pcis == 3);  // upstream port, GPU, NIC
  CHECK(topo.notes.empty());
  // NCCL's parser takes no XML declaration (xml.cc xmlGetNode: `<?xml` is not a node).
  CHECK(xml.find("<?xml") == std::string::npos);
}

TEST_CASE("nccl-topo matches devices of one id by order with a note, and --map overrides it",
          "[guest][nccl-topo]") {
  const auto by_order =
      build(data("nccl-topo-two-gpus.vmx"), data("nccl-topo-two-gpus.lspci-vvv.txt"));
  REQUIRE(by_order.notes.size() == 2);
  CHECK_THAT(by_order.notes[0], Catch::Contains("0000:03:00.0 -> host 0000:18:00.0") &&
                                    Catch::Contains("by order") && Catch::Contains("--map"));
  const std::string by_order_xml = vmxkit::guest::nccl_topo_xml(by_order);
  CHECK_THAT(by_order_xml, Catch::Contains("by order"));
  pugi::xml_document a;
  parse(a, by_order_xml);
  CHECK(enclosing_cpu(find_pci(a, "0000:03:00.0")).attribute("numaid").as_int(-1) == 0);
  CHECK(enclosing_cpu(find_pci(a, "0000:13:00.0")).attribute("numaid").as_int(-1) == 1);
  CHECK(common_ancestor(find_pci(a, "0000:03:00.0"), find_pci(a, "0000:0b:00.0")).name() ==
        std::string("pci"));

  const auto mapped =
      build(data("nccl-topo-two-gpus.vmx"), data("nccl-topo-two-gpus.lspci-vvv.txt"),
            {"0000:03:00.0=0000:9d:00.0"});
  CHECK(mapped.notes.empty());
  const std::string mapped_xml = vmxkit::guest::nccl_topo_xml(mapped);
  CHECK(mapped_xml != by_order_xml);
  pugi::xml_document b;
  parse(b, mapped_xml);
  CHECK(enclosing_cpu(find_pci(b, "0000:03:00.0")).attribute("numaid").as_int(-1) == 1);
  CHECK(enclosing_cpu(find_pci(b, "0000:13:00.0")).attribute("numaid").as_int(-1) == 0);
  // Now the guest's 13:00.0 is the GPU beside the NIC.
  CHECK(common_ancestor(find_pci(b, "0000:13:00.0"), find_pci(b, "0000:0b:00.0")).name() ==
        std::string("pci"));
  CHECK(std::string(
            common_ancestor(find_pci(b, "0000:03:00.0"), find_pci(b, "0000:0b:00.0")).name()) ==
        "system");
  // Comments never hold "--" (not allowed in XML comments).
  CHECK(mapped_xml.find("<!-- GPU guest 0000:03:00.0 is host 0000:9d:00.0: the map option") !=
        std::string::npos);
}

TEST_CASE("nccl-topo fails naming a guest GPU that no pciPassthruN entry accounts for",
          "[guest][nccl-topo]") {
  // esxi-h100-cx7 has an H100 SXM (10de:2330); the VM passes through an H100 PCIe (10de:2331).
  try {
    build(data("nccl-topo-pix.vmx"), data("esxi-h100-cx7.lspci-vvv.txt"));
    FAIL("no error");
  } catch (const vmxkit::Error& e) {
    CHECK(e.line() == 53);
    CHECK_THAT(e.what(), Catch::Contains("guest GPU 0000:03:00.0 (10de:2330) has no host match") &&
                             Catch::Contains("--map 0000:03:00.0=HOST_BDF"));
  }
  const auto r = run_cli({"nccl-topo", "--host", src(kHost), "--vm", data("nccl-topo-pix.vmx"),
                          "--guest", data("esxi-h100-cx7.lspci-vvv.txt")});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("esxi-h100-cx7.lspci-vvv.txt:53:1: guest GPU 0000:03:00.0"));
  // --map settles it.
  const auto mapped =
      run_cli({"nccl-topo", "--host", src(kHost), "--vm", data("nccl-topo-pix.vmx"), "--guest",
               data("esxi-h100-cx7.lspci-vvv.txt"), "--map", "0000:03:00.0=0000:18:00.0"});
  INFO(mapped.err);
  CHECK(mapped.code == 0);
  CHECK_THAT(mapped.out, Catch::Contains("busid=\"0000:03:00.0\""));
}

TEST_CASE("nccl-topo checks --map addresses and the .vmx ids", "[guest][nccl-topo]") {
  const std::vector<std::string> base = {"nccl-topo",
                                         "--host",
                                         src(kHost),
                                         "--vm",
                                         data("nccl-topo-pix.vmx"),
                                         "--guest",
                                         data("nccl-topo-pix.lspci-vvv.txt"),
                                         "--map"};
  auto with_map = [&](const std::string& m) {
    auto args = base;
    args.push_back(m);
    return run_cli(args);
  };
  const auto no_host = with_map("0000:03:00.0=0000:77:00.0");
  CHECK(no_host.code == 2);
  CHECK_THAT(no_host.err, Catch::Contains("the host capture has no device at 0000:77:00.0"));
  const auto no_guest = with_map("0000:05:00.0=0000:18:00.0");
  CHECK(no_guest.code == 2);
  CHECK_THAT(no_guest.err, Catch::Contains("the guest capture has no GPU or NIC at 0000:05:00.0"));
  const auto bad = with_map("03:00.0");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("expected GUEST_BDF=HOST_BDF"));

  vmxkit::test::TempDir dir;
  std::string vmx = vmxkit::test::read_bytes(data("nccl-topo-pix.vmx"));
  const std::string id = "pciPassthru1.id = \"00000:025:00.0\"";
  REQUIRE(vmx.find(id) != std::string::npos);
  vmx.replace(vmx.find(id), id.size(), "pciPassthru1.id = \"bogus\"");
  vmxkit::test::write_bytes(dir / "bad.vmx", vmx);
  const auto r = run_cli({"nccl-topo", "--host", src(kHost), "--vm", (dir / "bad.vmx").string(),
                          "--guest", data("nccl-topo-pix.lspci-vvv.txt")});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.vmx:16:20: pciPassthru1.id \"bogus\": expected"));
}

TEST_CASE("nccl-topo places an SR-IOV VF entry at its PF's position on the host",
          "[guest][nccl-topo]") {
  vmxkit::test::TempDir dir;
  std::string vmx = vmxkit::test::read_bytes(data("nccl-topo-pix.vmx"));
  const std::string nic =
      "pciPassthru1.id = \"00000:025:00.0\"\n"
      "pciPassthru1.deviceId = \"0x1021\"\n";
  REQUIRE(vmx.find(nic) != std::string::npos);
  vmx.replace(vmx.find(nic), nic.size(),
              "pciPassthru1.id = \"00000:025:00.1\"\n"
              "pciPassthru1.pfId = \"00000:025:00.0\"\n"
              "pciPassthru1.systemId = \"BYPASS\"\n"
              "pciPassthru1.deviceId = \"0x101e\"\n");
  vmxkit::test::write_bytes(dir / "vf.vmx", vmx);
  std::string guest = vmxkit::test::read_bytes(data("nccl-topo-pix.lspci-vvv.txt"));
  const std::string pf = "MT2910 Family [ConnectX-7] [15b3:1021]";
  REQUIRE(guest.find(pf) != std::string::npos);
  guest.replace(guest.find(pf), pf.size(), "ConnectX Family mlx5Gen Virtual Function [15b3:101e]");
  vmxkit::test::write_bytes(dir / "vf-guest.txt", guest);

  const auto topo = build((dir / "vf.vmx").string(), (dir / "vf-guest.txt").string());
  const std::string xml = vmxkit::guest::nccl_topo_xml(topo);
  pugi::xml_document doc;
  parse(doc, xml);
  const pugi::xml_node vf = find_pci(doc, "0000:0b:00.0");
  REQUIRE(vf);
  CHECK(std::string(vf.attribute("device").value()) == "0x101e");
  // The PF's switch: on the host the VF's sysfs path has the PF's ancestors.
  CHECK(std::string(vf.parent().attribute("busid").value()) == "ffff:16:00.0");
  CHECK_THAT(xml, Catch::Contains("SR-IOV VF placed at its PF 0000:19:00.0"));
}

TEST_CASE("nccl-topo helpers: link speeds as sysfs writes them, synthetic bus ids",
          "[guest][nccl-topo]") {
  using vmxkit::guest::nccl_link_speed;
  CHECK(nccl_link_speed("2.5GT/s") == "2.5 GT/s PCIe");
  CHECK(nccl_link_speed("5GT/s") == "5.0 GT/s PCIe");
  CHECK(nccl_link_speed("16GT/s") == "16.0 GT/s PCIe");
  CHECK(nccl_link_speed("32GT/s") == "32.0 GT/s PCIe");
  CHECK(nccl_link_speed("64GT/s") == "64.0 GT/s PCIe");
  CHECK(nccl_link_speed("unknown").empty());
  CHECK(vmxkit::guest::synthetic_busid(0xffff, *vmxkit::parse_bdf("0000:9C:1f.7")) ==
        "ffff:9c:1f.7");
}

TEST_CASE("the built vmxkit binary writes nccl-topo with -o and to stdout alike", "[cli][guest]") {
  const std::string bin = std::string("'") + VMXKIT_BINARY + "'";
  const std::string args = " nccl-topo --host '" + src(kHost) + "' --vm '" +
                           data("nccl-topo-pix.vmx") + "' --guest '" +
                           data("nccl-topo-pix.lspci-vvv.txt") + "'";
  const Shell out = shell(bin + args);
  INFO(out.out);
  CHECK(out.code == 0);
  CHECK_THAT(out.out, Catch::StartsWith("<!-- NCCL topology") &&
                          Catch::Contains("<pci busid=\"0000:03:00.0\""));
  vmxkit::test::TempDir dir;
  const std::string file = (dir / "nccl-topo.xml").string();
  const Shell written = shell(bin + args + " -o '" + file + "'");
  CHECK(written.code == 0);
  CHECK(written.out.empty());
  CHECK(vmxkit::test::read_bytes(file) == out.out);
  const Shell bad =
      shell(bin + " nccl-topo --host '" + src(kHost) + "' --vm '" + data("nccl-topo-pix.vmx") +
            "' --guest '" + data("esxi-h100-cx7.lspci-vvv.txt") + "'");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("has no host match"));
}
