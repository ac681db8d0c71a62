// SPDX-License-Identifier: Apache-2.0
// The host's PCIe tree as a diagram: a small graph model built once from the Host, written as
// Graphviz DOT by vmxkit itself, and rendered to SVG by Graphviz's library (diagram_svg.cpp, the
// only file that includes Graphviz's headers).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

/// A VM's passthrough devices placed on the host, and the pairs among them to draw.
struct DiagramHighlight {
  std::string vm;  ///< the VM's name as shown in the title ("vm.vmx")
  /// Host device index -> what the VM calls it ("pciPassthru0").
  std::map<std::size_t, std::string> devices;
  /// GPU<->NIC and GPU<->GPU pairs of the VM, each drawn as an edge in its path class's colour.
  std::vector<PairVerdict> pairs;
};

/// Above this many GPUs and NICs (topo's full-matrix limit), sibling GPUs or NICs of one model
/// under one bridge that the VM does not use are drawn as one box listing their addresses.
inline constexpr std::size_t kDiagramFoldSiblings = kFullMatrixLimit;

/// A cell of a switch box: the upstream port, one downstream port, or several folded ones.
struct DiagramPort {
  std::string id;  ///< port name in DOT ("up", "d0")
  std::vector<std::string> lines;
  bool acs_redirect = false;  ///< the port's ACSCtl redirects P2P to the root complex
};

/// One box of the diagram.
struct DiagramNode {
  enum class Kind : unsigned char {
    host_bridge,  ///< a root bus and the host bridge functions on it
    root_port,    ///< a root port, or another PCI bridge that is not part of a switch
    pcie_switch,  ///< one PCIe switch: its upstream and downstream ports as cells
    gpu,          ///< a GPU, or several folded siblings
    nic,          ///< a NIC physical function (its VFs folded in), or several folded siblings
    endpoint,     ///< another device the VM passes through
    folded,       ///< "N other devices" below one bridge, or host bridges with nothing shown
    legend,       ///< what the colours mean (with a VM only)
  };
  std::string id;  ///< the DOT node id (a BDF, "root 0000:15", "other 0000:16:00.0")
  Kind kind = Kind::endpoint;
  std::string title;                   ///< first line, bold ("GPU0 0000:18:00.0")
  std::vector<std::string> lines;      ///< further lines (model, SR-IOV, link)
  std::vector<DiagramPort> ports;      ///< pcie_switch only: upstream first, then downstream
  std::string vm_name;                 ///< what the VM calls the device; non-empty = highlighted
  std::vector<std::size_t> devices;    ///< the host devices drawn by this node
  std::optional<std::size_t> cluster;  ///< index into Diagram::clusters
};

struct DiagramEdge {
  std::size_t from = 0;  ///< node indices
  std::size_t to = 0;
  std::string from_port;  ///< a DiagramPort id of `from`, or empty
  /// A tree edge, or (set) a VM pair drawn in the colour of its path class.
  std::optional<PathClass> pair;
  std::string label;
};

/// A NUMA node (socket) drawn as a cluster around its host bridges and what is below them.
struct DiagramCluster {
  std::string id;  ///< "cluster_numa0"
  std::string label;
};

struct Diagram {
  std::string title;
  std::vector<DiagramCluster> clusters;
  std::vector<DiagramNode> nodes;
  std::vector<DiagramEdge> edges;

  /// The node drawing host device `device` (index in host.devices()), or nullopt.
  std::optional<std::size_t> node_of(std::size_t device) const;
};

struct DiagramOptions {
  std::string title;  ///< the graph's heading (the host inputs)
  const DiagramHighlight* highlight = nullptr;
};

/// Builds the diagram of the host's tree. GPUs and NICs are those of `topo` (its labels,
/// "GPU0", "NIC1", are shown); every other device is folded into a box per bridge unless the VM
/// passes it through. VFs are counted in their PF's box.
Diagram build_diagram(const Host& host, const Topology& topo, const DiagramOptions& options);

/// The diagram as Graphviz DOT: HTML-like labels with every text escaped, one cluster per NUMA
/// node, switches as one table node with a cell per port.
std::string to_dot(const Diagram& diagram);

/// Escapes text for an HTML-like Graphviz label: `&`, `<`, `>`, `"` as entities, `\` doubled
/// (Graphviz replaces `\N`, `\G`... in label text), bytes that are not UTF-8 as U+FFFD and
/// control characters as spaces.
std::string dot_html_escape(std::string_view text);
/// A DOT quoted string (`"..."`) with `"` and `\` escaped and line breaks as spaces.
std::string dot_quote(std::string_view text);

/// Renders DOT text to SVG with Graphviz's library (layout `dot`). Graphviz's warnings are kept
/// from stderr; an error (DOT it cannot read, a failed layout) throws vmxkit::Error with its
/// message.
std::string render_svg(std::string_view dot);

/// The colour of a path class in the diagram: green for PIX/PXB, amber for PHB/NODE, red for
/// SYS, grey for unknown.
std::string_view path_class_colour(PathClass cls);

}  // namespace vmxkit::pci
