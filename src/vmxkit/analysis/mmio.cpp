// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/mmio.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <string_view>

#include "vmxkit/core/error.h"
#include "vmxkit/devices/role.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::pci {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Where a BAR was read: its `Region` line, else the first input line that described the device
// (with several captures, the -tv tree may come first and has no BARs).
std::string origin_text(const Device& d, const Bar& b) {
  if (d.bars.empty() && !d.kernel_bars.empty()) {
    return b.line != 0 ? fmt::format("dmesg {}:{}", d.kernel_bars_from.path, b.line)
                       : "dmesg " + d.kernel_bars_from.to_string();
  }
  if (!d.bars_from.path.empty() && b.line != 0) {
    return fmt::format("lspci {}:{}", d.bars_from.path, b.line);
  }
  if (d.origins.empty()) return "capture";
  for (const Origin& o : d.origins) {
    if (o.line != 0) return "lspci " + o.to_string();
  }
  return d.origins.front().path;
}

}  // namespace

std::optional<unsigned> vgpu_framebuffer_gb(std::string_view profile) {
  const devices::VgpuLookup found = devices::VgpuTable::builtin().lookup(profile);
  if (found.match == devices::VgpuMatch::known) return found.type->framebuffer_gb();
  if (!found.parts || found.parts->framebuffer_gb == 0 ||
      found.parts->framebuffer_gb > kMaxFramebufferGb) {
    return std::nullopt;
  }
  return found.parts->framebuffer_gb;
}

std::vector<const CatalogEntry*> vgpu_physical_models(const Catalog& catalog,
                                                      std::string_view profile) {
  std::vector<const CatalogEntry*> out;
  const devices::VgpuLookup found = devices::VgpuTable::builtin().lookup(profile);
  if (found.match != devices::VgpuMatch::known) return out;
  for (const std::uint16_t id : found.type->device_ids) {
    if (const CatalogEntry* e = catalog.find(0x10de, id)) out.push_back(e);
  }
  return out;
}

bool is_one_of(const std::vector<const CatalogEntry*>& models, const CatalogEntry& model) {
  return std::any_of(models.begin(), models.end(), [&](const CatalogEntry* e) {
    return e->vendor_id == model.vendor_id && e->device_id == model.device_id;
  });
}

VgpuMmio vgpu_mmio(std::string_view profile, std::optional<std::int64_t> memory_mb,
                   const Catalog& catalog, const Device* physical) {
  VgpuMmio v;
  const std::string label = fmt::format("vGPU {}", profile);
  if (memory_mb && *memory_mb >= kVgpuLargeMemoryMb) {
    v.min_gb = kVgpuLargeMemoryMinGb;
    if (physical != nullptr) {
      v.device =
          MmioDevice{physical, nullptr, fmt::format("{} on {}", label, physical->bdf.to_string())};
      v.why = fmt::format(
          "{} in a VM with {} MB of memory (>= 32 GB): sized as its physical GPU "
          "(NVIDIA AI Enterprise, VMware appendix)",
          label, *memory_mb);
      return v;
    }
    const CatalogEntry* least = nullptr;
    unsigned least_gb = 0;
    for (const CatalogEntry* e : vgpu_physical_models(catalog, profile)) {
      const unsigned gb = size_64bit_mmio({MmioDevice{nullptr, e, e->model}}).size_gb;
      if (least == nullptr || gb < least_gb) {
        least = e;
        least_gb = gb;
      }
    }
    if (least != nullptr) {
      v.device = MmioDevice{nullptr, least, fmt::format("{} on {}", label, least->model)};
      v.why = fmt::format(
          "{} in a VM with {} MB of memory (>= 32 GB): sized as the physical GPU "
          "({}, the board's model that needs the least; NVIDIA AI Enterprise, "
          "VMware appendix)",
          label, *memory_mb, least->model);
      return v;
    }
    v.why = fmt::format(
        "{} in a VM with {} MB of memory (>= 32 GB): physical GPU not known; at "
        "least {} GB (NVIDIA AI Enterprise, VMware appendix)",
        label, *memory_mb, kVgpuLargeMemoryMinGb);
  }
  v.owned = std::make_unique<CatalogEntry>();
  v.owned->role = Role::gpu;
  v.owned->model = std::string(label);
  v.owned->framebuffer_gb = vgpu_framebuffer_gb(profile);
  v.owned->source = "vGPU profile name";
  v.device = MmioDevice{nullptr, v.owned.get(), label};
  return v;
}

void apply_minimum(MmioResult& result, unsigned gb, const std::string& why) {
  if (gb == 0) return;
  result.steps.push_back({MmioStepKind::minimum_reason, 0, 0, 0, why});
  if (result.size_gb >= gb) return;
  result.size_gb = gb;
  result.steps.push_back({MmioStepKind::minimum, 0, 0, gb, {}});
}

std::uint64_t next_pow2(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n && p < (std::uint64_t{1} << 63)) p <<= 1;
  return p;
}

namespace {

// a + b, or an Error saying what overflowed.
std::uint64_t add_checked(std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw Error(fmt::format("64-bit MMIO: {} add up to more than 2^64", what));
  }
  return sum;
}

// A power of two in GB as pciPassthru.64bitMMIOSizeGB holds it, or an Error when it does not fit.
unsigned size_gb_value(std::uint64_t gb, std::string_view what) {
  if (gb > std::numeric_limits<unsigned>::max()) {
    throw Error(
        fmt::format("64-bit MMIO: {} need {} GB, more than 64bitMMIOSizeGB can hold", what, gb));
  }
  return static_cast<unsigned>(gb);
}

// What KB 323402 needs: the GPUs' total framebuffer, known when every GPU's is.
struct Framebuffers {
  bool any_gpu = false;
  bool known = true;
  std::uint64_t total_gb = 0;
  std::vector<std::string> kb_gpus;  ///< GPUs sized by the KB rule alone
};

// Decides where one device's BARs come from: the capture (its 64-bit BARs; 32-bit ones live
// below 4 GiB), else the catalogue, else, for a GPU whose framebuffer is known, KB 323402's rule
// alone rather than a guessed BAR; a device with none of these is not counted.
void add_device_bars(const MmioDevice& m, MmioResult& r, Framebuffers& fb) {
  const CatalogEntry* model = m.model ? m.model : (m.device ? m.device->model : nullptr);
  const bool gpu = m.nvidia_gpu || (m.device && m.device->role == Role::gpu) ||
                   (model && model->role == Role::gpu);
  if (gpu) {
    fb.any_gpu = true;
    if (model && model->framebuffer_gb) {
      fb.total_gb = add_checked(fb.total_gb, *model->framebuffer_gb, "the GPUs' framebuffers");
    } else {
      fb.known = false;
    }
  }
  // 1. The capture.
  bool from_capture = false;
  if (m.device != nullptr) {
    // lspci's Region lines, else the ranges the kernel log printed.
    const std::vector<Bar>& bars = m.device->bars.empty() ? m.device->kernel_bars : m.device->bars;
    for (const Bar& b : bars) {
      if (b.io || !b.size) continue;
      if (!b.is_64bit) {
        r.below_4g.push_back(
            fmt::format("{} BAR{} {} (32-bit)", m.label, b.index, format_size(*b.size)));
        continue;
      }
      r.bars.push_back(MmioBar{m.label, b.index >= 0 ? fmt::format("BAR{}", b.index) : "BAR",
                               *b.size, 0, origin_text(*m.device, b)});
      from_capture = true;
    }
  }
  if (from_capture) return;
  // 2. The catalogue.
  if (model && model->bar1_bytes) {
    const std::string src = fmt::format("catalogue {} ({})", model->id_string(), model->source);
    r.bars.push_back(MmioBar{m.label, "BAR1", *model->bar1_bytes, 0, src});
    for (const Bar& b : model->other_bars) {
      r.bars.push_back(MmioBar{m.label, fmt::format("BAR{}", b.index), *b.size, 0, src});
    }
    return;
  }
  if (model && !gpu && !model->other_bars.empty()) {
    const std::string src = fmt::format("catalogue {} ({})", model->id_string(), model->source);
    for (const Bar& b : model->other_bars) {
      r.bars.push_back(MmioBar{m.label, fmt::format("BAR{}", b.index), *b.size, 0, src});
    }
    return;
  }
  // 3. A GPU whose BARs are not known: KB 323402's rule covers it (below), not a guessed BAR.
  if (gpu && model && model->framebuffer_gb) {
    fb.kb_gpus.push_back(fmt::format("{} ({} GB framebuffer)", m.label, *model->framebuffer_gb));
    return;
  }
  r.unknown.push_back(m.label);
  const std::uint16_t vendor =
      model ? model->vendor_id : (m.device ? m.device->vendor_id.value_or(0) : 0);
  if (gpu && (m.nvidia_gpu || vendor == kNvidiaVendor)) r.unknown_gpus.push_back(m.label);
}

// An NVIDIA GPU whose BARs and framebuffer are unknown still needs the window (only a known
// small BAR1 needs none): at least NVIDIA's smallest documented size.
void apply_unknown_gpu_floor(MmioResult& r) {
  if (r.unknown_gpus.empty() || r.size_gb >= kUnknownGpuMinGb) return;
  r.size_gb = kUnknownGpuMinGb;
  r.estimated = true;
  r.steps.push_back({MmioStepKind::unknown_gpu_floor, 0, 0, kUnknownGpuMinGb, {}});
}

// Packs the BARs with natural alignment (each at a multiple of its power-of-two size; largest
// first packs tight) and sizes 64bitMMIOSizeGB as the power of two of GiB that holds them.
void pack_bars(MmioResult& r) {
  std::stable_sort(r.bars.begin(), r.bars.end(),
                   [](const MmioBar& a, const MmioBar& b) { return a.size > b.size; });
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < r.bars.size(); ++i) {
    MmioBar& b = r.bars[i];
    const std::uint64_t align = next_pow2(b.size);
    if (offset % align != 0) offset = add_checked(offset - offset % align, align, "the BARs");
    b.offset = offset;
    offset = add_checked(offset, b.size, "the BARs");
    r.steps.push_back({MmioStepKind::bar, i, 0, 0, {}});
  }
  r.total_bytes = offset;
  const std::uint64_t gib =
      std::max<std::uint64_t>(1, r.total_bytes / kGiB + (r.total_bytes % kGiB != 0 ? 1 : 0));
  r.size_gb = r.bars.empty() ? 0 : size_gb_value(next_pow2(gib), "the BARs");
  if (!r.bars.empty()) {
    r.steps.push_back({MmioStepKind::total, 0, 0, 0, {}});
    r.steps.push_back({MmioStepKind::bars_size, 0, gib, r.size_gb, {}});
  }
}

// KB 323402's figure (the power of two >= 2 x total framebuffer), and whether it decides: for
// GPUs without known BARs, the KB figure (whose doubling is the headroom for the small BARs and
// alignment) is the answer when it is larger than what the known BARs need.
void apply_kb_rule(MmioResult& r, const Framebuffers& fb) {
  if (fb.any_gpu && fb.known && fb.total_gb > 0) {
    const std::uint64_t doubled = add_checked(fb.total_gb, fb.total_gb, "the GPUs' framebuffers");
    r.kb_gb = size_gb_value(next_pow2(doubled), "KB 323402's 2 x total framebuffer");
    r.steps.push_back({MmioStepKind::kb_rule, 0, fb.total_gb, *r.kb_gb, {}});
  } else if (fb.any_gpu) {
    r.steps.push_back({MmioStepKind::kb_unknown, 0, 0, 0, {}});
  }
  if (!fb.kb_gpus.empty() && r.kb_gb) {
    for (const std::string& g : fb.kb_gpus) {
      r.steps.push_back({MmioStepKind::kb_applies, 0, 0, 0, g});
    }
    if (*r.kb_gb > r.size_gb) r.size_gb = *r.kb_gb;
    r.estimated = true;
  }
}

// The BARs the kernel log says it found no space for: in a VM, the sign of a 64-bit MMIO
// window too small for them (or none); on bare metal, of firmware without Above 4G Decoding.
void note_unassigned(const MmioDevice& m, MmioResult& r) {
  if (m.device == nullptr) return;
  for (const UnassignedBar& u : m.device->unassigned_bars) r.unassigned.push_back({m.label, u});
}

}  // namespace

MmioResult size_64bit_mmio(const std::vector<MmioDevice>& devices) {
  MmioResult r;
  Framebuffers fb;
  for (const MmioDevice& m : devices) {
    add_device_bars(m, r, fb);
    note_unassigned(m, r);
  }
  pack_bars(r);
  apply_kb_rule(r, fb);
  apply_unknown_gpu_floor(r);
  if (!r.bars.empty() || r.estimated) {
    r.steps.push_back({MmioStepKind::result, 0, 0, r.size_gb, {}});
  }
  for (const std::string& u : r.unknown) {
    if (std::find(r.unknown_gpus.begin(), r.unknown_gpus.end(), u) != r.unknown_gpus.end()) {
      continue;  // sized by the floor above
    }
    r.steps.push_back({MmioStepKind::not_counted, 0, 0, 0, u});
  }
  for (const std::string& b : r.below_4g) r.steps.push_back({MmioStepKind::below_4g, 0, 0, 0, b});
  for (std::size_t i = 0; i < r.unassigned.size(); ++i) {
    r.steps.push_back({MmioStepKind::unassigned, i, 0, 0, {}});
  }
  return r;
}

MmioResult size_64bit_mmio(const Host& host, const std::vector<Bdf>& devices) {
  std::vector<MmioDevice> list;
  for (const Bdf& bdf : devices) {
    const auto i = host.index_of(bdf);
    if (!i) throw Error(fmt::format("no device {} on the host", bdf.to_string()));
    list.push_back(MmioDevice{&host.at(*i), host.at(*i).model, host.describe(*i)});
  }
  return size_64bit_mmio(list);
}

MmioResult size_64bit_mmio(const Catalog& catalog,
                           const std::vector<std::pair<std::uint16_t, std::uint16_t>>& ids) {
  std::vector<MmioDevice> list;
  for (const auto& [vendor, device] : ids) {
    const CatalogEntry* e = catalog.find(vendor, device);
    list.push_back(MmioDevice{nullptr, e,
                              e ? fmt::format("{} ({})", e->id_string(), e->model)
                                : fmt::format("{:04x}:{:04x}", vendor, device)});
  }
  return size_64bit_mmio(list);
}

}  // namespace vmxkit::pci
