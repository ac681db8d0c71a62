// SPDX-License-Identifier: Apache-2.0
// `vmxkit topo --format json`: a host's GPU/NIC analysis as the document docs/json-output.md
// describes.
#pragma once

#include "vmxkit/analysis/topology.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/json.h"

namespace vmxkit::report {

/// The analysis `t` of `host`: devices, matrix (or each GPU's nearest peers on a large host),
/// pair verdicts with their reasons, each GPU's best NIC and the host's warnings.
Json topology_json(const pci::Host& host, const pci::Topology& t);

}  // namespace vmxkit::report
