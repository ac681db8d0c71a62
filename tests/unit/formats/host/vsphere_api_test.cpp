// SPDX-License-Identifier: Apache-2.0
// A host from the vSphere API's HostSystem properties (pci::load_vsphere_api): the tree from
// parentBridge, passthrough and SR-IOV state, NUMA nodes.
#include "vmxkit/formats/host/vsphere_api.h"

#include <catch2/catch.hpp>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/checks/host_context.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"

using vmxkit::pci::ApiHost;
using vmxkit::pci::ApiPassthru;
using vmxkit::pci::ApiPciDevice;

namespace {

ApiPciDevice device(std::string id, std::uint16_t cls, std::uint16_t vendor, std::uint16_t dev,
                    std::string parent) {
  ApiPciDevice d;
  d.id = std::move(id);
  d.class_id = cls;
  d.vendor_id = vendor;
  d.device_id = dev;
  d.parent_bridge = std::move(parent);
  return d;
}

// Two sockets, each a root port, a PEX890xx switch with two downstream ports, an H100 and a
// ConnectX-7.
ApiHost gpu_host() {
  ApiHost h;
  h.name = "esx01";
  h.has_pci_devices = true;
  h.system_uuid = "4c4c4544-0048-3510-8052-b4c04f4e3332";
  for (const char* root : {"15", "97"}) {
    const int bus = std::stoi(root, nullptr, 16);
    auto id = [&](int offset, int slot) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0000:%02x:%02x.0", bus + offset, slot);
      return std::string(buf);
    };
    h.devices.push_back(device(id(0, 1), 0x0604, 0x8086, 0x347a, ""));
    h.devices.push_back(device(id(1, 0), 0x0604, 0x1000, 0xc030, id(0, 1)));
    h.devices.push_back(device(id(2, 0), 0x0604, 0x1000, 0xc030, id(1, 0)));
    h.devices.push_back(device(id(2, 1), 0x0604, 0x1000, 0xc030, id(1, 0)));
    h.devices.push_back(device(id(3, 0), 0x0302, 0x10de, 0x2330, id(2, 0)));
    h.devices.push_back(device(id(4, 0), 0x0207, 0x15b3, 0x1021, id(2, 1)));
  }
  h.numa_node_count = 2;
  h.numa_nodes.push_back({0, {0, 1, 2, 3}, {"0000:18:00.0", "0000:19:00.0"}});
  h.numa_nodes.push_back({1, {4, 5, 6, 7}, {"0000:9a:00.0", "0000:9b:00.0"}});
  ApiPassthru gpu;
  gpu.id = "0000:18:00.0";
  gpu.enabled = true;
  gpu.capable = true;
  gpu.active = false;
  h.passthru.push_back(gpu);
  ApiPassthru nic;
  nic.id = "0000:19:00.0";
  nic.enabled = false;
  nic.capable = true;
  nic.sriov = true;
  nic.sriov_capable = true;
  nic.sriov_enabled = true;
  nic.num_vfs = 4;
  nic.max_vfs = 16;
  h.passthru.push_back(nic);
  return h;
}

vmxkit::pci::Host load(const ApiHost& api) {
  vmxkit::pci::Host host;
  vmxkit::pci::load_vsphere_api(host, api, "vc: esx01");
  host.finalize();
  return host;
}

}  // namespace

TEST_CASE("The API's parentBridge builds the tree: a GPU and NIC under one switch are PIX",
          "[pci][vsphere-api]") {
  const vmxkit::pci::Host host = load(gpu_host());
  const auto gpu = *host.index_of(*vmxkit::parse_bdf("0000:18:00.0"));
  const auto nic = *host.index_of(*vmxkit::parse_bdf("0000:19:00.0"));
  const auto far_nic = *host.index_of(*vmxkit::parse_bdf("0000:9b:00.0"));
  CHECK(host.at(gpu).role == vmxkit::pci::Role::gpu);
  CHECK(host.at(nic).role == vmxkit::pci::Role::rdma_nic);
  CHECK(vmxkit::pci::classify(host, gpu, nic).cls == vmxkit::pci::PathClass::pix);
  CHECK(vmxkit::pci::classify(host, gpu, far_nic).cls == vmxkit::pci::PathClass::sys);
  // Bus ranges come from the tree: the switch's upstream port leads to bus 17, holds 17..19.
  const vmxkit::pci::Device& up = *host.find(*vmxkit::parse_bdf("0000:16:00.0"));
  CHECK(up.secondary_bus == 0x17);
  CHECK(up.subordinate_bus == 0x19);
  CHECK(up.port_type == vmxkit::pci::PortType::upstream_port);
  CHECK(host.roots().size() == 2);
  CHECK(host.warnings().empty());
}

TEST_CASE("The API's passthrough, SR-IOV and NUMA state reach the host model",
          "[pci][vsphere-api]") {
  const vmxkit::pci::Host host = load(gpu_host());
  const vmxkit::pci::Device& gpu = *host.find(*vmxkit::parse_bdf("0000:18:00.0"));
  CHECK(gpu.passthru_enabled == true);
  CHECK(gpu.passthru_capable == true);
  CHECK(gpu.current_owner == "VMkernel");  // enabled, not active: after the next reboot
  CHECK(gpu.numa_node == 0);
  const vmxkit::pci::Device& nic = *host.find(*vmxkit::parse_bdf("0000:19:00.0"));
  REQUIRE(nic.sriov);
  CHECK(nic.sriov->num_vfs == 4u);
  CHECK(nic.sriov->total_vfs == 16u);
  CHECK(host.find(*vmxkit::parse_bdf("0000:9b:00.0"))->numa_node == 1);
  CHECK(host.numa().node_count == 2u);
  CHECK(host.numa().cpus.at(1) == std::vector<int>{4, 5, 6, 7});
  // host-check sees an ESXi host, and the pending passthrough of the GPU.
  const auto findings = vmxkit::checks::check_host(host, std::nullopt, vmxkit::pci::HostKind::esxi);
  bool pending = false;
  for (const auto& f : findings) pending = pending || f.check->name == "passthru-pending";
  CHECK(pending);
}

TEST_CASE("A host without hardware.pciDevice or with a bad device id is an error",
          "[pci][vsphere-api]") {
  ApiHost none;
  vmxkit::pci::Host host;
  CHECK_THROWS_WITH(vmxkit::pci::load_vsphere_api(host, none, "vc: esx01"),
                    Catch::Contains("no hardware.pciDevice property"));
  ApiHost bad = gpu_host();
  bad.devices[0].id = "PCI 0:21:1:0";
  vmxkit::pci::Host host2;
  CHECK_THROWS_WITH(vmxkit::pci::load_vsphere_api(host2, bad, "vc: esx01"),
                    Catch::Contains("'PCI 0:21:1:0' is not a PCI address"));
  ApiHost twice = gpu_host();
  twice.devices.push_back(twice.devices.front());
  vmxkit::pci::Host host3;
  CHECK_THROWS_WITH(vmxkit::pci::load_vsphere_api(host3, twice, "vc: esx01"),
                    Catch::Contains("lists 0000:15:01.0 twice"));
}
