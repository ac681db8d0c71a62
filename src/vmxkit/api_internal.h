// SPDX-License-Identifier: Apache-2.0
// What the command line reaches behind the public API (vmxkit.h) and users do not: not
// installed.
#pragma once

#include "vmxkit/devices/catalog.h"
#include "vmxkit/model/host.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::detail {

/// A public Host around a finalized pci::Host (one read from the vSphere API, say).
Host wrap_host(pci::Host host, const Catalog& catalog);
/// The pci::Catalog behind a public Catalog.
const pci::Catalog& internal_catalog(const Catalog& catalog);

}  // namespace vmxkit::detail
