// SPDX-License-Identifier: Apache-2.0
// The kernel command line, from `/proc/cmdline` or `/etc/default/grub`.
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/model/cmdline.h"

namespace vmxkit::pci {

/// Parses either form; throws vmxkit::Error when the text holds no command line.
KernelCmdline parse_kernel_cmdline(std::string_view text, const std::string& path);

}  // namespace vmxkit::pci
