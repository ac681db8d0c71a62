// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/path_detail.h"

#include <fmt/format.h>

namespace vmxkit::checks {

std::string path_detail(const pci::Host& host, const pci::Path& path) {
  auto bdf = [&](std::size_t device) { return host.at(device).bdf.to_string(); };
  auto root = [&](std::size_t i) { return host.roots()[path.roots[i]].to_string(); };
  switch (path.kind) {
    case pci::PathKind::self:
      return {};
    case pci::PathKind::one_device:
      return "functions of one device";
    case pci::PathKind::below_bridge:
      return path.switches <= 1 ? fmt::format("through one switch below {}", bdf(*path.common))
                                : fmt::format("through {} switch levels, meeting at {}",
                                              path.switches, bdf(*path.common));
    case pci::PathKind::unplaced:
      return fmt::format("{} is not placed in the tree", bdf(*path.device));
    case pci::PathKind::host_bridge:
      return fmt::format("through host bridge {}", root(0));
    case pci::PathKind::host_bridges:
      break;
  }
  const auto& [na, nb] = path.numa;
  if (!na || !nb) {
    return fmt::format("host bridges {} and {}; NODE or SYS: no NUMA node known for {}", root(0),
                       root(1), bdf(*path.device));
  }
  if (*na == *nb) {
    return fmt::format("host bridges {} and {}, both on NUMA node {}", root(0), root(1), *na);
  }
  return fmt::format("host bridges {} (NUMA node {}) and {} (NUMA node {})", root(0), *na, root(1),
                     *nb);
}

}  // namespace vmxkit::checks
