// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/mmio_requirement.h"

#include <utility>

#include "vmxkit/checks/mmio_lines.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/devices/role.h"

namespace vmxkit::checks {

namespace {

// The host GPU a vGPU of `profile` would size as: of the host's GPUs of the profile's board, the
// one whose BARs need the least window (so that no larger GPU is assumed); nullptr without a
// host or such a GPU.
const pci::Device* vgpu_host_gpu(const Context& ctx, const std::string& profile) {
  if (ctx.host() == nullptr) return nullptr;
  const auto models = pci::vgpu_physical_models(ctx.catalog(), profile);
  const pci::Device* least = nullptr;
  unsigned least_gb = 0;
  for (const pci::Device& d : ctx.host()->devices()) {
    if (d.role != pci::Role::gpu || d.model == nullptr) continue;
    if (!pci::is_one_of(models, *d.model)) continue;
    const unsigned gb = pci::size_64bit_mmio({pci::MmioDevice{&d, nullptr, ""}}).size_gb;
    if (least == nullptr || gb < least_gb) {
      least = &d;
      least_gb = gb;
    }
  }
  return least;
}

}  // namespace

std::optional<MmioRequirement> mmio_requirement(const Context& ctx) {
  if (ctx.count(DeviceClass::gpu) == 0) return std::nullopt;
  MmioRequirement req;
  std::vector<pci::MmioDevice> devices;
  std::vector<std::pair<unsigned, std::string>> minimums;
  for (const VmDevice& v : ctx.devices()) {
    pci::MmioDevice m;
    m.label = v.label;
    m.model = v.model;
    if (ctx.host() != nullptr && v.entry->kind() == PassthroughKind::directpath && v.entry->id) {
      if (const auto bdf = parse_vmx_bdf(*v.entry->id)) m.device = ctx.host()->find(*bdf);
    }
    if (v.entry->kind() == PassthroughKind::vgpu && v.entry->vgpu) {
      // ESXi places a vGPU on a physical GPU at power-on; with a host capture, that is one of
      // the host's GPUs of the profile's board.
      pci::VgpuMmio vgpu = pci::vgpu_mmio(*v.entry->vgpu, ctx.config().memory_mb(), ctx.catalog(),
                                          vgpu_host_gpu(ctx, *v.entry->vgpu));
      m = vgpu.device;
      if (vgpu.min_gb > 0) minimums.emplace_back(vgpu.min_gb, std::move(vgpu.why));
      if (vgpu.owned) req.vgpu_models.push_back(std::move(vgpu.owned));
    }
    if (m.device == nullptr && m.model == nullptr) {
      // Nothing known: an NVIDIA GPU is still counted (at NVIDIA's smallest window), others not.
      m.nvidia_gpu = v.cls == DeviceClass::gpu && v.vendor_id == pci::kNvidiaVendor &&
                     v.device_id && v.entry->kind() == PassthroughKind::directpath;
      if (!m.nvidia_gpu) continue;
    }
    devices.push_back(std::move(m));
  }
  req.result = pci::size_64bit_mmio(devices);
  for (const auto& [gb, why] : minimums) pci::apply_minimum(req.result, gb, why);
  req.estimated = req.result.estimated;
  if (req.result.size_gb == 0) return std::nullopt;
  return req;
}

void add_mmio_notes(const Context& ctx, const MmioRequirement& req, Diagnostic& d) {
  if (ctx.devices().empty()) return;
  const SourceSpan at = ctx.device_span(*ctx.devices().front().entry);
  for (std::string& line : mmio_lines(req.result))
    d.notes.push_back({at.begin, at.end, std::move(line)});
}

}  // namespace vmxkit::checks
