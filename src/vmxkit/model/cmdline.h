// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmxkit::pci {

/// The kernel command line, from `/proc/cmdline` or `/etc/default/grub`
/// (GRUB_CMDLINE_LINUX_DEFAULT and GRUB_CMDLINE_LINUX); read by formats/host/cmdline.h.
struct KernelCmdline {
  std::vector<std::string> args;
  std::string path;
  std::uint32_t line = 0;  ///< line of the (first) command line in the file
  bool from_grub = false;

  /// The value of `key=value` (last one wins, as the kernel does), or nullopt.
  std::optional<std::string> value(std::string_view key) const {
    std::optional<std::string> v;
    for (const std::string& a : args) {
      if (a.size() > key.size() && a.compare(0, key.size(), key) == 0 && a[key.size()] == '=') {
        v = a.substr(key.size() + 1);
      }
    }
    return v;
  }
};

}  // namespace vmxkit::pci
