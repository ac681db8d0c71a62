// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m`: the one reader, for a HOST input and for a guest capture.
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/model/smi_topo.h"

namespace vmxkit::pci {

/// A line with its ANSI escape sequences removed (nvidia-smi underlines the header on a
/// terminal: `ESC[4mGPU0 ...ESC[0m`, which a copied capture keeps).
std::string strip_ansi(std::string_view line);

/// Whether a (trimmed) line is the header of `nvidia-smi topo -m`: `GPU0` then another label
/// or the affinity columns.
bool is_smi_topo_header(std::string_view line);

/// Reads `nvidia-smi topo -m` output. Throws vmxkit::Error (file:line:col) where it is not.
SmiTopo parse_nvidia_smi_topo(std::string_view text, const std::string& path);

}  // namespace vmxkit::pci
