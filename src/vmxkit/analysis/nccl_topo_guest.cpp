// SPDX-License-Identifier: Apache-2.0
// A topology file in a guest: what NCCL merges from the file and the guest's own tree
// (ncclTopoGetSystem, ncclTopoFillGpu, ncclTopoFillNet, ncclTopoTrimXml in NCCL 2.30.7,
// src/graph/topo.cc and xml.cc), and the check of a file's bus ids and pairs (GUEST015).
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "vmxkit/analysis/nccl_topo.h"

namespace vmxkit::guest {

namespace {

/// The guest's NUMA node of a device as its sysfs `numa_node` holds it: what lspci printed, or
/// -1 (lspci prints no `NUMA node:` line for -1; nodes vmxkit inferred are not the kernel's).
int guest_numa(const pci::Device& d) { return d.numa_node && !d.numa_inferred ? *d.numa_node : -1; }

std::string id_text(const NcclTopoNode& n) {
  if (!n.vendor || !n.device) return {};
  return fmt::format("{:04x}:{:04x}", *n.vendor, *n.device);
}

/// Builds NcclGuestView::tree: the file, the guest's devices placed, the rest trimmed.
class Merger {
 public:
  Merger(NcclTopoTree file, const Guest& guest)
      : gp_(guest.pci()), devices_(nccl_devices(guest)), merged_(std::move(file)) {}

  NcclGuestView run() {
    std::map<std::size_t, std::size_t> merged_of;  // guest index -> node in merged_
    for (std::size_t i : devices_) merged_of[i] = place(i);
    NcclGuestView view;
    std::map<std::size_t, std::size_t> trimmed_of;  // merged_ node -> view.tree node
    for (std::size_t c : merged_.cpus) copy_kept(c, std::nullopt, view.tree, trimmed_of);
    for (const auto& [guest_index, node] : merged_of) {
      view.node_of[guest_index] = trimmed_of.at(node);
    }
    view.paths = nccl_paths(view.tree);
    return view;
  }

 private:
  /// ncclTopoFillGpu / ncclTopoFillNet for one guest device: the file's element with its bus id,
  /// else the guest's own sysfs walk.
  std::size_t place(std::size_t i) {
    const pci::Device& d = gp_.at(i);
    const NcclNodeKind kind = nccl_kind(d);
    const std::string busid = nccl_busid(d.bdf, kind);
    if (kind == NcclNodeKind::nic && busid != d.bdf.to_string() &&
        gp_.find(Bdf{d.bdf.domain, d.bdf.bus, 0, 0}) == nullptr) {
      // The plugin's pciPath names a function the guest does not have: "is not a PCI device
      // ... Attaching to first CPU" (ncclTopoFillNet).
      const std::size_t cpu = merged_.cpus.empty() ? merged_.add_cpu(-1) : merged_.cpus.front();
      return keep(add_device(d, kind, busid, cpu));
    }
    if (const auto found = merged_.find(busid)) {
      merged_.nodes[*found].kind = kind;  // class re-read from the guest's sysfs
      return keep(*found);
    }
    return keep(walk(i, kind, busid));
  }

  /// ncclTopoGetXmlFromSys in the guest: the device's parent is the bridge two components up
  /// its sysfs path, found by bus id anywhere in the file or created; a created one is walked
  /// on the same way; the walk ends at the `<cpu>` of the top element's guest NUMA node.
  std::size_t walk(std::size_t i, NcclNodeKind kind, const std::string& busid) {
    std::vector<std::size_t> chain = nccl_parent_bridges(gp_, i);  // outermost first
    std::optional<std::size_t> attach;
    std::size_t first_new = 0;  // chain[first_new..] are created
    for (std::size_t k = chain.size(); k-- > 0;) {
      if (const auto f = merged_.find(gp_.at(chain[k]).bdf.to_string())) {
        attach = *f;
        first_new = k + 1;
        break;
      }
    }
    if (!attach) {
      const pci::Device& top = gp_.at(chain.empty() ? i : chain.front());
      const int numa = guest_numa(top);
      const auto cpu = merged_.find_cpu(numa);
      attach = cpu ? *cpu : merged_.add_cpu(numa);
    }
    for (std::size_t k = first_new; k < chain.size(); ++k) {
      const pci::Device& b = gp_.at(chain[k]);
      attach = add_device(b, NcclNodeKind::bridge, b.bdf.to_string(), *attach);
    }
    return add_device(gp_.at(i), kind, busid, *attach);
  }

  std::size_t add_device(const pci::Device& d, NcclNodeKind kind, const std::string& busid,
                         std::size_t parent) {
    NcclTopoNode n;
    n.kind = kind;
    n.busid = busid;
    if (d.class_code) n.pci_class = static_cast<std::uint32_t>(*d.class_code) << 8;
    n.vendor = d.vendor_id;
    n.device = d.device_id;
    n.subsystem_vendor = d.subsys_vendor_id;
    n.subsystem_device = d.subsys_device_id;
    if (d.link_cap) {
      n.link_speed = nccl_link_speed(d.link_cap->speed);
      n.link_width = d.link_cap->width;
    }
    n.link_source = LinkSource::guest;
    return merged_.add_pci(std::move(n), parent);
  }

  std::size_t keep(std::size_t node) {
    kept_.insert(node);
    return node;
  }

  /// ncclTopoTrimXml: an element stays when it or one below it is a device NCCL uses.
  bool has_kept(std::size_t node) const {
    if (kept_.count(node)) return true;
    const auto& kids = merged_.nodes[node].children;
    return std::any_of(kids.begin(), kids.end(), [&](std::size_t k) { return has_kept(k); });
  }

  void copy_kept(std::size_t node, std::optional<std::size_t> parent, NcclTopoTree& out,
                 std::map<std::size_t, std::size_t>& trimmed_of) const {
    if (!has_kept(node)) return;
    const NcclTopoNode& n = merged_.nodes[node];
    std::size_t index = 0;
    if (n.kind == NcclNodeKind::cpu) {
      index = out.add_cpu(n.numaid);
    } else {
      NcclTopoNode copy = n;
      copy.children.clear();
      // A file's GPU or NIC the guest does not have is trimmed; a kept one is a device.
      if (!kept_.count(node) &&
          (copy.kind == NcclNodeKind::gpu || copy.kind == NcclNodeKind::nic)) {
        copy.kind = NcclNodeKind::other;
      }
      index = out.add_pci(std::move(copy), *parent);
    }
    trimmed_of[node] = index;
    for (std::size_t k : n.children) copy_kept(k, index, out, trimmed_of);
  }

  const pci::Host& gp_;
  std::vector<std::size_t> devices_;
  NcclTopoTree merged_;
  std::set<std::size_t> kept_;
};

/// The file's GPUs and NICs the guest does not have, and where a device of that id is now.
void find_moves(const NcclTopoTree& file, const pci::Host& gp,
                const std::vector<std::size_t>& devices, NcclTopoCheck& out,
                std::map<std::string, std::size_t>& guest_of) {
  std::map<std::string, std::size_t> by_busid;  // guest NCCL bus id -> guest index
  for (std::size_t i : devices) by_busid.emplace(nccl_busid(gp.at(i).bdf, nccl_kind(gp.at(i))), i);
  std::set<std::size_t> claimed;
  for (std::size_t n : file.document_order()) {
    const NcclTopoNode& e = file.nodes[n];
    if (e.kind != NcclNodeKind::gpu && e.kind != NcclNodeKind::nic) continue;
    if (const auto it = by_busid.find(e.busid); it != by_busid.end()) {
      guest_of[e.busid] = it->second;
      claimed.insert(it->second);
    }
  }
  for (std::size_t n : file.document_order()) {
    const NcclTopoNode& e = file.nodes[n];
    if ((e.kind != NcclNodeKind::gpu && e.kind != NcclNodeKind::nic) || e.named_net ||
        guest_of.count(e.busid)) {
      continue;
    }
    NcclTopoMove move{e.kind, e.busid, id_text(e), std::nullopt, {}, e.line};
    for (std::size_t i : devices) {
      const pci::Device& d = gp.at(i);
      if (claimed.count(i) || nccl_kind(d) != e.kind || d.vendor_id != e.vendor ||
          d.device_id != e.device) {
        continue;
      }
      claimed.insert(i);
      guest_of[e.busid] = i;
      move.guest_bdf = d.bdf;
      move.guest_busid = nccl_busid(d.bdf, e.kind);
      break;
    }
    out.moved.push_back(std::move(move));
  }
  for (std::size_t i : devices) {
    if (!claimed.count(i)) out.not_in_file.push_back(gp.at(i).bdf);
  }
}

}  // namespace

NcclGuestView nccl_guest_view(const NcclTopoTree& file, const Guest& guest) {
  return Merger(file, guest).run();
}

NcclTopoCheck check_nccl_topo(const NcclTopoTree& file, const Guest& guest) {
  NcclTopoCheck out;
  for (const NcclTopoNode& n : file.nodes) {
    if (n.kind != NcclNodeKind::cpu && !n.children.empty() && !n.pci_class) {
      out.bridges_without_class.push_back(n.line);
    }
  }
  const pci::Host& gp = guest.pci();
  const std::vector<std::size_t> devices = nccl_devices(guest);
  std::map<std::string, std::size_t> guest_of;  // file bus id -> guest index
  find_moves(file, gp, devices, out, guest_of);
  const NcclPaths in_file = nccl_paths(file);
  const NcclGuestView view = nccl_guest_view(file, guest);
  for (const auto* list : {&in_file.gpu_nic, &in_file.gpu_gpu}) {
    for (const NcclPairPath& p : *list) {
      const auto ga = guest_of.find(file.nodes[p.a].busid);
      const auto gb = guest_of.find(file.nodes[p.b].busid);
      if (ga == guest_of.end() || gb == guest_of.end()) continue;
      const NcclPairPath* now =
          view.paths.find(view.node_of.at(ga->second), view.node_of.at(gb->second));
      if (now == nullptr || now->type == p.type) continue;
      out.changed.push_back({view.tree.nodes[now->a].busid, view.tree.nodes[now->b].busid,
                             file.nodes[p.b].kind, p.type, now->type});
    }
  }
  return out;
}

}  // namespace vmxkit::guest
