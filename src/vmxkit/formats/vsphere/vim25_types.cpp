// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/vim25_types.h"

#include <algorithm>
#include <map>

#include "vmxkit/core/embedded.h"
#include "vmxkit/core/text.h"

namespace vmxkit {
extern const EmbeddedFile kVim25Members[];
}  // namespace vmxkit

namespace vmxkit::vsphere {
namespace {

// The members of each data object, read once from vim25_members.txt (embedded).
const std::map<std::string_view, std::vector<std::string_view>>& members() {
  static const auto kMembers = [] {
    std::map<std::string_view, std::vector<std::string_view>> table;
    const std::string_view text = kVim25Members[0].data;
    for (const std::string_view line : LineRange(text)) {
      if (line.empty() || line.front() == '#') continue;
      std::vector<std::string_view> words = split_any(line, " ");
      const std::string_view type = words.front();
      words.erase(words.begin());
      table.emplace(type, std::move(words));
    }
    return table;
  }();
  return kMembers;
}

constexpr std::string_view kDeviceTypes[] = {
    "ParaVirtualSCSIController",
    "VirtualAHCIController",
    "VirtualBusLogicController",
    "VirtualCdrom",
    "VirtualController",
    "VirtualDevice",
    "VirtualDisk",
    "VirtualE1000",
    "VirtualE1000e",
    "VirtualEnsoniq1371",
    "VirtualEthernetCard",
    "VirtualFloppy",
    "VirtualHdAudioCard",
    "VirtualIDEController",
    "VirtualKeyboard",
    "VirtualLsiLogicController",
    "VirtualLsiLogicSASController",
    "VirtualMachineVMCIDevice",
    "VirtualMachineVMIROM",
    "VirtualMachineVideoCard",
    "VirtualNVDIMM",
    "VirtualNVDIMMController",
    "VirtualNVMEController",
    "VirtualPCIController",
    "VirtualPCIPassthrough",
    "VirtualPCNet32",
    "VirtualPS2Controller",
    "VirtualParallelPort",
    "VirtualPointingDevice",
    "VirtualPrecisionClock",
    "VirtualSATAController",
    "VirtualSCSIController",
    "VirtualSCSIPassthrough",
    "VirtualSIOController",
    "VirtualSerialPort",
    "VirtualSoundBlaster16",
    "VirtualSoundCard",
    "VirtualSriovEthernetCard",
    "VirtualTPM",
    "VirtualUSB",
    "VirtualUSBController",
    "VirtualUSBXHCIController",
    "VirtualVmxnet",
    "VirtualVmxnet2",
    "VirtualVmxnet3",
    "VirtualVmxnet3Vrdma",
    "VirtualWDT",
};

}  // namespace

const std::vector<std::string_view>* vim25_members(std::string_view type) {
  const auto it = members().find(type);
  return it == members().end() ? nullptr : &it->second;
}

bool is_virtual_device_type(std::string_view type) {
  return std::binary_search(std::begin(kDeviceTypes), std::end(kDeviceTypes), type);
}

}  // namespace vmxkit::vsphere
