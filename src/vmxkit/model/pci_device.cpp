// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/model/pci_device.h"

#include <algorithm>

namespace vmxkit::pci {

std::string_view to_string(PortType type) {
  switch (type) {
    case PortType::unknown:
      return "unknown";
    case PortType::endpoint:
      return "Endpoint";
    case PortType::legacy_endpoint:
      return "Legacy Endpoint";
    case PortType::root_port:
      return "Root Port";
    case PortType::upstream_port:
      return "Upstream Port";
    case PortType::downstream_port:
      return "Downstream Port";
    case PortType::pcie_to_pci_bridge:
      return "PCI-Express to PCI/PCI-X Bridge";
    case PortType::pci_to_pcie_bridge:
      return "PCI/PCI-X to PCI-Express Bridge";
    case PortType::rc_integrated_endpoint:
      return "Root Complex Integrated Endpoint";
    case PortType::rc_event_collector:
      return "Root Complex Event Collector";
  }
  return "unknown";
}

std::string Acs::ctl_text() const {
  static constexpr std::pair<std::uint16_t, const char*> kNames[] = {
      {kSrcValid, "SrcValid"},      {kTransBlk, "TransBlk"},       {kReqRedir, "ReqRedir"},
      {kCmpltRedir, "CmpltRedir"},  {kUpstreamFwd, "UpstreamFwd"}, {kEgressCtrl, "EgressCtrl"},
      {kDirectTrans, "DirectTrans"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((ctl & bit) == 0) continue;
    if (!out.empty()) out += ' ';
    out += name;
    out += '+';
  }
  return out;
}

const Bar* Device::bar(int index) const {
  for (const Bar& b : bars) {
    if (b.index == index && !b.io) return &b;
  }
  return nullptr;
}

bool Device::is_nvswitch() const {
  constexpr std::uint16_t kNvidia = 0x10de;
  if (vendor_id && device_id) {
    return *vendor_id == kNvidia && (*device_id == 0x1af1 || *device_id == 0x22a3);
  }
  return name.find("NVSwitch") != std::string::npos;
}

const EmulatedDevice* find_emulated(const Device& device) {
  if (device.vendor_id && device.device_id) {
    return find_emulated(*device.vendor_id, *device.device_id);
  }
  return device.name.empty() ? nullptr : find_emulated_name(device.name);
}

bool is_emulated(const Device& device, const std::vector<Device>& all) {
  const EmulatedDevice* e = find_emulated(device);
  if (e == nullptr) return false;
  if (!e->shared_id) return true;
  return std::any_of(all.begin(), all.end(), [](const Device& d) {
    const EmulatedDevice* o = find_emulated(d);
    return o != nullptr && !o->shared_id;
  });
}

}  // namespace vmxkit::pci
