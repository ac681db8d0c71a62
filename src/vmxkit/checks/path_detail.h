// SPDX-License-Identifier: Apache-2.0
// The words of a PCIe path's facts (pci::Path): where two devices meet, which decides the path's
// class. analysis/ gives the facts; the rules that name a path in their messages (TOPO004,
// TOPO005, GUEST002) and report/ (topo's text and JSON, a pair reason, generate's plan, the public
// PairVerdict) say them in these words. It lives here, the lowest layer that words anything,
// rather than in report/, so that the checks below report/ and the report say a path alike.
#pragma once

#include <string>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"

namespace vmxkit::checks {

/// Why `path` (classified on `host`) has its class: "functions of one device", "through one
/// switch below 0000:17:00.0", "through 2 switch levels, meeting at 0000:16:00.0", "0000:3b:00.0
/// is not placed in the tree", "through host bridge 0000:00", "host bridges 0000:00 and 0000:80,
/// both on NUMA node 0", "host bridges 0000:00 (NUMA node 0) and 0000:80 (NUMA node 1)", "host
/// bridges 0000:00 and 0000:80; NODE or SYS: no NUMA node known for 0000:3b:00.0". Empty for a
/// device with itself.
std::string path_detail(const pci::Host& host, const pci::Path& path);

}  // namespace vmxkit::checks
