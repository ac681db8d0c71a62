// SPDX-License-Identifier: Apache-2.0
// Reading guest captures into a guest::Guest: one text may hold several commands' outputs
// behind shell prompt lines; each part's kind is detected by its content and read by its
// loader (loaders.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/model/guest.h"

namespace vmxkit::guest {

/// Reads one input text into `g`: a capture of one command, or of several separated by shell
/// prompt lines (`$ lsmod`, `[root@vm ~]# nvidia-smi`); each part is detected by its content.
/// Throws vmxkit::Error (file:line:col) for a part that is none of the known kinds or cannot be
/// read, and when `g` is already finalized.
void load_text(Guest& g, std::string_view text, const std::string& path);

/// Detects the kind of one input (one command's output) from its content. Throws vmxkit::Error
/// naming path:line:col when it is none of the known kinds.
InputKind detect_kind(std::string_view text, const std::string& path);

/// Reads GUEST arguments (files, `-` is not handled here) into a finalized Guest.
Guest load_guest(const std::vector<std::string>& paths);

}  // namespace vmxkit::guest
