// SPDX-License-Identifier: Apache-2.0
// A host from the vSphere API (HostSystem hardware.pciDevice, config.pciPassthruInfo,
// hardware.numaInfo): the devices, the tree from parentBridge, passthrough and SR-IOV state.
#include "vmxkit/formats/host/vsphere_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "vmxkit/core/error.h"

namespace vmxkit::pci {
namespace {

Bdf api_address(const std::string& id, const std::string& origin, std::string_view what) {
  const auto bdf = parse_bdf(id);
  if (!bdf) {
    throw Error(origin,
                fmt::format("{} '{}' is not a PCI address (expected DDDD:BB:DD.F)", what, id));
  }
  return *bdf;
}

// Bus ranges of the bridges, from the tree: walk each device up to its root. The API lists
// every function, bridges included, but not the bridges' bus numbers: each bridge's secondary
// bus is the bus of the devices below it, its subordinate bus the highest bus under it.
void set_bus_ranges(Host& host, const std::vector<Bdf>& addresses,
                    const std::vector<std::optional<Bdf>>& parents,
                    const std::map<Bdf, std::size_t>& index) {
  for (std::size_t n = 0; n < addresses.size(); ++n) {
    const std::uint8_t bus = addresses[n].bus;
    std::optional<Bdf> up = parents[n];
    bool direct = true;
    for (unsigned depth = 0; up && depth < 64; ++depth) {
      const auto it = index.find(*up);
      if (it == index.end()) break;
      Device& bridge = host.at(*host.index_of(*up));
      if (direct && (!bridge.secondary_bus || bus < *bridge.secondary_bus)) {
        bridge.secondary_bus = bus;
      }
      if (!bridge.subordinate_bus || bus > *bridge.subordinate_bus) bridge.subordinate_bus = bus;
      direct = false;
      up = parents[it->second];
    }
  }
}

// config.pciPassthruInfo: who owns each device, and its SR-IOV state.
void load_passthru(Host& host, const ApiHost& api, const std::string& origin) {
  for (const ApiPassthru& p : api.passthru) {
    const auto bdf = parse_bdf(p.id);
    if (!bdf || !host.index_of(*bdf)) {
      host.warn(Origin{origin, 0},
                fmt::format("config.pciPassthruInfo names {}, which hardware.pciDevice does not "
                            "list; skipped",
                            p.id));
      continue;
    }
    Device& d = host.at(*host.index_of(*bdf));
    d.passthru_capable = p.capable;
    d.passthru_enabled = p.enabled;
    if (p.enabled == true) {
      // Enabled but not active: ESXi applies the change at the next reboot.
      d.current_owner = p.active == true ? "VM Passthru" : "VMkernel";
    }
    if (p.sriov && (p.sriov_capable == true || p.max_vfs.value_or(0) > 0)) {
      Sriov s;
      s.total_vfs = p.max_vfs;
      s.num_vfs = p.sriov_enabled == false ? std::optional<unsigned>(0) : p.num_vfs;
      d.sriov = std::move(s);
    }
  }
}

void load_numa(Host& host, const ApiHost& api) {
  if (api.numa_node_count && *api.numa_node_count > 0) {
    host.numa().node_count = api.numa_node_count;
  }
  for (const ApiNumaNode& node : api.numa_nodes) {
    if (node.type_id < 0) continue;  // not a node number (typeId is 0 and up)
    if (!node.cpus.empty()) {
      std::vector<int> cpus = node.cpus;
      std::sort(cpus.begin(), cpus.end());
      cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
      host.numa().cpus[node.type_id] = std::move(cpus);
    }
    for (const std::string& id : node.pci_ids) {
      const auto bdf = parse_bdf(id);
      if (!bdf) continue;
      if (const auto i = host.index_of(*bdf)) host.at(*i).numa_node = node.type_id;
    }
  }
}

// config.sharedPassthruGpuTypes in its order, each with its config.sharedGpuCapabilities entry;
// a type only the capabilities name is offered too.
void load_vgpu_types(Host& host, const ApiHost& api) {
  if (!api.vgpu_types_read) return;
  HostVgpuTypes& types = host.vgpu_types();
  types.known = true;
  types.host_name = api.name;
  for (const std::string& name : api.shared_gpu_types) {
    if (!name.empty() && types.find(name) == nullptr)
      types.offered.push_back({name, {}, {}, {}, {}});
  }
  for (const ApiVgpuCapabilities& c : api.shared_gpu_capabilities) {
    if (c.vgpu.empty()) continue;
    if (types.find(c.vgpu) == nullptr) types.offered.push_back({c.vgpu, {}, {}, {}, {}});
    for (VgpuOffer& o : types.offered) {
      if (o.profile != c.vgpu) continue;
      o.disk_snapshot = c.disk_snapshot;
      o.memory_snapshot = c.memory_snapshot;
      o.suspend = c.suspend;
      o.migrate = c.migrate;
    }
  }
}

}  // namespace

void load_vsphere_api(Host& host, const ApiHost& api, const std::string& origin) {
  if (!api.has_pci_devices) {
    throw Error(origin,
                "the HostSystem has no hardware.pciDevice property (no permission to "
                "read it, or not an ESXi host)");
  }
  host.set_complete();
  host.reserve(api.devices.size());
  std::map<Bdf, std::size_t> index;
  std::vector<Bdf> addresses(api.devices.size());
  std::vector<std::optional<Bdf>> parents(api.devices.size());
  for (std::size_t n = 0; n < api.devices.size(); ++n) {
    const ApiPciDevice& a = api.devices[n];
    const Bdf bdf = api_address(a.id, origin, "hardware.pciDevice id");
    addresses[n] = bdf;
    if (!index.emplace(bdf, n).second) {
      throw Error(origin, fmt::format("hardware.pciDevice lists {} twice", bdf.to_string()));
    }
    Device& d = host.at(host.upsert(bdf));
    d.vendor_id = a.vendor_id;
    d.device_id = a.device_id;
    d.subsys_vendor_id = a.sub_vendor_id;
    d.subsys_device_id = a.sub_device_id;
    d.class_code = a.class_id;
    d.name = a.vendor_name;
    if (!a.device_name.empty()) d.name += (d.name.empty() ? "" : " ") + a.device_name;
    d.origins.push_back(Origin{origin + ": hardware.pciDevice[" + a.id + "]", 0});
    if (a.parent_bridge.empty()) {
      d.given_on_root_bus = true;
    } else {
      parents[n] = api_address(a.parent_bridge, origin, "parentBridge");
      d.given_parent = parents[n];
    }
  }
  set_bus_ranges(host, addresses, parents, index);
  load_passthru(host, api, origin);
  load_numa(host, api);
  if (!api.system_uuid.empty()) host.set_system_uuid(api.system_uuid);
  load_vgpu_types(host, api);
}

}  // namespace vmxkit::pci
