// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/nccl_topo_xml.h"

#include <fmt/format.h>

#include <charconv>
#include <pugixml.hpp>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::guest {

namespace {

std::string comment_text(std::string s) {
  // "--" may not appear in an XML comment, nor may it end with "-".
  // The option's name is spelled out rather than broken into "- -map".
  for (std::size_t at = s.find("--map"); at != std::string::npos; at = s.find("--map", at)) {
    s.replace(at, 5, "the map option");
  }
  std::string out;
  for (char c : s) {
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += c;
  }
  if (!out.empty() && out.back() == '-') out += ' ';
  return out;
}

void comment(std::string& out, const std::string& pad, const std::string& text) {
  out += pad + "<!-- " + comment_text(text) + " -->\n";
}

void attr(std::string& out, const char* key, const std::string& value) {
  out += fmt::format(" {}=\"", key);
  vsphere::xml::escape_append(value, out);
  out += '"';
}

void header(const NcclTopo& topo, std::string& x) {
  x += "<!-- NCCL topology for this VM, written by vmxkit nccl-topo: the tree NCCL's own sysfs\n"
       "     walk builds on the host above each passthrough GPU and NIC (ncclTopoGetXmlFromSys\n"
       "     keeps every second bridge of a device's sysfs path: a switch's upstream port, never\n"
       "     the root port or a downstream port), with the guest's bus ids on the devices.\n"
       "     Use: NCCL_TOPO_FILE=<this file>. -->\n";
  comment(x, "", "VM: " + topo.vm_path);
  if (!topo.synthetic_domains.empty()) {
    std::string list;
    for (const auto& [h, d] : topo.synthetic_domains) {
      list += fmt::format("{}{:04x} -> {:04x}", list.empty() ? "" : ", ", h, d);
    }
    comment(x, "",
            fmt::format("Bridges are not in the guest: their busid is the host's bus/device/"
                        "function in a PCI domain no guest device uses (host domain {}), so NCCL "
                        "cannot mistake one for a guest device; NCCL reads their attributes from "
                        "this file only.",
                        list));
  }
  if (topo.numa_assumed) {
    comment(x, "",
            "The host capture gives no NUMA node for some devices: numaid 0 is assumed for them "
            "(give numactl --hardware or lspci -vvv with NUMA node lines).");
  }
}

/// The path types NCCL computes from the tree, so a reader can compare them with the host's
/// `NCCL_DEBUG_SUBSYS=GRAPH` output and the guest's.
void paths_comment(const NcclTopo& topo, std::string& x) {
  const NcclPaths paths = nccl_paths(topo.tree);
  if (paths.gpu_nic.empty() && paths.gpu_gpu.empty()) return;
  const auto& nodes = topo.tree.nodes;
  std::string text =
      "What NCCL computes from this file, as it does from the host's own tree (ncclTopoSetPaths; "
      "GPUDirect RDMA at NCCL's default NCCL_NET_GDR_LEVEL needs PIX or PXB):";
  for (const auto* list : {&paths.gpu_nic, &paths.gpu_gpu}) {
    for (const NcclPairPath& p : *list) {
      text += fmt::format("\n       {} {} - {} {}: {}, {:.1f} GB/s{}", to_string(nodes[p.a].kind),
                          nodes[p.a].busid, to_string(nodes[p.b].kind), nodes[p.b].busid,
                          to_string(p.type), p.bw,
                          p.crosses_cpus ? " and the link between the CPUs" : "");
    }
  }
  for (const auto& [gpu, nics] : paths.local_nics) {
    std::string list;
    for (std::size_t n : nics) list += (list.empty() ? "" : ", ") + nodes[n].busid;
    text += fmt::format("\n       GPU {} takes as its own NICs (ncclTopoGetLocal): {}",
                        nodes[gpu].busid, list.empty() ? "none" : list);
  }
  comment(x, "", text);
}

std::string link_note(const NcclTopoNode& n) {
  switch (n.link_source) {
    case LinkSource::guest:
      return "link from the guest's lspci LnkCap (the device's own register; the host capture "
             "has no link)";
    case LinkSource::below:
      return "link assumed: no capture gives this bridge's link; the fastest and widest device "
             "below it";
    case LinkSource::nccl_default:
      return "link unknown in every capture: NCCL's own default (8 GT/s x16, kvDictPciGen) "
             "written out; give the host's lspci -vvv for the real one";
    case LinkSource::host:
    case LinkSource::file:
      break;
  }
  return {};
}

std::string node_note(const NcclTopo& topo, const NcclTopoNode& n) {
  std::string text;
  if (n.mapping) {
    const DeviceMapping& dm = topo.mappings[*n.mapping];
    text = fmt::format("{} guest {} is host {}: {}", to_string(dm.kind), dm.guest_bdf.to_string(),
                       dm.host_bdf.to_string(), dm.how);
    if (dm.busid != dm.guest_bdf.to_string()) {
      text += fmt::format("; NCCL's IB plugin names it {} (ncclIbGetPciPath)", dm.busid);
    }
  } else {
    text = fmt::format("host {} {}", n.host_bdf ? n.host_bdf->to_string() : std::string("?"),
                       n.host_port == pci::PortType::unknown ? std::string_view("bridge")
                                                             : pci::to_string(n.host_port));
  }
  const std::string link = link_note(n);
  return link.empty() ? text : text + "; " + link;
}

void write_pci(const NcclTopo& topo, std::size_t index, int indent, std::string& x) {
  const NcclTopoNode& n = topo.tree.nodes[index];
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  comment(x, pad, node_note(topo, n));
  x += pad + "<pci";
  attr(x, "busid", n.busid);
  if (n.pci_class) attr(x, "class", fmt::format("0x{:06x}", *n.pci_class));
  if (n.vendor) attr(x, "vendor", fmt::format("0x{:04x}", *n.vendor));
  if (n.device) attr(x, "device", fmt::format("0x{:04x}", *n.device));
  if (n.subsystem_vendor) attr(x, "subsystem_vendor", fmt::format("0x{:04x}", *n.subsystem_vendor));
  if (n.subsystem_device) attr(x, "subsystem_device", fmt::format("0x{:04x}", *n.subsystem_device));
  if (!n.link_speed.empty()) attr(x, "link_speed", n.link_speed);
  if (n.link_width) attr(x, "link_width", std::to_string(*n.link_width));
  if (n.children.empty()) {
    x += "/>\n";
    return;
  }
  x += ">\n";
  for (std::size_t c : n.children) write_pci(topo, c, indent + 2, x);
  x += pad + "</pci>\n";
}

// --- reading -----------------------------------------------------------------------------------

std::optional<std::uint16_t> hex16(const pugi::xml_node& node, const char* key) {
  std::string_view v = node.attribute(key).value();
  if (v.starts_with("0x") || v.starts_with("0X")) v.remove_prefix(2);
  unsigned value = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), value, 16);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || value > 0xffff) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

/// kvDictPciClass (topo.cc) matches the start of the value: "0x03..." a GPU, "0x02..." a NIC,
/// anything else a PCI node (a switch when it has elements below it).
NcclNodeKind kind_of_class(std::string_view cls, bool has_pci_children) {
  if (cls.starts_with("0x03")) return NcclNodeKind::gpu;
  if (cls.starts_with("0x02")) return NcclNodeKind::nic;
  return has_pci_children || cls.starts_with("0x0604") ? NcclNodeKind::bridge : NcclNodeKind::other;
}

class Reader {
 public:
  explicit Reader(const SourceFile& source) : source_(source), pos_(source) {}

  NcclTopoTree read() {
    pugi::xml_document doc;
    vsphere::xml::load(source_, doc);
    const pugi::xml_node system = doc.document_element();
    if (std::string_view(system.name()) != "system") {
      pos_.fail(system, "expected <system version=\"1\"> (an NCCL topology file)");
    }
    if (std::string_view(system.attribute("version").value()) != "1") {
      pos_.fail(system,
                "NCCL reads only <system version=\"1\"> (ncclTopoXmlLoadSystem: \"XML "
                "Topology has wrong version\")");
    }
    for (const pugi::xml_node& cpu : system.children("cpu")) read_cpu(cpu);
    return std::move(tree_);
  }

 private:
  std::uint32_t line(const pugi::xml_node& node) const {
    return source_.location(static_cast<std::size_t>(node.offset_debug())).line;
  }

  void read_cpu(const pugi::xml_node& cpu) {
    const pugi::xml_attribute numa = cpu.attribute("numaid");
    int value = 0;
    const std::string_view v = numa.value();
    const auto r = std::from_chars(v.data(), v.data() + v.size(), value);
    if (!numa || r.ec != std::errc() || r.ptr != v.data() + v.size()) {
      pos_.fail(cpu, "expected <cpu numaid=\"N\"> (ncclTopoAddCpu reads numaid)");
    }
    const std::size_t index = tree_.add_cpu(value);
    tree_.nodes[index].line = line(cpu);
    for (const pugi::xml_node& pci : cpu.children("pci")) read_pci(pci, index);
  }

  void read_pci(const pugi::xml_node& pci, std::size_t parent) {
    if (!pci.attribute("busid")) pos_.fail(pci, "expected <pci busid=\"...\">");
    NcclTopoNode n;
    n.busid = pci.attribute("busid").value();
    const std::string_view cls = pci.attribute("class").value();
    if (pci.attribute("class")) {
      unsigned value = 0;
      const std::string_view hex = cls.starts_with("0x") ? cls.substr(2) : cls;
      std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
      n.pci_class = hex.size() <= 4 ? value << 8 : value;
    }
    n.kind = kind_of_class(cls, static_cast<bool>(pci.child("pci")));
    n.vendor = hex16(pci, "vendor");
    n.device = hex16(pci, "device");
    n.subsystem_vendor = hex16(pci, "subsystem_vendor");
    n.subsystem_device = hex16(pci, "subsystem_device");
    n.link_speed = pci.attribute("link_speed").value();
    if (pci.attribute("link_width")) n.link_width = pci.attribute("link_width").as_uint();
    n.link_source = LinkSource::file;
    n.named_net = static_cast<bool>(pci.child("nic")) || static_cast<bool>(pci.child("net"));
    n.line = line(pci);
    read_dump_details(pci, n);
    const std::size_t index = tree_.add_pci(std::move(n), parent, /*in_busid_order=*/false);
    for (const pugi::xml_node& sub : pci.children("pci")) read_pci(sub, index);
  }

  static std::optional<int> int_attr(const pugi::xml_node& node, const char* key) {
    const pugi::xml_attribute a = node.attribute(key);
    if (!a) return std::nullopt;
    const std::string_view v = a.value();
    int value = 0;
    const auto r = std::from_chars(v.data(), v.data() + v.size(), value);
    if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
    return value;
  }

  // What NCCL's dump adds below a `<pci>`: `<gpu dev sm rank gdr>`, `<nic><net name dev gdr>`.
  void read_dump_details(const pugi::xml_node& pci, NcclTopoNode& n) const {
    if (const pugi::xml_node gpu = pci.child("gpu")) {
      n.gpu_dev = int_attr(gpu, "dev");
      n.gpu_rank = int_attr(gpu, "rank");
      if (const auto gdr = int_attr(gpu, "gdr")) n.gpu_gdr = *gdr != 0;
    }
    for (const pugi::xml_node& nic : pci.children("nic")) {
      for (const pugi::xml_node& net : nic.children("net")) {
        NcclTopoNet t{net.attribute("name").value(), int_attr(net, "dev"), std::nullopt, line(net)};
        if (const auto gdr = int_attr(net, "gdr")) t.gdr = *gdr != 0;
        n.nets.push_back(std::move(t));
      }
    }
  }

  const SourceFile& source_;
  vsphere::xml::Positions pos_;
  NcclTopoTree tree_;
};

}  // namespace

std::string nccl_topo_xml(const NcclTopo& topo) {
  std::string x;
  header(topo, x);
  paths_comment(topo, x);
  x += "<system version=\"1\">\n";
  for (std::size_t cpu : topo.tree.cpus) {
    x += fmt::format("  <cpu numaid=\"{}\">\n", topo.tree.nodes[cpu].numaid);
    for (std::size_t c : topo.tree.nodes[cpu].children) write_pci(topo, c, 4, x);
    x += "  </cpu>\n";
  }
  x += "</system>\n";
  return x;
}

NcclTopoTree read_nccl_topo_xml(std::string_view text, const std::string& path) {
  const SourceFile source(path, std::string(text));
  return Reader(source).read();
}

}  // namespace vmxkit::guest
