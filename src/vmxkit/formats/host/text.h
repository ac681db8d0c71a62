// SPDX-License-Identifier: Apache-2.0
// What the host loaders share beyond core/text.h.
#pragma once

#include <cstddef>
#include <string_view>

#include "vmxkit/core/text.h"

namespace vmxkit::pci {

/// A message a tool wrote into a capture saved with `2>&1`, at the margin between device blocks:
/// `lspci: Unable to load libkmod resources: error -2`, `pcilib: sysfs_read_vpd: read failed`.
/// Its first word is a lowercase program name followed by `: `; no device line starts so.
inline bool is_tool_message(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() &&
         ((line[i] >= 'a' && line[i] <= 'z') ||
          (i > 0 && ((line[i] >= '0' && line[i] <= '9') || line[i] == '-' || line[i] == '_')))) {
    ++i;
  }
  return i > 0 && i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ';
}

}  // namespace vmxkit::pci
