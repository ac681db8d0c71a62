// SPDX-License-Identifier: Apache-2.0
// Plans made by the generator over the example host, as the Terraform and VM class writers get
// them (the plan's VmConfig and its explanation), and the goldens of what they write.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::test {

struct DeclaredPlan {
  VmConfig config;
  std::vector<std::string> comments;
};

/// `vmxkit generate --host examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt` with
/// `request`, as a VmConfig (the `.vmx` the plan renders, read back) and its comment block.
inline DeclaredPlan declared_plan(PlanRequest request, bool with_host = true) {
  constexpr const char* kHost = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";
  const Host host = load_host({HostSource::from_text(kHost, read_bytes(source_path(kHost)))});
  request.host_label = "synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";
  const Plan p = plan(with_host ? &host : nullptr, request);
  const std::string vmx = render(p, "vmx");
  return {vmx::to_vm_config(vmx::Document::parse(vmx, "plan.vmx")), p.explanation()};
}

/// GPU 0000:3a:00.0 (H100) and NIC 0000:3b:00.0 (ConnectX-7) under one switch, 256 GB of
/// memory; with `sriov`, the NIC as an SR-IOV VF.
inline DeclaredPlan rdma_plan(bool sriov = false) {
  PlanRequest r;
  r.gpus = {"0000:3a:00.0"};
  r.nics = {"0000:3b:00.0"};
  r.sriov = sriov;
  r.memory_mb = 262144;
  return declared_plan(r);
}

/// Every GPU of the host (eight H100) with the closest NIC of each (eight ConnectX-7).
inline DeclaredPlan eight_gpu_plan() {
  PlanRequest r;
  r.gpus = {"auto"};
  r.nics = {"auto"};
  r.memory_mb = 1048576;
  return declared_plan(r);
}

/// One H100 as vGPU grid_h100-80c, 128 GB of memory.
inline DeclaredPlan vgpu_plan() {
  PlanRequest r;
  r.gpus = {"0000:3a:00.0"};
  r.vgpu = "grid_h100-80c";
  r.memory_mb = 131072;
  return declared_plan(r);
}

/// What a ConfigSpec of `config` says, in words that compare across forms: CPUs, memory, the
/// reservation and its lock, firmware, each device (its kind and host address, profile or
/// vendor:device, an SR-IOV adapter's PF) and the extraConfig keys in order.
inline std::vector<std::string> carried(const VmConfig& config) {
  const vsphere::ConfigSpec s = vsphere::from_vm_config(config);
  std::vector<std::string> out;
  const auto opt = [&](const char* name, const auto& v) {
    if (v) out.push_back(std::string(name) + "=" + std::to_string(*v));
  };
  opt("numCPUs", s.num_cpus);
  opt("memoryMB", s.memory_mb);
  opt("reservation", s.memory_reservation_mb);
  opt("lockedToMax", s.memory_reservation_locked_to_max);
  if (s.firmware) out.push_back("firmware=" + *s.firmware);
  for (const vsphere::DeviceChange& dc : s.device_change) {
    if (dc.physical_function) {
      out.push_back("sriov pf=" + dc.physical_function->id);
    } else if (dc.backing_type == vsphere::BackingType::device) {
      out.push_back("directpath id=" + dc.device.id);
    } else if (dc.backing_type == vsphere::BackingType::vmiop) {
      out.push_back("vgpu " + dc.vgpu);
    } else if (dc.backing_type == vsphere::BackingType::dynamic) {
      for (const vsphere::AllowedDevice& a : dc.allowed_devices) {
        out.push_back("dynamic " + std::to_string(a.vendor_id) + ":" + std::to_string(a.device_id));
      }
    }
  }
  for (const vsphere::OptionValue& o : s.extra_config) out.push_back(o.key + "=" + o.value);
  return out;
}

/// Compares `actual` with the golden file `relative` (under the repository);
/// VMXKIT_UPDATE_GOLDEN=1 rewrites the golden from it.
inline void check_declared_golden(const std::string& relative, const std::string& actual) {
  const auto path = source_path(relative);
  if (std::getenv("VMXKIT_UPDATE_GOLDEN") != nullptr) write_bytes(path, actual);
  CHECK(actual == read_bytes(path));
}

}  // namespace vmxkit::test
