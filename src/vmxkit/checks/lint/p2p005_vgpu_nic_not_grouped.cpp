// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {
namespace p2p005 {

constexpr std::string_view kDoc = R"md(
## What it does
Notes each vGPU of a VM that also has a NIC (DirectPath, SR-IOV VF or DVX-backed SR-IOV adapter)
when the vGPU shares no vSphere device group with a NIC. vmxkit reads device groups from the
vSphere formats (ConfigSpec, ConfigInfo, VI/JSON, govc, OVF, and `lint --server`); it knows no
`.vmx` form of them, so in a `.vmx` it always notes, and says where to look instead.

## Why is this bad?
A vGPU names a profile, not a GPU: ESXi picks the physical GPU when the VM powers on, by the
host's vGPU placement policy. The GPU it picks may sit under another PCIe switch, or another
socket, than the NIC, and GPUDirect RDMA between them then crosses the CPU, or NCCL does not
use it. A vendor device group (vSphere 8.0 U1) is a set of devices the vendor found linked,
such as a GPU and the NIC under its PCIe switch, which vSphere gives the VM as one unit: NVIDIA
says device groups "guarantee correct placement across PCIe switches and interconnects".
Broadcom's design for GPUDirect RDMA with vGPU names NUMA affinity or device groups for it.

## Example
A ConfigSpec with `grid_h100-80c` and an SR-IOV network adapter, and no `deviceGroups`. Add
the pair as one vendor device group: choose the group in the vSphere Client (Add New Device,
PCI Device, the device group of the GPU and NIC), or send `deviceGroups` with a
`VirtualMachineVirtualDeviceGroupsVendorDeviceGroup` whose `deviceGroupName` is one of the
host's groups (`QueryConfigTarget().vendorDeviceGroupInfo`) and give both devices its
`deviceGroupInfo`. `vmxkit generate --config-target FILE --device-group NAME` (FILE from
`govc vm.target.info -host H -json`) writes such a ConfigSpec or PowerCLI script.

## Fix safety
No automatic fix: the group's name and its members' sequence come from the host.

## References
- NVIDIA AI Enterprise documentation, vGPU features: Device Groups
- Broadcom, VMware Cloud Foundation: private AI ready infrastructure, physical design
  ("GPUDirect RDMA on VMware vSphere": relax ACS and "configure NUMA affinity or device groups")
- VMware blog, "vSphere 8 Expands Machine Learning Support: Device Groups for NVIDIA GPUs and
  NICs" (August 2022)
- vSphere Web Services API: VirtualMachineVirtualDeviceGroups, VirtualDeviceDeviceGroupInfo,
  VirtualMachineVendorDeviceGroupInfo
)md";

bool grouped_with_nic(const Context& ctx, const VmDevice& vgpu) {
  const DeviceGroup* group = ctx.config().group_of(vgpu.entry->index);
  if (group == nullptr) return false;
  for (const VmDevice& v : ctx.devices()) {
    if (v.cls == DeviceClass::nic && ctx.config().group_of(v.entry->index) == group) return true;
  }
  return false;
}

void check(const Context& ctx, Sink& sink) {
  if (ctx.count(DeviceClass::nic) == 0) return;
  for (const VmDevice& v : ctx.devices()) {
    if (v.entry->kind() != PassthroughKind::vgpu || grouped_with_nic(ctx, v)) continue;
    const Setting* s = ctx.device_setting(*v.entry, "vgpu");
    const SourceSpan at = s != nullptr ? s->value_span : ctx.device_span(*v.entry);
    Diagnostic& d = sink.report(
        kP2P005, at,
        fmt::format("vGPU pciPassthru{}{} shares no device group with a NIC: ESXi picks its "
                    "physical GPU at power-on, which may sit under another PCIe switch or socket "
                    "than the NIC",
                    v.entry->index, v.entry->vgpu ? " (" + *v.entry->vgpu + ")" : std::string()));
    d.notes.push_back(
        {at.begin, at.end,
         ctx.document() != nullptr
             ? "vmxkit knows no .vmx form of device groups: `vmxkit lint --server URL --vm NAME` "
               "reads them from vCenter; else add the GPU and NIC to the VM as one vendor device "
               "group in vCenter (vSphere 8.0 U1 and later)"
             : "add the GPU and NIC as one vendor device group: deviceGroups, and each device's "
               "deviceGroupInfo"});
  }
}

}  // namespace p2p005

extern const Check kP2P005{
    .id = "P2P005",
    .name = "vgpu-nic-not-grouped",
    .severity = Severity::info,
    .summary = "vGPU and NIC in no common device group: placement at power-on is not fixed",
    .doc = p2p005::kDoc,
    .check = &p2p005::check,
};

}  // namespace vmxkit::checks
