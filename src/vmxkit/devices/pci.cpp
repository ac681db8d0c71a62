// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/pci.h"

namespace vmxkit::pci {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::other:
      return "other";
    case Role::bridge:
      return "bridge";
    case Role::gpu:
      return "gpu";
    case Role::rdma_nic:
      return "rdma-nic";
    case Role::nic_vf:
      return "nic-vf";
    case Role::nic:
      return "nic";
  }
  return "other";
}

}  // namespace vmxkit::pci
