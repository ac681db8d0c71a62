// SPDX-License-Identifier: Apache-2.0
// Reads a VM configuration in any format vmxkit knows (.vmx, ConfigSpec XML or SOAP, VI/JSON,
// OVF), lists its passthrough devices and prints the vSphere ConfigSpec for it.
//
//     vmxkit_consumer gpu-vm.vmx
#include <iostream>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/vsphere/load.h"
#include "vmxkit/vsphere/render.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vmxkit_consumer FILE\n";
    return 2;
  }
  try {
    const vmxkit::vsphere::Loaded loaded = vmxkit::vsphere::load(argv[1], vmxkit::read_file(argv[1]));
    for (const vmxkit::vsphere::LoadedVm& vm : loaded.vms) {
      for (const vmxkit::PassthroughDevice& d : vm.config.passthrough_devices()) {
        std::cout << "# pciPassthru" << d.index << ": " << vmxkit::to_string(d.kind()) << ' '
                  << d.id.value_or(d.vgpu.value_or("-")) << '\n';
      }
      std::cout << vmxkit::vsphere::render(vm.config, vmxkit::vsphere::OutputFormat::configspec_xml);
    }
  } catch (const vmxkit::Error& e) {
    std::cerr << "vmxkit_consumer: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
