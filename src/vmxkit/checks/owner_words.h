// SPDX-License-Identifier: Apache-2.0
// The words of an ESXi ownership finding (pci::OwnerFinding): what the host's esxcli capture says
// of a device for the use asked, and the command that readies it. analysis/ gives the facts;
// TOPO009, the host checks and report/ (generate's comment block and its refusal when `auto`
// finds no device ready) say them in these words. In checks/ for the reason path_detail.h is.
#pragma once

#include <string>

#include "vmxkit/analysis/readiness.h"

namespace vmxkit::checks {

/// What the capture says, naming the device: "0000:3b:00.0 (H100 PCIe) is not enabled for
/// passthrough (Configured Owner: VMkernel): the VM will not power on with it".
std::string owner_message(const pci::OwnerFinding& finding);

/// The esxcli command (or the host's settings to look at) that fixes it.
std::string owner_fix(const pci::OwnerFinding& finding);

}  // namespace vmxkit::checks
