// SPDX-License-Identifier: Apache-2.0
// The diagram model and its DOT writer. Path classes and their GPUDirect RDMA verdicts follow
// nvidia-smi's legend and the topology reference (PIX/PXB good, PHB/NODE degraded, SYS
// unsupported); the pairs come from the caller, computed by topology.h.
#include "vmxkit/report/diagram.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vmxkit/core/text.h"

namespace vmxkit::pci {
namespace {

constexpr std::size_t kNameWidth = 48;     // longest name shown in a box, in code points
constexpr std::size_t kFoldedKinds = 3;    // device names listed in an "other devices" box
constexpr std::size_t kListedMembers = 8;  // addresses listed in a box of folded siblings
constexpr std::uint16_t kHostBridgeClass = 0x0600;

constexpr std::string_view kHighlightColour = "#1565c0";

// At most kNameWidth code points of `s`, with "..." when cut.
std::string shorten(std::string_view s) {
  std::size_t i = 0;
  std::size_t points = 0;
  while (i < s.size() && points < kNameWidth) {
    const std::size_t n = utf8_sequence_length(s, i);
    i += n == 0 ? 1 : n;
    ++points;
  }
  if (i >= s.size()) return std::string(s);
  return std::string(s.substr(0, i)) + "...";
}

// The name a device is shown with: the catalogue's model, else lspci's name, else its class.
std::string display_name(const Device& d) {
  if (d.model != nullptr) return d.model->model;
  if (!d.name.empty()) return d.name;
  if (!d.class_name.empty()) return d.class_name;
  if (d.is_bridge()) return "PCI bridge";
  if (d.vendor_id && d.device_id)
    return fmt::format("device {:04x}:{:04x}", *d.vendor_id, *d.device_id);
  return "unknown device";
}

std::string_view port_type_name(const Device& d) {
  switch (d.port_type) {
    case PortType::root_port:
      return "root port";
    case PortType::downstream_port:
      return "downstream port";
    case PortType::pcie_to_pci_bridge:
      return "PCIe-to-PCI bridge";
    case PortType::pci_to_pcie_bridge:
      return "PCI-to-PCIe bridge";
    default:
      return "bridge";
  }
}

std::string link_text(const Device& d) {
  const std::optional<Link>& link = d.link_sta ? d.link_sta : d.link_cap;
  if (!link || (link->speed.empty() && !link->width)) return {};
  std::string out = link->speed;
  if (link->width) out += fmt::format("{}x{}", out.empty() ? "" : " ", *link->width);
  return "link " + out;
}

class Builder {
 public:
  Builder(const Host& host, const Topology& topo, const DiagramOptions& options)
      : host_(host),
        highlight_(options.highlight),
        large_(topo.size() > kDiagramFoldSiblings),
        label_(host.devices().size()),
        interesting_(host.devices().size(), false),
        visited_(host.devices().size(), false),
        vf_count_(host.devices().size(), 0) {
    d_.title = options.title;
    for (std::size_t i = 0; i < topo.size(); ++i) label_[topo.device(i)] = topo.label(i);
    std::vector<std::size_t> shown;
    for (std::size_t i = 0; i < topo.size(); ++i) shown.push_back(topo.device(i));
    if (highlight_ != nullptr) {
      for (const auto& [device, name] : highlight_->devices) shown.push_back(device);
    }
    for (const std::size_t s : shown) {
      for (std::optional<std::size_t> p = s; p && !interesting_[*p]; p = host.at(*p).parent) {
        interesting_[*p] = true;
      }
    }
    for (const Device& dev : host.devices()) {
      if (dev.role == Role::nic_vf && dev.physfn) ++vf_count_[*dev.physfn];
    }
  }

  Diagram build() {
    // One cluster per NUMA node the host bridges are on, when any is known.
    std::map<int, std::size_t> by_node;
    bool unknown_node = false;
    for (const RootBus& r : host_.roots()) {
      if (r.numa_node) {
        by_node.emplace(*r.numa_node, 0);
      } else {
        unknown_node = true;
      }
    }
    std::optional<std::size_t> unknown_cluster;
    for (auto& [node, index] : by_node) {
      index = d_.clusters.size();
      std::string label = fmt::format("NUMA node {}", node);
      if (const auto cpus = host_.numa().cpus.find(node); cpus != host_.numa().cpus.end()) {
        label += fmt::format(" (CPUs {})", cpu_ranges(cpus->second));
      }
      d_.clusters.push_back({fmt::format("cluster_numa{}", node), std::move(label)});
    }
    if (!by_node.empty() && unknown_node) {
      unknown_cluster = d_.clusters.size();
      d_.clusters.push_back({"cluster_numa_unknown", "NUMA node not known"});
    }
    // Host bridges with nothing shown below them: one box per cluster. On a large host, host
    // bridges that each lead to one GPU or NIC of one model (as sibling slots fold): one box
    // per cluster and kind, so the layout does not grow with the host (Graphviz's grows
    // faster than the nodes it places: 1,600 GPUs each on its own host bridge took 1.9 s).
    std::map<std::optional<std::size_t>, std::vector<std::size_t>> quiet;
    using GroupKey = std::pair<std::optional<std::size_t>, std::string>;  // cluster, signature
    std::map<GroupKey, std::vector<std::size_t>> alike;
    std::vector<std::optional<GroupKey>> shown(host_.roots().size());  // nullopt: quiet
    for (std::size_t r = 0; r < host_.roots().size(); ++r) {
      const RootBus& root = host_.roots()[r];
      const std::optional<std::size_t> cluster =
          root.numa_node ? std::optional<std::size_t>(by_node.at(*root.numa_node))
                         : unknown_cluster;
      if (std::none_of(root.children.begin(), root.children.end(),
                       [&](std::size_t c) { return interesting_[c]; })) {
        quiet[cluster].push_back(r);
        continue;
      }
      shown[r] = GroupKey{cluster, root_signature(r)};
      if (!shown[r]->second.empty()) alike[*shown[r]].push_back(r);
    }
    for (std::size_t r = 0; r < host_.roots().size(); ++r) {
      if (!shown[r]) continue;
      const auto group = alike.find(*shown[r]);
      if (group == alike.end() || group->second.size() == 1) {
        add_root(r, shown[r]->first);
      } else if (group->second.front() == r) {
        add_root_group(group->second, shown[r]->first);
      }
    }
    for (const auto& [cluster, roots] : quiet) add_quiet_roots(roots, cluster);
    add_unplaced();
    if (highlight_ != nullptr) add_pairs_and_legend();
    return std::move(d_);
  }

 private:
  // What an "other devices" box collects: the functions folded into it, by name.
  struct Fold {
    std::size_t count = 0;
    std::map<std::string, std::size_t> names;
    std::vector<std::size_t> devices;
  };

  // A child of a drawn node that is drawn too: reached through a port cell of a switch
  // (`port`: the downstream port) or directly.
  struct Slot {
    std::optional<std::size_t> port;  // the downstream port device
    std::vector<std::size_t> children;
  };

  std::size_t add_node(DiagramNode node) {
    const std::size_t index = d_.nodes.size();
    for (const std::size_t dev : node.devices) node_of_[dev] = index;
    d_.nodes.push_back(std::move(node));
    return index;
  }

  void add_edge(std::size_t from, const std::string& port, std::size_t to) {
    d_.edges.push_back({from, to, port, std::nullopt, {}});
  }

  std::string vm_name(std::size_t dev) const {
    if (highlight_ == nullptr) return {};
    const auto it = highlight_->devices.find(dev);
    return it == highlight_->devices.end() ? std::string() : it->second;
  }

  // Folds the subtree of `dev` into `fold`; VFs whose PF is known are counted in the PF's box.
  void fold_subtree(std::size_t dev, Fold& fold) {
    visited_[dev] = true;
    const Device& d = host_.at(dev);
    if (!(d.role == Role::nic_vf && d.physfn)) {
      ++fold.count;
      ++fold.names[shorten(display_name(d))];
      fold.devices.push_back(dev);
    }
    for (const std::size_t c : d.children) fold_subtree(c, fold);
  }

  void add_fold(const Fold& fold, std::size_t parent, const std::string& port,
                std::optional<std::size_t> cluster) {
    if (fold.count == 0) return;
    DiagramNode n;
    n.kind = DiagramNode::Kind::folded;
    n.id = "other " + d_.nodes[parent].id + (port.empty() ? "" : ":" + port);
    n.title = fmt::format("{} other device{}", fold.count, fold.count == 1 ? "" : "s");
    std::vector<std::pair<std::string, std::size_t>> names(fold.names.begin(), fold.names.end());
    std::stable_sort(names.begin(), names.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (std::size_t i = 0; i < names.size() && i < kFoldedKinds; ++i) {
      n.lines.push_back(fmt::format("{} x {}", names[i].second, names[i].first));
    }
    if (names.size() > kFoldedKinds) {
      n.lines.push_back(fmt::format("and {} more kinds", names.size() - kFoldedKinds));
    }
    n.devices = fold.devices;
    n.cluster = cluster;
    add_edge(parent, port, add_node(std::move(n)));
  }

  void add_root(std::size_t r, std::optional<std::size_t> cluster) {
    const RootBus& root = host_.roots()[r];
    DiagramNode n;
    n.kind = DiagramNode::Kind::host_bridge;
    n.id = "root " + root.to_string();
    n.title = "host bridge " + root.to_string();
    n.cluster = cluster;
    std::vector<std::size_t> below;
    for (const std::size_t c : root.children) {
      const Device& d = host_.at(c);
      if (d.class_code == kHostBridgeClass && !interesting_[c] && d.children.empty()) {
        // The host bridge's own functions are the box itself.
        visited_[c] = true;
        n.devices.push_back(c);
        if (n.lines.empty()) n.lines.push_back(shorten(display_name(d)));
      } else {
        below.push_back(c);
      }
    }
    if (n.devices.size() > 1) n.lines.push_back(fmt::format("{} functions", n.devices.size()));
    const std::size_t index = add_node(std::move(n));
    add_children(index, below, cluster);
  }

  // The interesting child of a host bridge that leads to nothing else shown, or nullopt.
  std::optional<std::size_t> only_interesting_child(std::size_t r) const {
    std::optional<std::size_t> only;
    for (const std::size_t c : host_.roots()[r].children) {
      if (!interesting_[c]) continue;
      if (only) return std::nullopt;
      only = c;
    }
    return only;
  }

  // The signature under which host bridges fold into one box on a large host: that of their
  // one shown child as a sibling slot (signature()). Empty: drawn on its own.
  std::string root_signature(std::size_t r) const {
    const std::optional<std::size_t> child = only_interesting_child(r);
    if (!large_ || !child) return {};
    const std::string sig = signature(Slot{std::nullopt, {*child}});
    return sig.empty() ? sig : "root>" + sig;
  }

  // One box for host bridges of one signature: their GPUs or NICs listed by address, as
  // sibling slots are (add_sibling_group); the host bridges' other functions fold below it.
  void add_root_group(const std::vector<std::size_t>& roots, std::optional<std::size_t> cluster) {
    std::vector<Slot> slots;
    std::vector<std::size_t> group;
    Fold fold;
    for (const std::size_t r : roots) {
      const std::size_t child = *only_interesting_child(r);
      for (const std::size_t c : host_.roots()[r].children) {
        if (c != child) fold_subtree(c, fold);
      }
      group.push_back(slots.size());
      slots.push_back({std::nullopt, {child}});
    }
    const std::size_t index = add_sibling_group(slots, group, cluster, fold);
    DiagramNode& n = d_.nodes[index];
    const std::string below = "each on its own host bridge";
    if (!n.lines.empty() && n.lines.front().starts_with("each below its own ")) {
      n.lines.front() = below + ", below its own " + n.lines.front().substr(19);
    } else {
      n.lines.insert(n.lines.begin(), below);
    }
    add_fold(fold, index, {}, cluster);
  }

  // The children of a drawn non-switch node: the interesting ones drawn, the rest folded.
  void add_children(std::size_t parent, const std::vector<std::size_t>& children,
                    std::optional<std::size_t> cluster) {
    Fold fold;
    std::vector<Slot> slots;
    for (const std::size_t c : children) {
      if (interesting_[c]) {
        slots.push_back({std::nullopt, {c}});
      } else {
        fold_subtree(c, fold);
      }
    }
    for (const auto& group : group_slots(slots)) {
      if (group.size() == 1) {
        for (const std::size_t c : slots[group.front()].children) {
          add_edge(parent, {}, add_device(c, cluster, fold));
        }
      } else {
        add_edge(parent, {}, add_sibling_group(slots, group, cluster, fold));
      }
    }
    add_fold(fold, parent, {}, cluster);
  }

  // The signature under which sibling slots fold into one box on a large host: one GPU or NIC
  // of one model, not used by the VM, directly or below a chain of plain bridges. Empty: the
  // slot is drawn on its own.
  std::string signature(const Slot& slot) const {
    if (!large_ || slot.children.size() != 1) return {};
    std::string chain;
    std::size_t dev = slot.children.front();
    for (;;) {
      const Device& d = host_.at(dev);
      if (!vm_name(dev).empty()) return {};
      if (!d.is_bridge()) {
        if (label_[dev].empty()) return {};  // neither a GPU nor a NIC
        return chain + std::string(to_string(d.role)) + "|" + display_name(d);
      }
      if (d.port_type == PortType::upstream_port) return {};
      std::optional<std::size_t> next;
      for (const std::size_t c : d.children) {
        if (!interesting_[c]) continue;
        if (next) return {};
        next = c;
      }
      if (!next) return {};
      chain += std::string(port_type_name(d)) + ">";
      dev = *next;
    }
  }

  // Slots grouped by signature, in order of their first member; unfoldable slots alone.
  std::vector<std::vector<std::size_t>> group_slots(const std::vector<Slot>& slots) const {
    std::vector<std::vector<std::size_t>> groups;
    std::map<std::string, std::size_t> by_signature;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const std::string sig = signature(slots[i]);
      if (sig.empty()) {
        groups.push_back({i});
        continue;
      }
      const auto [it, fresh] = by_signature.emplace(sig, groups.size());
      if (fresh) {
        groups.push_back({i});
      } else {
        groups[it->second].push_back(i);
      }
    }
    return groups;
  }

  // One box for sibling slots of one signature: the GPUs or NICs listed by address; the
  // bridges of their chains and what is below those bridges count in the box and the fold.
  std::size_t add_sibling_group(const std::vector<Slot>& slots,
                                const std::vector<std::size_t>& group,
                                std::optional<std::size_t> cluster, Fold& fold) {
    DiagramNode n;
    std::vector<std::size_t> leaves;
    std::size_t bridges = 0;
    for (const std::size_t s : group) {
      std::size_t dev = slots[s].children.front();
      while (host_.at(dev).is_bridge()) {
        visited_[dev] = true;
        n.devices.push_back(dev);
        ++bridges;
        std::size_t next = dev;
        for (const std::size_t c : host_.at(dev).children) {
          if (interesting_[c]) {
            next = c;
          } else {
            fold_subtree(c, fold);
          }
        }
        dev = next;
      }
      visited_[dev] = true;
      leaves.push_back(dev);
      n.devices.push_back(dev);
      for (const std::size_t c : host_.at(dev).children) fold_subtree(c, fold);
    }
    const Device& first = host_.at(leaves.front());
    n.kind = first.role == Role::gpu ? DiagramNode::Kind::gpu : DiagramNode::Kind::nic;
    n.id = "group " + first.bdf.to_string();
    n.title =
        fmt::format("{} {}s: {}", leaves.size(), n.kind == DiagramNode::Kind::gpu ? "GPU" : "NIC",
                    shorten(display_name(first)));
    if (bridges > 0) {
      n.lines.push_back(
          fmt::format("each below its own {}",
                      port_type_name(host_.at(slots[group.front()].children.front()))));
    }
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      if (i == kListedMembers && leaves.size() > kListedMembers + 1) {
        n.lines.push_back(fmt::format("and {} more", leaves.size() - kListedMembers));
        break;
      }
      n.lines.push_back(
          fmt::format("{} {}", label_[leaves[i]], host_.at(leaves[i]).bdf.to_string()));
    }
    n.cluster = cluster;
    return add_node(std::move(n));
  }

  // Draws an interesting device and what is below it; returns its node.
  std::size_t add_device(std::size_t dev, std::optional<std::size_t> cluster, Fold& parent_fold) {
    visited_[dev] = true;
    const Device& d = host_.at(dev);
    if (d.is_bridge() && d.port_type == PortType::upstream_port) return add_switch(dev, cluster);
    DiagramNode n;
    n.devices.push_back(dev);
    n.id = d.bdf.to_string();
    n.vm_name = vm_name(dev);
    n.cluster = cluster;
    if (d.is_bridge()) {
      n.kind = DiagramNode::Kind::root_port;
      n.title = fmt::format("{} {}", port_type_name(d), d.bdf.to_string());
      n.lines.push_back(shorten(display_name(d)));
      if (std::string link = link_text(d); !link.empty()) n.lines.push_back(std::move(link));
      if (d.acs && d.acs->redirects_p2p()) n.lines.emplace_back("ACS redirects P2P");
      const std::size_t index = add_node(std::move(n));
      add_children(index, d.children, cluster);
      return index;
    }
    n.kind = d.role == Role::gpu ? DiagramNode::Kind::gpu
             : d.role == Role::rdma_nic || d.role == Role::nic || d.role == Role::nic_vf
                 ? DiagramNode::Kind::nic
                 : DiagramNode::Kind::endpoint;
    n.title = label_[dev].empty() ? d.bdf.to_string() : label_[dev] + " " + d.bdf.to_string();
    n.lines.push_back(shorten(display_name(d)));
    if (!d.rdma_name.empty()) n.lines.push_back(shorten(d.rdma_name));
    if (!d.current_owner.empty()) {  // ESXi: who has the device, and after a reboot
      std::string owner = "owner: " + d.current_owner;
      if (!d.configured_owner.empty() && d.configured_owner != d.current_owner) {
        owner += " (after reboot: " + d.configured_owner + ")";
      }
      n.lines.push_back(shorten(owner));
    }
    if (d.sriov && (d.sriov->num_vfs || d.sriov->total_vfs)) {
      if (d.sriov->num_vfs && d.sriov->total_vfs) {
        n.lines.push_back(
            fmt::format("SR-IOV: {} of {} VFs", *d.sriov->num_vfs, *d.sriov->total_vfs));
      } else if (d.sriov->total_vfs) {
        n.lines.push_back(fmt::format("SR-IOV: up to {} VFs", *d.sriov->total_vfs));
      } else {
        n.lines.push_back(fmt::format("SR-IOV: {} VFs", *d.sriov->num_vfs));
      }
    }
    if (vf_count_[dev] > 0) {
      n.lines.push_back(
          fmt::format("{} VF{} folded in", vf_count_[dev], vf_count_[dev] == 1 ? "" : "s"));
    }
    // An endpoint has no children; any there are counted with its parent's other devices.
    for (const std::size_t c : d.children) fold_subtree(c, parent_fold);
    return add_node(std::move(n));
  }

  // The switch box's cells: one per group of downstream ports that lead to something drawn,
  // one for the `quiet` other ports.
  void add_port_cells(DiagramNode& n, const std::vector<Slot>& slots,
                      const std::vector<std::vector<std::size_t>>& groups, std::size_t quiet) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const Device& port = host_.at(*slots[groups[g].front()].port);
      DiagramPort cell;
      cell.id = fmt::format("d{}", g);
      if (groups[g].size() == 1) {
        cell.lines.push_back(port.bdf.to_string());
        cell.acs_redirect = port.acs && port.acs->redirects_p2p();
      } else {
        cell.lines.push_back(fmt::format("{} ports", groups[g].size()));
        cell.lines.push_back(fmt::format("from {}", port.bdf.to_string()));
        for (const std::size_t s : groups[g]) {
          const Device& p = host_.at(*slots[s].port);
          cell.acs_redirect = cell.acs_redirect || (p.acs && p.acs->redirects_p2p());
        }
      }
      n.ports.push_back(std::move(cell));
    }
    if (quiet > 0) {
      n.ports.push_back(
          {"more", {fmt::format("{} more port{}", quiet, quiet == 1 ? "" : "s")}, false});
    }
  }

  // One box for a switch: the upstream port and a cell per downstream port that leads to
  // something drawn; the other downstream ports in one cell.
  std::size_t add_switch(std::size_t up, std::optional<std::size_t> cluster) {
    const Device& u = host_.at(up);
    DiagramNode n;
    n.kind = DiagramNode::Kind::pcie_switch;
    n.id = u.bdf.to_string();
    n.title = "PCIe switch";
    n.lines.push_back(shorten(display_name(u)));
    n.vm_name = vm_name(up);
    n.devices.push_back(up);
    n.cluster = cluster;
    std::vector<std::string> up_lines = {"upstream " + u.bdf.to_string()};
    if (std::string link = link_text(u); !link.empty()) up_lines.push_back(std::move(link));
    n.ports.push_back({"up", std::move(up_lines), u.acs && u.acs->redirects_p2p()});

    Fold fold;
    std::vector<Slot> slots;
    std::vector<std::size_t> quiet_ports;
    std::vector<std::size_t> direct;  // endpoints on the switch's own bus (not usual)
    for (const std::size_t c : u.children) {
      const Device& cd = host_.at(c);
      if (!cd.is_bridge()) {
        if (interesting_[c]) {
          direct.push_back(c);
        } else {
          fold_subtree(c, fold);
        }
        continue;
      }
      visited_[c] = true;
      n.devices.push_back(c);
      if (!interesting_[c]) {
        quiet_ports.push_back(c);
        for (const std::size_t g : cd.children) fold_subtree(g, fold);
        continue;
      }
      Slot slot{c, {}};
      for (const std::size_t g : cd.children) {
        if (interesting_[g]) {
          slot.children.push_back(g);
        } else {
          fold_subtree(g, fold);
        }
      }
      slots.push_back(std::move(slot));
    }
    const auto groups = group_slots(slots);
    // Port cells first (the node's label must be complete before it is added), then children.
    add_port_cells(n, slots, groups, quiet_ports.size());
    const std::size_t index = add_node(std::move(n));
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::string port = fmt::format("d{}", g);
      if (groups[g].size() == 1) {
        for (const std::size_t c : slots[groups[g].front()].children) {
          add_edge(index, port, add_device(c, cluster, fold));
        }
      } else {
        add_edge(index, port, add_sibling_group(slots, groups[g], cluster, fold));
      }
    }
    for (const std::size_t c : direct) add_edge(index, {}, add_device(c, cluster, fold));
    add_fold(fold, index, quiet_ports.empty() ? std::string() : "more", cluster);
    return index;
  }

  void add_quiet_roots(const std::vector<std::size_t>& roots, std::optional<std::size_t> cluster) {
    DiagramNode n;
    n.kind = DiagramNode::Kind::folded;
    Fold fold;
    for (const std::size_t r : roots) {
      for (const std::size_t c : host_.roots()[r].children) fold_subtree(c, fold);
    }
    const RootBus& first = host_.roots()[roots.front()];
    n.id = "quiet " + first.to_string();
    n.title = roots.size() == 1 ? "host bridge " + first.to_string()
                                : fmt::format("{} host bridges", roots.size());
    if (roots.size() > 1) {
      std::string list;
      for (std::size_t i = 0; i < roots.size() && i < kListedMembers; ++i) {
        if (i != 0) list += ", ";
        list += host_.roots()[roots[i]].to_string();
      }
      if (roots.size() > kListedMembers) list += ", ...";
      n.lines.push_back(std::move(list));
    }
    n.lines.push_back(
        fmt::format("{} device{}, no GPU or NIC", fold.count, fold.count == 1 ? "" : "s"));
    n.devices = std::move(fold.devices);
    n.cluster = cluster;
    add_node(std::move(n));
  }

  // Devices no bridge leads to: the GPUs and NICs among them drawn, the rest folded, in a
  // cluster of their own.
  void add_unplaced() {
    std::vector<std::size_t> drawn;
    Fold fold;
    for (std::size_t i = 0; i < host_.devices().size(); ++i) {
      if (visited_[i] || host_.at(i).parent) continue;
      if (interesting_[i]) {
        drawn.push_back(i);
      } else {
        fold_subtree(i, fold);
      }
    }
    if (drawn.empty() && fold.count == 0) return;
    const std::size_t cluster = d_.clusters.size();
    d_.clusters.push_back(
        {"cluster_unplaced", "not placed: no bridge of the inputs leads to their bus"});
    for (const std::size_t i : drawn) add_device(i, cluster, fold);
    if (fold.count > 0) {
      DiagramNode n;
      n.kind = DiagramNode::Kind::folded;
      n.id = "other unplaced";
      n.title = fmt::format("{} other device{}", fold.count, fold.count == 1 ? "" : "s");
      n.devices = fold.devices;
      n.cluster = cluster;
      add_node(std::move(n));
    }
  }

  void add_pairs_and_legend() {
    for (const PairVerdict& p : highlight_->pairs) {
      const auto a = node_of_.find(p.a);
      const auto b = node_of_.find(p.b);
      if (a == node_of_.end() || b == node_of_.end() || a->second == b->second) continue;
      d_.edges.push_back(
          {a->second, b->second, {}, p.path.cls, std::string(to_string(p.path.cls))});
    }
    DiagramNode n;
    n.kind = DiagramNode::Kind::legend;
    n.id = "legend";
    n.title = "Legend";
    n.lines = {"PIX, PXB: through PCIe switches only; GPUDirect RDMA ok",
               "PHB, NODE: through the CPU's host bridges; degraded",
               "SYS: across the CPU sockets; not supported",
               "?: NODE or SYS, the NUMA nodes are not known",
               "passed through to " + highlight_->vm};
    add_node(std::move(n));
  }

  const Host& host_;
  const DiagramHighlight* highlight_;
  bool large_;
  Diagram d_;
  std::vector<std::string> label_;
  std::vector<bool> interesting_;
  std::vector<bool> visited_;
  std::vector<std::size_t> vf_count_;
  std::map<std::size_t, std::size_t> node_of_;
};

// --- DOT ---

struct Style {
  std::string_view fill;
  std::string_view border;
};

Style style_of(DiagramNode::Kind kind) {
  switch (kind) {
    case DiagramNode::Kind::host_bridge:
      return {"#eceff1", "#455a64"};
    case DiagramNode::Kind::root_port:
      return {"#f5f5f5", "#616161"};
    case DiagramNode::Kind::pcie_switch:
      return {"#fff8e1", "#8d6e63"};
    case DiagramNode::Kind::gpu:
      return {"#e8f5e9", "#2e7d32"};
    case DiagramNode::Kind::nic:
      return {"#e3f2fd", "#1565c0"};
    case DiagramNode::Kind::endpoint:
      return {"#f3e5f5", "#6a1b9a"};
    case DiagramNode::Kind::folded:
      return {"#fafafa", "#9e9e9e"};
    case DiagramNode::Kind::legend:
      return {"#ffffff", "#9e9e9e"};
  }
  return {"#ffffff", "#000000"};
}

std::string_view kind_name(DiagramNode::Kind kind) {
  switch (kind) {
    case DiagramNode::Kind::host_bridge:
      return "host_bridge";
    case DiagramNode::Kind::root_port:
      return "root_port";
    case DiagramNode::Kind::pcie_switch:
      return "switch";
    case DiagramNode::Kind::gpu:
      return "gpu";
    case DiagramNode::Kind::nic:
      return "nic";
    case DiagramNode::Kind::endpoint:
      return "endpoint";
    case DiagramNode::Kind::folded:
      return "folded";
    case DiagramNode::Kind::legend:
      return "legend";
  }
  return "endpoint";
}

std::string lines_html(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "<BR/>";
    out += dot_html_escape(lines[i]);
  }
  return out;
}

std::string legend_label(const DiagramNode& n) {
  static constexpr PathClass kRows[] = {PathClass::pix, PathClass::phb, PathClass::sys,
                                        PathClass::unknown};
  std::string out =
      "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"2\" "
      "COLOR=\"#9e9e9e\" BGCOLOR=\"#ffffff\">";
  out += "<TR><TD COLSPAN=\"2\"><B>" + dot_html_escape(n.title) + "</B></TD></TR>";
  for (std::size_t i = 0; i < n.lines.size(); ++i) {
    const std::string_view colour =
        i < std::size(kRows) ? path_class_colour(kRows[i]) : kHighlightColour;
    out += fmt::format(R"(<TR><TD BGCOLOR="{}" WIDTH="24"> </TD><TD ALIGN="LEFT">{}</TD></TR>)",
                       colour, dot_html_escape(n.lines[i]));
  }
  return out + "</TABLE>";
}

std::string node_label(const DiagramNode& n) {
  if (n.kind == DiagramNode::Kind::legend) return legend_label(n);
  const Style s = style_of(n.kind);
  const bool lit = !n.vm_name.empty();
  const std::string_view border = lit ? kHighlightColour : s.border;
  const int width = lit ? 3 : 1;
  if (n.kind == DiagramNode::Kind::pcie_switch) {
    const std::size_t down = n.ports.size() > 1 ? n.ports.size() - 1 : 1;
    std::string out = fmt::format(
        "<TABLE BORDER=\"{}\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
        "COLOR=\"{}\" BGCOLOR=\"{}\">",
        lit ? width : 0, border, s.fill);  // the cells' borders are the box's, unless lit
    std::vector<std::string> head = n.lines;
    if (!n.ports.empty()) head.insert(head.end(), n.ports[0].lines.begin(), n.ports[0].lines.end());
    if (!n.ports.empty() && n.ports[0].acs_redirect) head.emplace_back("ACS redirects P2P");
    if (lit) head.push_back("VM: " + n.vm_name);
    out += fmt::format(R"(<TR><TD COLSPAN="{}" PORT="up"><B>{}</B><BR/>{}</TD></TR>)", down,
                       dot_html_escape(n.title), lines_html(head));
    if (n.ports.size() > 1) {
      out += "<TR>";
      for (std::size_t i = 1; i < n.ports.size(); ++i) {
        std::vector<std::string> cell = n.ports[i].lines;
        if (n.ports[i].acs_redirect) cell.emplace_back("ACS redirects P2P");
        out += fmt::format("<TD PORT=\"{}\">{}</TD>", n.ports[i].id, lines_html(cell));
      }
      out += "</TR>";
    }
    return out + "</TABLE>";
  }
  std::string out = fmt::format(
      "<TABLE BORDER=\"{}\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\" COLOR=\"{}\" "
      "BGCOLOR=\"{}\">",
      width, border, s.fill);
  out += "<TR><TD><B>" + dot_html_escape(n.title) + "</B></TD></TR>";
  if (!n.lines.empty()) out += "<TR><TD>" + lines_html(n.lines) + "</TD></TR>";
  if (lit) {
    out += fmt::format("<TR><TD><FONT COLOR=\"{}\"><B>VM: {}</B></FONT></TD></TR>",
                       kHighlightColour, dot_html_escape(n.vm_name));
  }
  return out + "</TABLE>";
}

void write_node(std::string& out, const DiagramNode& n, std::string_view indent) {
  out += fmt::format("{}{} [class={}, label=<{}>];\n", indent, dot_quote(n.id),
                     dot_quote(kind_name(n.kind)), node_label(n));
}

}  // namespace

std::optional<std::size_t> Diagram::node_of(std::size_t device) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (std::find(nodes[i].devices.begin(), nodes[i].devices.end(), device) !=
        nodes[i].devices.end()) {
      return i;
    }
  }
  return std::nullopt;
}

Diagram build_diagram(const Host& host, const Topology& topo, const DiagramOptions& options) {
  return Builder(host, topo, options).build();
}

std::string_view path_class_colour(PathClass cls) {
  switch (cls) {
    case PathClass::self:
    case PathClass::pix:
    case PathClass::pxb:
      return "#2e7d32";
    case PathClass::phb:
    case PathClass::node:
      return "#e69100";
    case PathClass::sys:
      return "#c62828";
    case PathClass::unknown:
      return "#757575";
  }
  return "#757575";
}

std::string dot_html_escape(std::string_view text) {
  const std::string valid = to_valid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  for (const char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\\':  // Graphviz reads \N, \G... in labels as the node's or graph's name
        out += "\\\\";
        break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        out += u < 0x20 || u == 0x7f ? ' ' : c;
      }
    }
  }
  return out;
}

std::string dot_quote(std::string_view text) {
  const std::string valid = to_valid_utf8(text);
  std::string out = "\"";
  for (const char c : valid) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string to_dot(const Diagram& d) {
  // Courier: Graphviz sizes boxes from its own metrics of the font named (diagram_svg.cpp), and
  // every monospace font a viewer substitutes has Courier's widths, so text stays in its box.
  std::string out = "digraph \"pcie\" {\n";
  out +=
      "  graph [rankdir=TB, newrank=true, nodesep=0.3, ranksep=0.45, fontname=\"Courier\", "
      "fontsize=12, labelloc=t";
  if (!d.title.empty()) out += ", label=<<B>" + dot_html_escape(d.title) + "</B>>";
  out += "];\n";
  out += "  node [shape=plain, fontname=\"Courier\", fontsize=10];\n";
  out += "  edge [dir=none, color=\"#616161\", fontname=\"Courier\", fontsize=10];\n";
  // The boxes at the top of each cluster (host bridges) left to right in PCI address order:
  // dot would otherwise order them as its crossing minimization finds, often reversed.
  std::vector<bool> has_parent(d.nodes.size(), false);
  for (const DiagramEdge& e : d.edges) {
    if (!e.pair) has_parent[e.to] = true;
  }
  auto write_order = [&](std::optional<std::size_t> cluster, std::string_view indent) {
    std::vector<std::string> top;
    for (std::size_t i = 0; i < d.nodes.size(); ++i) {
      if (d.nodes[i].cluster == cluster && !has_parent[i] &&
          d.nodes[i].kind != DiagramNode::Kind::legend) {
        top.push_back(dot_quote(d.nodes[i].id));
      }
    }
    if (top.size() < 2) return;
    out += fmt::format("{}{{rank=same; ", indent);
    for (std::size_t i = 0; i < top.size(); ++i) out += (i == 0 ? "" : " -> ") + top[i];
    out += " [style=invis];}\n";
  };
  for (std::size_t c = 0; c < d.clusters.size(); ++c) {
    out += fmt::format("  subgraph {} {{\n", dot_quote(d.clusters[c].id));
    out += fmt::format(
        "    graph [label=<{}>, style=\"rounded,dashed\", color=\"#90a4ae\", fontsize=11];\n",
        dot_html_escape(d.clusters[c].label));
    for (const DiagramNode& n : d.nodes) {
      if (n.cluster == c) write_node(out, n, "    ");
    }
    write_order(c, "    ");
    out += "  }\n";
  }
  for (const DiagramNode& n : d.nodes) {
    if (!n.cluster) write_node(out, n, "  ");
  }
  write_order(std::nullopt, "  ");
  // Tree edges in the order their heads were added (a parent before its children, siblings in
  // PCI address order): dot keeps that order left to right. Then the VM's pairs.
  std::vector<const DiagramEdge*> edges;
  for (const DiagramEdge& e : d.edges) edges.push_back(&e);
  std::stable_sort(edges.begin(), edges.end(), [](const DiagramEdge* a, const DiagramEdge* b) {
    if (a->pair.has_value() != b->pair.has_value()) return !a->pair.has_value();
    return !a->pair && a->to < b->to;
  });
  for (const DiagramEdge* edge : edges) {
    const DiagramEdge& e = *edge;
    const std::string from = dot_quote(d.nodes[e.from].id) +
                             (e.from_port.empty() ? "" : ":" + dot_quote(e.from_port) + ":s");
    const std::string to = dot_quote(d.nodes[e.to].id);
    if (!e.pair) {
      out += fmt::format("  {} -> {};\n", from, to);
      continue;
    }
    // The pairs leave and enter their boxes at the bottom, below the tree, and do not move the
    // tree's ranks. The class is an xlabel: a `label` on an edge with constraint=false crashes
    // Graphviz 2.43's dot layout (a double free in gvFreeLayout), and dir=none still draws
    // arrowheads on such an edge there: dir=both with both arrows none draws none.
    const std::string_view colour = path_class_colour(*e.pair);
    out += fmt::format(
        "  {} -> {} [class=\"pair\", constraint=false, tailport=s, headport=s, dir=both, "
        "arrowhead=none, arrowtail=none, "
        "penwidth=2.5, color=\"{}\", fontcolor=\"{}\", xlabel={}];\n",
        from, to, colour, colour, dot_quote(e.label));
  }
  return out + "}\n";
}

}  // namespace vmxkit::pci
