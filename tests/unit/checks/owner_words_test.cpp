// SPDX-License-Identifier: Apache-2.0
// The words of an ESXi ownership finding (checks::owner_message, checks::owner_fix), each problem
// exactly as TOPO009, the host checks and generate's comment block print it.
#include "vmxkit/checks/owner_words.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

using vmxkit::checks::owner_fix;
using vmxkit::checks::owner_message;
using vmxkit::pci::OwnerFinding;
using vmxkit::pci::OwnerProblem;
using vmxkit::pci::PassthroughUse;

namespace {

OwnerFinding finding(OwnerProblem problem, PassthroughUse use, std::string model) {
  OwnerFinding f;
  f.problem = problem;
  f.use = use;
  f.bdf = *vmxkit::parse_bdf("0000:3b:00.0");
  f.model = std::move(model);
  return f;
}

}  // namespace

TEST_CASE("an ESXi ownership finding is worded from its facts", "[checks][esxcli]") {
  OwnerFinding f = finding(OwnerProblem::incapable, PassthroughUse::full, "H100 PCIe");
  CHECK(owner_message(f) ==
        "0000:3b:00.0 (H100 PCIe) cannot be passed through on this host (Passthru Capable: false)");
  CHECK(owner_fix(f) ==
        "check the device's firmware and the host's BIOS (VT-d/AMD-Vi, SR-IOV) settings, or use "
        "another device");

  f = finding(OwnerProblem::not_enabled, PassthroughUse::full, "");
  f.said = "Configured Owner: VMkernel";
  CHECK(owner_message(f) ==
        "0000:3b:00.0 is not enabled for passthrough (Configured Owner: VMkernel): the VM will "
        "not power on with it");
  CHECK(owner_fix(f) ==
        "esxcli hardware pci pcipassthru set -d 0000:3b:00.0 -e true -a (ESXi 7.0+; earlier: "
        "enable it under Configure > PCI Devices and reboot)");

  f = finding(OwnerProblem::pending, PassthroughUse::full, "ConnectX-7");
  f.current_owner = "VMkernel";
  CHECK(owner_message(f) ==
        "0000:3b:00.0 (ConnectX-7) is enabled for passthrough but still owned by the VMkernel "
        "until the change is applied");
  CHECK(owner_fix(f) ==
        "reboot the host, or esxcli hardware pci pcipassthru set -d 0000:3b:00.0 -e true -a "
        "(ESXi 7.0+)");

  f = finding(OwnerProblem::not_vmkernel, PassthroughUse::vgpu, "L40S");
  CHECK(owner_message(f) ==
        "0000:3b:00.0 (L40S) is enabled for passthrough, but vGPU (the NVIDIA vGPU manager) needs "
        "it owned by the VMkernel");
  f.use = PassthroughUse::sriov_pf;
  CHECK(owner_message(f) ==
        "0000:3b:00.0 (L40S) is enabled for passthrough, but SR-IOV (the driver that creates the "
        "VFs) needs it owned by the VMkernel");
  CHECK(owner_fix(f) ==
        "esxcli hardware pci pcipassthru set -d 0000:3b:00.0 -e false -a (ESXi 7.0+; earlier: "
        "Configure > PCI Devices and reboot)");
}
