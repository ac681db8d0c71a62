// SPDX-License-Identifier: Apache-2.0
// The NCCL topology file's XML (NCCL_TOPO_FILE): written from nccl-topo's tree, and read back
// for guest-check --nccl-topo. The format is NCCL's (src/graph/xml.cc, xml.h, NCCL 2.30.7).
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/analysis/nccl_topo.h"

namespace vmxkit::guest {

/// The file for `topo`: `<system version="1">`, a `<cpu numaid>` per host NUMA node, the
/// `<pci>` elements nested as the tree is, each with a comment saying what it is on the host,
/// how a device was matched and where a link came from when not from the host's lspci; a
/// comment at the top lists the path types NCCL computes from the file (nccl_paths). No XML
/// declaration (NCCL's xmlGetNode takes none) and no `--` inside comments.
std::string nccl_topo_xml(const NcclTopo& topo);

/// Reads a topology file. Throws vmxkit::Error (file:line:col) for text that is not XML, a root
/// other than `<system version="1">` (ncclTopoXmlLoadSystem refuses other versions), a `<cpu>`
/// without `numaid` or a `<pci>` without `busid`. Elements NCCL adds itself (`<gpu>`, `<nic>`,
/// `<net>`) mark their `<pci>`; others are skipped, as NCCL skips them.
NcclTopoTree read_nccl_topo_xml(std::string_view text, const std::string& path);

}  // namespace vmxkit::guest
