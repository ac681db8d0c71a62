// SPDX-License-Identifier: Apache-2.0
// The PCIe tree diagram: the SVG read back as XML (every GPU and NIC there by address, one box
// per switch, the VM's pairs as edges in their class's colour), DOT escaping of hostile names,
// Graphviz errors and warnings, folding of a 4,096-device host, and every host input format.
#include "vmxkit/report/diagram.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"

using vmxkit::pci::Diagram;
using vmxkit::pci::DiagramNode;
using vmxkit::test::host_from;

namespace {

constexpr const char* kExample = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";

vmxkit::pci::Host example_host() {
  return host_from({{kExample, vmxkit::test::read_bytes(vmxkit::test::source_path(kExample))}});
}

std::string svg_of(const vmxkit::pci::Host& host,
                   const vmxkit::pci::DiagramHighlight* highlight = nullptr) {
  const auto topo = vmxkit::pci::analyze(host, {});
  vmxkit::pci::DiagramOptions options;
  options.title = "test";
  options.highlight = highlight;
  return vmxkit::pci::render_svg(
      vmxkit::pci::to_dot(vmxkit::pci::build_diagram(host, topo, options)));
}

// An SVG that Graphviz wrote, read back: each node's and edge's class, title and text.
struct Svg {
  struct Item {
    std::string cls;  ///< "node gpu", "edge pair"
    std::string title;
    std::string text;    ///< every <text> of the item, joined by '\n'
    std::string stroke;  ///< the first path's stroke (edges)
  };
  std::vector<Item> nodes;
  std::vector<Item> edges;

  explicit Svg(const std::string& svg) {
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed = doc.load_string(svg.c_str());
    INFO(parsed.description());
    REQUIRE(parsed);
    for (const pugi::xpath_node& g : doc.select_nodes("//*[local-name()='g']")) {
      const std::string cls = g.node().attribute("class").value();
      Item item{cls, g.node().child("title").text().get(), {}, {}};
      for (const pugi::xpath_node& t : g.node().select_nodes(".//*[local-name()='text']")) {
        item.text += std::string(t.node().text().get()) + "\n";
      }
      if (const auto path = g.node().child("path")) item.stroke = path.attribute("stroke").value();
      if (cls.rfind("node", 0) == 0) {
        nodes.push_back(std::move(item));
      } else if (cls.rfind("edge", 0) == 0) {
        edges.push_back(std::move(item));
      }
    }
  }
  std::size_t count(const std::string& cls) const {
    std::size_t n = 0;
    for (const Item& i : nodes) n += i.cls == cls;
    return n;
  }
  const Item* node_with_text(const std::string& text) const {
    for (const Item& i : nodes) {
      if (i.text.find(text) != std::string::npos) return &i;
    }
    return nullptr;
  }
};

// What a call writes to stderr (file descriptor 2), captured in a temporary file.
template <typename F>
std::string stderr_of(F&& f) {
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "stderr").string();
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  ::dup2(fd, 2);
  ::close(fd);
  try {
    f();
  } catch (...) {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    throw;
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  return vmxkit::test::read_bytes(path);
}

}  // namespace

TEST_CASE("the SVG diagram names every GPU and NIC of the example host by address",
          "[pci][diagram]") {
  const auto host = example_host();
  const auto topo = vmxkit::pci::analyze(host, {});
  const Svg svg(svg_of(host));
  REQUIRE(topo.size() == 16);
  for (std::size_t i = 0; i < topo.size(); ++i) {
    const std::string bdf = host.at(topo.device(i)).bdf.to_string();
    INFO(topo.label(i) << " " << bdf);
    const Svg::Item* node = svg.node_with_text(topo.label(i) + " " + bdf);
    REQUIRE(node != nullptr);
    CHECK(node->cls == (i < topo.gpus.size() ? "node gpu" : "node nic"));
    CHECK(node->text.find(i < topo.gpus.size() ? "H100 PCIe" : "ConnectX-7") != std::string::npos);
  }
  // Two sockets, four host bridges and root ports, each switch one box with its four
  // downstream ports as cells.
  CHECK(svg.count("node host_bridge") == 4);
  CHECK(svg.count("node root_port") == 4);
  CHECK(svg.count("node switch") == 4);
  const Svg::Item* sw = svg.node_with_text("upstream 0000:16:00.0");
  REQUIRE(sw != nullptr);
  CHECK(sw->cls == "node switch");
  for (const char* port : {"0000:17:00.0", "0000:17:01.0", "0000:17:02.0", "0000:17:03.0"}) {
    CHECK(sw->text.find(port) != std::string::npos);
  }
  CHECK(svg.node_with_text("SR-IOV: 0 of 16 VFs") != nullptr);
  // No VM: no pair edges and no legend.
  for (const Svg::Item& e : svg.edges) CHECK(e.cls == "edge");
  CHECK(svg.count("node legend") == 0);
}

TEST_CASE("with a VM, its devices are highlighted and each pair is an edge in its class's colour",
          "[pci][diagram]") {
  const auto host = example_host();
  auto index = [&](const char* bdf) { return *host.index_of(*vmxkit::parse_bdf(bdf)); };
  vmxkit::pci::DiagramHighlight vm;
  vm.vm = "vm.vmx";
  vm.devices = {{index("0000:18:00.0"), "pciPassthru0"},
                {index("0000:19:00.0"), "pciPassthru1"},
                {index("0000:3a:00.0"), "pciPassthru2"},
                {index("0000:9d:00.0"), "pciPassthru3"}};
  for (const auto& [a, b] :
       std::vector<std::pair<const char*, const char*>>{{"0000:18:00.0", "0000:19:00.0"},
                                                        {"0000:18:00.0", "0000:3a:00.0"},
                                                        {"0000:18:00.0", "0000:9d:00.0"}}) {
    vm.pairs.push_back(vmxkit::pci::judge_pair(host, index(a), index(b), {}));
  }
  const Svg svg(svg_of(host, &vm));
  std::map<std::string, std::pair<std::string, std::string>> pairs;  // title -> (label, colour)
  for (const Svg::Item& e : svg.edges) {
    if (e.cls != "edge pair") continue;
    std::string title = e.title;  // "tail:s->head:s": the pairs use the boxes' bottom ports
    for (std::size_t at; (at = title.find(":s")) != std::string::npos;) title.erase(at, 2);
    pairs[title] = {e.text, e.stroke};
  }
  CHECK(pairs.size() == 3);
  // Graphviz titles an edge "tail->head".
  CHECK(pairs["0000:18:00.0->0000:19:00.0"] ==
        std::make_pair(std::string("PIX\n"), std::string("#2e7d32")));
  CHECK(pairs["0000:18:00.0->0000:3a:00.0"] ==
        std::make_pair(std::string("NODE\n"), std::string("#e69100")));
  CHECK(pairs["0000:18:00.0->0000:9d:00.0"] ==
        std::make_pair(std::string("SYS\n"), std::string("#c62828")));
  const Svg::Item* gpu = svg.node_with_text("GPU0 0000:18:00.0");
  REQUIRE(gpu != nullptr);
  CHECK(gpu->text.find("VM: pciPassthru0") != std::string::npos);
  CHECK(svg.node_with_text("GPU1 0000:1a:00.0")->text.find("VM:") == std::string::npos);
  const Svg::Item* legend = svg.node_with_text("Legend");
  REQUIRE(legend != nullptr);
  CHECK(legend->cls == "node legend");
  CHECK(legend->text.find("SYS: across the CPU sockets") != std::string::npos);
  CHECK(legend->text.find("passed through to vm.vmx") != std::string::npos);
}

TEST_CASE("DOT escapes hostile model names and Graphviz draws them as written", "[pci][diagram]") {
  using vmxkit::pci::dot_html_escape;
  using vmxkit::pci::dot_quote;
  CHECK(dot_html_escape("a<b>&\"c\"{|}") == "a&lt;b&gt;&amp;&quot;c&quot;{|}");
  CHECK(dot_html_escape("tab\there\x01") == "tab here ");
  CHECK(dot_html_escape("\\N \\") == "\\\\N \\\\");
  CHECK(dot_html_escape("bad \xff byte") == "bad \xEF\xBF\xBD byte");
  CHECK(dot_quote("0000:18:00.0") == "\"0000:18:00.0\"");
  CHECK(dot_quote("say \"hi\" \\") == "\"say \\\"hi\\\" \\\\\"");
  CHECK(dot_quote("two\nlines") == "\"two lines\"");

  const std::string hostile = R"(Evil "Corp" <b>GPU</b> & {x|y} \N ]]> &amp;)";
  const auto host = host_from(
      {{"evil.txt", "0000:00:01.0 3D controller [0302]: " + hostile + " [10de:abcd]\n\n"}});
  const auto topo = vmxkit::pci::analyze(host, {});
  REQUIRE(topo.gpus.size() == 1);
  vmxkit::pci::DiagramOptions options;
  options.title = R"(a "title" with <tags> & \ backslash)";
  const std::string dot = vmxkit::pci::to_dot(vmxkit::pci::build_diagram(host, topo, options));
  CHECK(dot.find(dot_html_escape(hostile)) != std::string::npos);
  CHECK(dot.find("<b>GPU") == std::string::npos);
  std::string svg;
  CHECK(stderr_of([&] { svg = vmxkit::pci::render_svg(dot); }).empty());
  const Svg parsed(svg);
  CHECK(parsed.node_with_text(hostile) != nullptr);
  CHECK(parsed.node_with_text("GPU0 0000:00:01.0") != nullptr);
}

TEST_CASE("Graphviz errors become vmxkit errors and its warnings stay off stderr",
          "[pci][diagram]") {
  std::string err = stderr_of([] {
    CHECK_THROWS_AS(vmxkit::pci::render_svg("digraph { a -> }"), vmxkit::Error);
    CHECK_THROWS_WITH(vmxkit::pci::render_svg("digraph { a -> }"),
                      Catch::StartsWith("Graphviz: cannot read the DOT: syntax error in line 1"));
  });
  CHECK(err.empty());
  // An unknown HTML attribute is a warning: the SVG is still written.
  err = stderr_of([] {
    const std::string svg = vmxkit::pci::render_svg(
        "digraph { a [shape=plain, label=<<TABLE NOSUCH=\"1\"><TR><TD>x</TD></TR></TABLE>>]; }");
    CHECK(svg.find("<svg") != std::string::npos);
  });
  CHECK(err.empty());
  // Rendering again after an error works (the error state does not stick).
  CHECK(vmxkit::pci::render_svg("digraph { a -> b }").find("<svg") != std::string::npos);
}

TEST_CASE("a 4,096-device host folds into a bounded diagram and renders in seconds",
          "[pci][diagram][scale]") {
  const auto host = host_from({{"scale.txt", vmxkit::test::scale_host_text(4096)}});
  REQUIRE(host.devices().size() == 4096);
  const auto topo = vmxkit::pci::analyze(host, {});
  REQUIRE(topo.size() == 128);
  const auto start = std::chrono::steady_clock::now();
  const Svg svg(svg_of(host));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("4,096-device host: " << svg.nodes.size() << " nodes, rendered in " << seconds << " s");
  CHECK(svg.nodes.size() <= 200);
  CHECK(seconds < 20.0);
  // 16 switches, each one box; the GPUs and NICs of a switch folded into one box each, with
  // their addresses; the NVMe drives folded per switch.
  CHECK(svg.count("node switch") == 16);
  const Svg::Item* gpus = svg.node_with_text("4 GPUs: H100 PCIe");
  REQUIRE(gpus != nullptr);
  CHECK(gpus->text.find("0000:03:00.0") != std::string::npos);
  CHECK(svg.node_with_text("24 more ports") != nullptr);
  CHECK(svg.node_with_text("x Samsung Electronics Co Ltd NVMe SSD Controller") != nullptr);
}

TEST_CASE("the diagram is drawn from every host input: lspci -tv, esxcli, sysfs, a guest",
          "[pci][diagram]") {
  namespace fs = std::filesystem;
  // lspci -tv of a host: a switch with a GPU and a NIC.
  const auto tree = host_from(
      {{"t.txt",
        "-[0000:00]-+-00.0  Intel Corporation Device 09a2 [8086:09a2]\n"
        "           \\-01.0-[01-04]----00.0-[02-04]--+-00.0-[03]----00.0  NVIDIA Corporation "
        "GH100 [H100 PCIe] [10de:2331]\n"
        "                                           \\-01.0-[04]----00.0  Mellanox Technologies "
        "MT2910 Family [ConnectX-7] [15b3:1021]\n"}});
  Svg svg(svg_of(tree));
  CHECK(svg.node_with_text("GPU0 0000:03:00.0") != nullptr);
  CHECK(svg.node_with_text("NIC0 0000:04:00.0") != nullptr);
  CHECK(svg.count("node switch") == 1);

  // lspci -tv in a VMware guest: the GPU below one of the virtual root ports, the others empty.
  std::string guest =
      "-[0000:00]-+-00.0  Intel Corporation 440BX/ZX/DX - 82443BX/ZX/DX Host bridge\n";
  guest += "           +-0f.0  VMware SVGA II Adapter\n";
  guest += "           +-15.0-[03]----00.0  NVIDIA Corporation GH100 [H100 PCIe]\n";
  for (int dev = 0x16; dev < 0x18; ++dev)
    guest += fmt::format("           +-{:02x}.0-[{:02x}]--\n", dev, dev - 0x12);
  guest += "           \\-18.0-[06]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]\n";
  const auto vm = host_from({{"guest.txt", guest}});
  svg = Svg(svg_of(vm));
  CHECK(svg.node_with_text("GPU0 0000:03:00.0") != nullptr);
  CHECK(svg.node_with_text("NIC0 0000:06:00.0") != nullptr);
  // The host bridge, the SVGA adapter and the two empty root ports.
  const Svg::Item* other = svg.node_with_text("4 other devices");
  REQUIRE(other != nullptr);
  CHECK(other->text.find("2 x PCI bridge") != std::string::npos);
  CHECK(svg.count("node switch") == 0);

  // esxcli hardware pci list of the example ESXi host.
  const char* esxi = "examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt";
  svg = Svg(svg_of(host_from({{esxi, vmxkit::test::read_bytes(vmxkit::test::source_path(esxi))}})));
  CHECK(svg.count("node gpu") == 4);
  CHECK(svg.count("node nic") == 2);
  CHECK(svg.count("node switch") == 2);
  CHECK(svg.node_with_text("NIC1 0000:45:00.0") != nullptr);

  // A sysfs tree: a root port and a GPU.
  vmxkit::test::TempDir dir;
  const fs::path devs = dir / "bus/pci/devices";
  const fs::path rp = dir / "devices/pci0000:00/0000:00:01.0";
  const fs::path gpu = rp / "0000:01:00.0";
  fs::create_directories(devs);
  fs::create_directories(gpu);
  auto put = [](const fs::path& p, const std::string& s) { vmxkit::test::write_bytes(p, s); };
  put(rp / "class", "0x060400\n");
  put(rp / "vendor", "0x8086\n");
  put(rp / "device", "0x347a\n");
  put(gpu / "class", "0x030200\n");
  put(gpu / "vendor", "0x10de\n");
  put(gpu / "device", "0x2331\n");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:01.0", devs / "0000:00:01.0");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
                               devs / "0000:01:00.0");
  svg = Svg(svg_of(vmxkit::pci::load_host({devs.string()})));
  const Svg::Item* g = svg.node_with_text("GPU0 0000:01:00.0");
  REQUIRE(g != nullptr);
  CHECK(g->text.find("H100 PCIe") != std::string::npos);
  CHECK(svg.node_with_text("root port 0000:00:01.0") != nullptr);
}

TEST_CASE("devices no bridge leads to are drawn in a cluster of their own", "[pci][diagram]") {
  const auto host = host_from({{"u.txt",
                                "c1:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe]\n\n"
                                "c2:00.0 Non-Volatile memory controller: Samsung NVMe\n\n"}});
  const auto topo = vmxkit::pci::analyze(host, {});
  const Diagram d = vmxkit::pci::build_diagram(host, topo, {});
  REQUIRE(d.node_of(*host.index_of(*vmxkit::parse_bdf("0000:c1:00.0"))));
  const Svg svg(vmxkit::pci::render_svg(vmxkit::pci::to_dot(d)));
  CHECK(svg.node_with_text("GPU0 0000:c1:00.0") != nullptr);
  CHECK(svg.node_with_text("1 other device") != nullptr);
}

TEST_CASE("a large host's GPUs each on its own host bridge fold into one box per NUMA node",
          "[pci][diagram][scale]") {
  // 1,600 such GPUs took Graphviz 1.9 s, about 4x per doubling: its layout grows faster than
  // the boxes it places, so their number must not grow with the host.
  const auto host = host_from({{"farm.txt", vmxkit::test::gpu_farm_text(400)}});
  const auto topo = vmxkit::pci::analyze(host, {});
  REQUIRE(topo.gpus.size() == 400);
  vmxkit::pci::DiagramHighlight vm;  // a GPU the VM uses stays a box of its own
  vm.vm = "vm.vmx";
  vm.devices = {{topo.gpus[5], "pciPassthru0"}};
  vmxkit::pci::DiagramOptions options;
  options.highlight = &vm;
  const Diagram d = vmxkit::pci::build_diagram(host, topo, options);
  CHECK(d.nodes.size() <= 10);
  std::vector<std::string> groups;
  for (const DiagramNode& n : d.nodes) {
    if (n.id.starts_with("group ")) groups.push_back(n.title + " | " + n.lines.front());
  }
  CHECK(groups.size() == 2);  // one per NUMA node
  for (const std::string& g : groups) {
    CHECK_THAT(g, Catch::Contains("GPUs: ") && Catch::Contains("each on its own host bridge"));
  }
  const auto drawn = std::find_if(d.nodes.begin(), d.nodes.end(),
                                  [](const DiagramNode& n) { return !n.vm_name.empty(); });
  REQUIRE(drawn != d.nodes.end());
  CHECK(drawn->vm_name == "pciPassthru0");
  // Every device is in a box: 400 GPUs and 400 host bridge functions or ports.
  std::size_t devices = 0;
  for (const DiagramNode& n : d.nodes) devices += n.devices.size();
  CHECK(devices == host.devices().size());
}
