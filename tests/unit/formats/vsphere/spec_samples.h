// SPDX-License-Identifier: Apache-2.0
// A plan with every kind of passthrough device vmxkit maps, as the .vmx would hold it.
#pragma once

#include <string>

#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/vm_config.h"

namespace vmxkit::test {

inline const std::string kPlanVmx =
    "memsize = \"65536\"\n"
    "pciPassthru0.present = \"TRUE\"\n"
    "pciPassthru0.id = \"00000:059:00.0\"\n"
    "pciPassthru0.deviceId = \"0x20b5\"\n"
    "pciPassthru0.vendorId = \"0x10de\"\n"
    "pciPassthru0.systemId = \"5fe9d4dc-68b1-4c3a-9d1e-0123456789ab\"\n"
    "pciPassthru1.present = \"TRUE\"\n"
    "pciPassthru1.id = \"00000:134:00.1\"\n"
    "pciPassthru1.deviceId = \"0x1572\"\n"
    "pciPassthru1.vendorId = \"0x8086\"\n"
    "pciPassthru1.systemId = \"5fe9d4dc-68b1-4c3a-9d1e-0123456789ab\"\n"
    "pciPassthru2.present = \"TRUE\"\n"
    "pciPassthru2.vgpu = \"grid_a100-40c\"\n"
    "pciPassthru3.present = \"TRUE\"\n"
    "pciPassthru3.allowedDevices = \"0x10de:0x20f1\"\n"
    "pciPassthru3.customLabel = \"Training\"\n"
    "pciPassthru4.present = \"TRUE\"\n"
    "pciPassthru4.pfId = \"00000:026:00.1\"\n"
    "pciPassthru4.id = \"00000:026:00.1\"\n"
    "pciPassthru4.deviceId = \"0\"\n"
    "pciPassthru4.vendorId = \"0\"\n"
    "pciPassthru4.systemId = \"BYPASS\"\n"
    "pciPassthru4.networkName = \"VM Network\"\n"
    "pciPassthru.allowP2P = \"TRUE\"\n"
    "pciPassthru.RelaxACSforP2P = \"TRUE\"\n"
    "pciPassthru.use64bitMMIO = \"TRUE\"\n"
    "pciPassthru.64bitMMIOSizeGB = \"256\"\n"
    "pciPassthru2.cfg.enable_uvm = \"1\"\n"
    "firmware = \"efi\"\n"
    "sched.mem.pin = \"TRUE\"\n";

inline VmConfig plan_config() {
  return vmx::to_vm_config(vmx::Document::parse(kPlanVmx, "plan.vmx"));
}

}  // namespace vmxkit::test
