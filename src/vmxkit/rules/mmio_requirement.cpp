// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/rules/mmio_requirement.h"

#include "vmxkit/core/pci_address.h"

namespace vmxkit::rules {

std::optional<MmioRequirement> mmio_requirement(const Context& ctx) {
  if (ctx.count(DeviceClass::gpu) == 0) return std::nullopt;
  MmioRequirement req;
  std::vector<pci::MmioDevice> devices;
  for (const VmDevice& v : ctx.devices()) {
    pci::MmioDevice m;
    m.label = v.label;
    m.model = v.model;
    if (ctx.host() != nullptr && v.entry->kind() == PassthroughKind::directpath && v.entry->id) {
      if (const auto bdf = parse_vmx_bdf(*v.entry->id)) m.device = ctx.host()->find(*bdf);
    }
    if (v.entry->kind() == PassthroughKind::vgpu && v.entry->vgpu) {
      auto entry = std::make_unique<pci::CatalogEntry>();
      entry->role = pci::Role::gpu;
      entry->model = "vGPU " + *v.entry->vgpu;
      entry->framebuffer_gb = pci::vgpu_framebuffer_gb(*v.entry->vgpu);
      entry->source = "vGPU profile name";
      m.model = entry.get();
      req.vgpu_models.push_back(std::move(entry));
    }
    if (m.device == nullptr && m.model == nullptr) continue;  // nothing known: not counted
    devices.push_back(std::move(m));
  }
  req.result = pci::size_64bit_mmio(devices);
  req.estimated = req.result.estimated;
  if (req.result.size_gb == 0) return std::nullopt;
  return req;
}

void add_mmio_notes(const Context& ctx, const MmioRequirement& req, Diagnostic& d) {
  if (ctx.devices().empty()) return;
  const SourceSpan at = ctx.device_span(*ctx.devices().front().entry);
  for (const std::string& line : req.result.lines) d.notes.push_back({at.begin, at.end, line});
}

}  // namespace vmxkit::rules
