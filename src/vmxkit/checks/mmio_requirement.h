// SPDX-License-Identifier: Apache-2.0
// What 64-bit MMIO window the VM's passthrough devices need, shared by the MMIO rules.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "vmxkit/analysis/mmio.h"
#include "vmxkit/checks/context.h"

namespace vmxkit::checks {

struct MmioRequirement {
  pci::MmioResult result;
  /// Catalogue-like entries made for vGPUs from their profile's framebuffer (kept alive here).
  std::vector<std::unique_ptr<pci::CatalogEntry>> vgpu_models;
  bool estimated = false;  ///< some size comes from KB 323402's framebuffer rule
};

/// The requirement for the present passthrough devices (host BARs when the id resolves on the
/// --host capture, else the catalogue, else KB 323402), or nullopt when no GPU is passed.
std::optional<MmioRequirement> mmio_requirement(const Context& ctx);

/// Notes for a diagnostic: the arithmetic, anchored at the first device.
void add_mmio_notes(const Context& ctx, const MmioRequirement& req, Diagnostic& d);

}  // namespace vmxkit::checks
