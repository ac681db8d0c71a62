// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/model/host.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/devices/role.h"

namespace vmxkit::pci {
namespace {

constexpr unsigned kMaxDepth = 64;

}  // namespace

std::string RootBus::to_string() const { return fmt::format("{:04x}:{:02x}", domain, bus); }

std::string HostWarning::to_string() const {
  if (where.path.empty()) return message;
  if (where.line == 0) return where.path + ": " + message;
  return where.to_string() + ": " + message;
}

const VgpuOffer* HostVgpuTypes::find(std::string_view profile) const {
  for (const VgpuOffer& o : offered) {
    if (o.profile == profile) return &o;
  }
  return nullptr;
}

std::vector<std::string> HostVgpuTypes::names() const {
  std::vector<std::string> out;
  out.reserve(offered.size());
  for (const VgpuOffer& o : offered) out.push_back(o.profile);
  return out;
}

Host::Host(Catalog catalog) : catalog_(std::make_shared<const Catalog>(std::move(catalog))) {}

std::size_t Host::upsert(const Bdf& bdf) {
  const auto [it, inserted] = index_.try_emplace(bdf, devices_.size());
  if (inserted) {
    devices_.emplace_back();
    devices_.back().bdf = bdf;
  }
  return it->second;
}

void Host::add_root(std::uint16_t domain, std::uint8_t bus) {
  given_roots_.emplace_back(domain, bus);
}

void Host::warn(Origin where, std::string message) {
  warnings_.push_back(HostWarning{std::move(where), std::move(message)});
}

std::optional<std::size_t> Host::index_of(const Bdf& bdf) const {
  const auto it = index_.find(bdf);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

const Device* Host::find(const Bdf& bdf) const {
  const auto i = index_of(bdf);
  return i ? &devices_[*i] : nullptr;
}

std::string Host::describe(std::size_t index) const {
  const Device& d = devices_[index];
  if (d.model != nullptr) return fmt::format("{} ({})", d.bdf.to_string(), d.model->model);
  if (!d.name.empty()) return fmt::format("{} ({})", d.bdf.to_string(), d.name);
  return d.bdf.to_string();
}

void Host::finalize() {
  if (finalized_) return;
  finalized_ = true;
  // PCI address order, so indices follow lspci's listing.
  std::vector<Device> sorted = std::move(devices_);
  std::sort(sorted.begin(), sorted.end(),
            [](const Device& a, const Device& b) { return a.bdf < b.bdf; });
  devices_ = std::move(sorted);
  index_.clear();
  for (std::size_t i = 0; i < devices_.size(); ++i) index_.emplace(devices_[i].bdf, i);

  match_catalog();
  build_tree();
  infer_port_types();
  link_vfs();
  assign_roles();
  infer_numa();
  match_smi_topo();
}

// GPU i of `nvidia-smi topo -m` is the i-th NVIDIA GPU in PCI address order: nvidia-smi lists
// GPUs by NVML index, which follows the PCI bus id (the order CUDA_DEVICE_ORDER=PCI_BUS_ID gives
// CUDA; docs/host-inputs.md). Matched only when the counts agree, as a GPU that nvidia-smi does
// not see (bound to vfio-pci, or given to a VM) shifts every later one.
void Host::match_smi_topo() {
  if (!smi_topo_) return;
  const SmiTopo& t = *smi_topo_;
  smi_devices_.assign(t.labels.size(), std::nullopt);
  std::vector<std::size_t> gpus;
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Device& d = devices_[i];
    if (d.role == Role::gpu && d.vendor_id == kNvidiaVendor) gpus.push_back(i);
  }
  const std::size_t smi_gpus = t.gpu_count();
  if (!gpus.empty() && gpus.size() != smi_gpus) {
    smi_mismatch_ = fmt::format(
        "{}: nvidia-smi topo -m shows {} GPU{} but the PCI inputs have {} NVIDIA GPU{}: its GPUs "
        "are not matched to PCI addresses, so its NVLinks and path classes are not applied",
        t.where.to_string(), smi_gpus, smi_gpus == 1 ? "" : "s", gpus.size(),
        gpus.size() == 1 ? "" : "s");
  }
  std::size_t g = 0;
  for (std::size_t i = 0; i < t.labels.size(); ++i) {
    if (t.is_gpu(i)) {
      if (smi_mismatch_.empty() && g < gpus.size()) smi_devices_[i] = gpus[g];
      ++g;
      continue;
    }
    const std::string name = t.nic_name(i);
    for (std::size_t j = 0; !name.empty() && j < devices_.size(); ++j) {
      if (devices_[j].rdma_name == name) smi_devices_[i] = j;
    }
  }
  for (std::size_t i = 0; i < smi_devices_.size(); ++i) {
    if (smi_devices_[i]) smi_label_of_.emplace(*smi_devices_[i], i);
  }
}

std::optional<std::size_t> Host::smi_label(std::size_t index) const {
  const auto it = smi_label_of_.find(index);
  if (it == smi_label_of_.end()) return std::nullopt;
  return it->second;
}

std::optional<unsigned> Host::nvlinks(std::size_t a, std::size_t b) const {
  const auto la = smi_label(a);
  const auto lb = smi_label(b);
  if (!la || !lb || *la >= smi_topo_->cells.size()) return std::nullopt;
  return nvlink_count(smi_topo_->cells[*la][*lb]);
}

void Host::match_catalog() {
  for (Device& d : devices_) {
    if (!d.vendor_id && !d.name.empty()) {
      // `lspci -tv` without ids: the catalogue's names, else the id lspci prints for a device
      // its pci.ids does not name ("NVIDIA Corporation Device 20b8").
      if (const CatalogEntry* e = catalog_->find_name(d.name)) {
        d.vendor_id = e->vendor_id;
        d.device_id = e->device_id;
      } else {
        for (const std::uint16_t vendor : {kNvidiaVendor, kMellanoxVendor}) {
          if (const auto id = id_in_unnamed(d.name, vendor)) {
            d.vendor_id = vendor;
            d.device_id = id;
          }
        }
      }
    }
    if (d.vendor_id && d.device_id) d.model = catalog_->find(*d.vendor_id, *d.device_id);
  }
}

// Bridges by the bus they lead to (their secondary bus). Warns when two claim one bus; the
// first, in PCI address order, keeps it.
std::map<Host::BusKey, std::size_t> Host::bridges_by_secondary_bus() {
  std::map<BusKey, std::size_t> by_secondary;
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Device& d = devices_[i];
    if (!d.secondary_bus || *d.secondary_bus == 0) continue;
    const BusKey key{d.bdf.domain, *d.secondary_bus};
    const auto [it, inserted] = by_secondary.try_emplace(key, i);
    if (!inserted) {
      warn(d.origins.empty() ? Origin{} : d.origins.front(),
           fmt::format("bridges {} and {} both claim secondary bus {:02x}",
                       devices_[it->second].bdf.to_string(), d.bdf.to_string(), key.second));
    }
  }
  return by_secondary;
}

// Decides which buses are root buses: given by a tree input, bus 0 of a domain (no bridge has
// secondary bus 0), buses holding a host bridge, a root port or a root-complex-integrated
// device, and (for inputs that list every device) buses no bridge leads to. A bus a bridge
// leads to is not one, whatever those heuristics say, unless a tree input gave it.
std::set<Host::BusKey> Host::find_root_buses(
    const std::map<BusKey, std::size_t>& by_secondary) const {
  std::set<BusKey> root_set(given_roots_.begin(), given_roots_.end());
  for (const Device& d : devices_) {
    if (d.bdf.bus == 0 || d.given_on_root_bus || (d.class_code && *d.class_code == 0x0600) ||
        d.port_type == PortType::root_port || d.port_type == PortType::rc_integrated_endpoint ||
        d.port_type == PortType::rc_event_collector) {
      root_set.insert({d.bdf.domain, d.bdf.bus});
    }
  }
  if (complete_) {
    for (const Device& d : devices_) {
      if (!by_secondary.count({d.bdf.domain, d.bdf.bus}))
        root_set.insert({d.bdf.domain, d.bdf.bus});
    }
  }
  const std::set<BusKey> given(given_roots_.begin(), given_roots_.end());
  for (auto it = root_set.begin(); it != root_set.end();) {
    if (!given.count(*it) && by_secondary.count(*it)) {
      it = root_set.erase(it);
    } else {
      ++it;
    }
  }
  return root_set;
}

// The bridge with the narrowest bus range holding device `i`'s bus (the first in PCI address
// order among equals; never `i` itself), for a device whose own bridge is missing from the
// input; nullopt when no range holds it. Devices come in PCI address order, so the table of the
// narrowest ranges is built once per domain, from that domain's bridges.
std::optional<std::size_t> Host::nearest_enclosing_bridge(std::size_t i,
                                                          EnclosingCache& cache) const {
  const Device& d = devices_[i];
  if (!cache.domain || *cache.domain != d.bdf.domain) {
    cache.domain = d.bdf.domain;
    cache.best.fill({kNone, kNone});
    const auto first =
        std::lower_bound(devices_.begin(), devices_.end(), Bdf{d.bdf.domain, 0, 0, 0},
                         [](const Device& x, const Bdf& b) { return x.bdf < b; });
    for (auto it = first; it != devices_.end() && it->bdf.domain == d.bdf.domain; ++it) {
      if (!it->secondary_bus || !it->subordinate_bus) continue;
      const auto j = static_cast<std::size_t>(it - devices_.begin());
      const unsigned width = *it->subordinate_bus - *it->secondary_bus;
      auto narrower = [&](std::size_t k) {
        return k == kNone || width < static_cast<unsigned>(*devices_[k].subordinate_bus -
                                                           *devices_[k].secondary_bus);
      };
      for (unsigned bus = *it->secondary_bus; bus <= *it->subordinate_bus; ++bus) {
        auto& [best, second] = cache.best[bus];
        if (narrower(best)) {
          second = best;
          best = j;
        } else if (narrower(second)) {
          second = j;
        }
      }
    }
  }
  const auto [best, second] = cache.best[d.bdf.bus];
  const std::size_t pick = best == i ? second : best;
  if (pick == kNone) return std::nullopt;
  return pick;
}

// Decides device `i`'s parent: the one a tree input gave, else the bridge whose secondary bus
// it is on, else none when it is on a root bus (returns true), else the nearest bridge whose
// range holds its bus (with a warning); a device none of these place is left unplaced.
bool Host::place_device(std::size_t i, const std::map<BusKey, std::size_t>& by_secondary,
                        const std::set<BusKey>& root_set, EnclosingCache& cache) {
  Device& d = devices_[i];
  const Origin where = d.origins.empty() ? Origin{} : d.origins.front();
  std::optional<std::size_t> by_range;
  if (const auto it = by_secondary.find({d.bdf.domain, d.bdf.bus}); it != by_secondary.end()) {
    by_range = it->second;
  }
  if (d.given_parent) {
    const auto p = index_of(*d.given_parent);
    if (p && *p != i) {
      d.parent = p;
      if (by_range && *by_range != *p) {
        warn(where,
             fmt::format("{}: the tree puts it below {} but bus ranges say {}", d.bdf.to_string(),
                         d.given_parent->to_string(), devices_[*by_range].bdf.to_string()));
      }
      return false;
    }
  }
  if (by_range && *by_range != i && !d.given_on_root_bus) {
    d.parent = by_range;
    return false;
  }
  if (root_set.count({d.bdf.domain, d.bdf.bus})) return true;
  if (const auto best = nearest_enclosing_bridge(i, cache)) {
    d.parent = best;
    warn(where, fmt::format("{} is behind bridge {} but the bridges between are not in the "
                            "input; its path class may be too close",
                            d.bdf.to_string(), devices_[*best].bdf.to_string()));
    return false;
  }
  warn(where, fmt::format("cannot place {}: no bridge in the input leads to bus {:02x} and it "
                          "is not a root bus (add `lspci -tv` or the full `lspci -vvv`)",
                          d.bdf.to_string(), d.bdf.bus));
  return false;
}

// Depth and root bus of every device, by walking up its parents; a cycle (corrupt input) stops
// at kMaxDepth, and the device is cut loose with a warning.
void Host::set_depths(const std::vector<bool>& on_root,
                      const std::map<BusKey, std::size_t>& root_index) {
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    std::size_t cur = i;
    unsigned depth = 0;
    while (devices_[cur].parent && depth < kMaxDepth) {
      cur = *devices_[cur].parent;
      ++depth;
    }
    if (depth >= kMaxDepth) {
      warn({}, fmt::format("{}: the bridges above it form a loop", devices_[i].bdf.to_string()));
      devices_[i].parent.reset();
      continue;
    }
    devices_[i].depth = depth;
    if (on_root[cur]) {
      devices_[i].root = root_index.at({devices_[cur].bdf.domain, devices_[cur].bdf.bus});
    }
  }
}

void Host::build_tree() {
  const std::map<BusKey, std::size_t> by_secondary = bridges_by_secondary_bus();
  const std::set<BusKey> root_set = find_root_buses(by_secondary);
  std::map<BusKey, std::size_t> root_index;
  for (const auto& [domain, bus] : root_set) {
    root_index.emplace(BusKey{domain, bus}, roots_.size());
    RootBus r;
    r.domain = domain;
    r.bus = bus;
    roots_.push_back(r);
  }
  std::vector<bool> on_root(devices_.size(), false);
  EnclosingCache cache;
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    on_root[i] = place_device(i, by_secondary, root_set, cache);
  }
  set_depths(on_root, root_index);
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].parent) {
      devices_[*devices_[i].parent].children.push_back(i);
    } else if (on_root[i]) {
      roots_[*devices_[i].root].children.push_back(i);
    }
  }
}

void Host::infer_port_types() {
  // Parents come before children in a walk by depth.
  std::vector<std::size_t> order(devices_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return devices_[a].depth < devices_[b].depth;
  });
  for (const std::size_t i : order) {
    Device& d = devices_[i];
    if (!d.is_bridge() || d.port_type != PortType::unknown) continue;
    d.port_type_inferred = true;
    if (!d.parent) {
      if (d.root) d.port_type = PortType::root_port;
      continue;
    }
    const PortType up = devices_[*d.parent].port_type;
    if (up == PortType::root_port || up == PortType::downstream_port) {
      d.port_type = PortType::upstream_port;
    } else if (up == PortType::upstream_port) {
      d.port_type = PortType::downstream_port;
    }
  }
}

void Host::link_vfs() {
  // VF routing id = PF routing id + offset + n * stride (SR-IOV spec); bus/devfn as one number.
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Device& pf = devices_[i];
    if (!pf.sriov || !pf.sriov->vf_offset || !pf.sriov->num_vfs || *pf.sriov->num_vfs == 0)
      continue;
    const unsigned stride = pf.sriov->vf_stride.value_or(1);
    const unsigned rid = static_cast<unsigned>(pf.bdf.bus) << 8 |
                         static_cast<unsigned>(pf.bdf.device) << 3 | pf.bdf.function;
    for (unsigned n = 0; n < *pf.sriov->num_vfs && n < 4096; ++n) {
      const unsigned vf = rid + *pf.sriov->vf_offset + n * stride;
      if (vf > 0xffff) break;
      const Bdf bdf{pf.bdf.domain, static_cast<std::uint8_t>(vf >> 8),
                    static_cast<std::uint8_t>((vf >> 3) & 31), static_cast<std::uint8_t>(vf & 7)};
      if (const auto j = index_of(bdf)) devices_[*j].physfn = i;
    }
  }
}

void Host::assign_roles() {
  std::set<std::pair<std::uint16_t, std::uint16_t>> vf_ids;
  for (const Device& d : devices_) {
    if (d.vendor_id && d.sriov && d.sriov->vf_device_id)
      vf_ids.insert({*d.vendor_id, *d.sriov->vf_device_id});
  }
  for (Device& d : devices_) {
    const Role role =
        role_of({d.vendor_id, d.device_id, d.class_code, d.bdf.function,
                 d.vendor_id ? std::string_view() : std::string_view(d.name), d.model});
    if (d.is_bridge()) {
      d.role = Role::bridge;
    } else if (d.physfn ||
               (d.vendor_id && d.device_id && vf_ids.count({*d.vendor_id, *d.device_id}))) {
      // A VF: of an RDMA NIC when its PF (or its own vendor) is Mellanox's.
      const bool rdma = devices_[d.physfn.value_or(0)].vendor_id == kMellanoxVendor ||
                        d.vendor_id == kMellanoxVendor ||
                        (d.model && d.model->role == Role::nic_vf);
      d.role = rdma ? Role::nic_vf : (role == Role::nic ? Role::nic : Role::other);
    } else {
      d.role = role;
    }
  }
}

std::vector<std::size_t> nvswitches(const Host& host) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < host.devices().size(); ++i) {
    if (host.at(i).is_nvswitch()) out.push_back(i);
  }
  return out;
}

CpuVendor cpu_vendor(const Host& host) {
  for (const Device& d : host.devices()) {
    if (d.parent || !d.root) continue;  // devices on a root bus: host bridges, root ports
    if (d.vendor_id == 0x8086 || d.name.rfind("Intel Corporation", 0) == 0) return CpuVendor::intel;
    if (d.vendor_id == 0x1022 || d.name.rfind("Advanced Micro Devices", 0) == 0) {
      return CpuVendor::amd;
    }
  }
  return CpuVendor::unknown;
}

void Host::infer_numa() {
  // Functions of one device share its NUMA node.
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].numa_node) continue;
    for (std::size_t j = i; j-- > 0 && devices_[j].bdf.same_device(devices_[i].bdf);) {
      if (devices_[j].numa_node && !devices_[j].numa_inferred) {
        devices_[i].numa_node = devices_[j].numa_node;
        devices_[i].numa_inferred = true;
        break;
      }
    }
    for (std::size_t j = i + 1; !devices_[i].numa_node && j < devices_.size() &&
                                devices_[j].bdf.same_device(devices_[i].bdf);
         ++j) {
      if (devices_[j].numa_node && !devices_[j].numa_inferred) {
        devices_[i].numa_node = devices_[j].numa_node;
        devices_[i].numa_inferred = true;
      }
    }
  }
  // Devices under one host bridge share its NUMA node, when those that say agree.
  std::vector<std::set<int>> seen(roots_.size());
  for (const Device& d : devices_) {
    if (d.root && d.numa_node) seen[*d.root].insert(*d.numa_node);
  }
  for (std::size_t r = 0; r < roots_.size(); ++r) {
    if (seen[r].size() == 1) roots_[r].numa_node = *seen[r].begin();
  }
  // One NUMA node on the whole host: every device is on it. An lspci -vvv without NUMA lines
  // says so when no input gives any node (nvidia-smi then prints NODE across host bridges).
  const bool no_node_known =
      std::none_of(devices_.begin(), devices_.end(), [](const Device& d) { return d.numa_node; });
  numa_.single_node_inferred =
      !numa_.node_count && !numa_.no_numa_lines_in.empty() && no_node_known;
  const bool single = (numa_.node_count && *numa_.node_count == 1) || numa_.single_node_inferred;
  for (Device& d : devices_) {
    if (d.numa_node) continue;
    if (d.root && roots_[*d.root].numa_node) {
      d.numa_node = roots_[*d.root].numa_node;
      d.numa_inferred = true;
    } else if (single) {
      d.numa_node = numa_.cpus.empty() ? 0 : numa_.cpus.begin()->first;
      d.numa_inferred = true;
    }
  }
  if (single) {
    for (RootBus& r : roots_) {
      if (!r.numa_node) r.numa_node = numa_.cpus.empty() ? 0 : numa_.cpus.begin()->first;
    }
  }
}

}  // namespace vmxkit::pci
