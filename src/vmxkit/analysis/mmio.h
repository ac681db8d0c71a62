// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/devices/catalog.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

/// One 64-bit memory BAR counted for `pciPassthru.64bitMMIOSizeGB`, where it was placed, and
/// where its size came from.
struct MmioBar {
  std::string device;  ///< "0000:c1:00.0 (RTX 6000 Ada Generation)" or "10de:2331 (H100 PCIe)"
  std::string bar;     ///< "BAR1", or "KB 323402 estimate" for a whole GPU
  std::uint64_t size = 0;
  std::uint64_t offset = 0;  ///< placement after packing with natural alignment
  std::string source;        ///< "lspci FILE:LINE", "catalogue: ...", "KB 323402 rule: 2 x 80 GB"
};

/// What one step of the window's arithmetic (MmioResult::steps) is.
enum class MmioStepKind : unsigned char {
  bar,                ///< MmioResult::bars[index] placed at its offset
  total,              ///< the packed BARs end at MmioResult::total_bytes
  bars_size,          ///< the BARs alone need `gb`, the power of two >= `value` GiB
  kb_rule,            ///< KB 323402: 2 x `value` GB total framebuffer -> `gb`
  kb_unknown,         ///< KB 323402 not computed: a GPU's framebuffer is not known
  kb_applies,         ///< BAR sizes not known for the GPU `text`: KB 323402's figure applies
  unknown_gpu_floor,  ///< at least `gb` for MmioResult::unknown_gpus (kUnknownGpuMinGb)
  result,             ///< the window is `gb`
  not_counted,        ///< the device `text`'s BAR sizes are unknown: not counted
  below_4g,           ///< the 32-bit BAR `text` lives below 4 GiB: not counted
  unassigned,         ///< MmioResult::unassigned[index]: a BAR the kernel found no space for
  minimum_reason,     ///< why a floor applies (`text`: apply_minimum()'s `why`)
  minimum,            ///< the window raised to NVIDIA's vGPU minimum, `gb`
};

/// One step of the window's arithmetic, as data (checks::mmio_lines words it).
struct MmioStep {
  MmioStepKind kind = MmioStepKind::result;
  std::size_t index = 0;    ///< bar: into MmioResult::bars; unassigned: MmioResult::unassigned
  std::uint64_t value = 0;  ///< bars_size: GiB the BARs span; kb_rule: total framebuffer in GB
  unsigned gb = 0;          ///< bars_size, kb_rule, unknown_gpu_floor, result, minimum
  std::string text;         ///< kb_applies, not_counted, below_4g, minimum_reason
};

/// A BAR of a device the kernel log says it found no space for (checks::unassigned_text words
/// it): in a VM the sign of a 64-bit MMIO window too small, on bare metal of Above 4G Decoding
/// off.
struct MmioUnassigned {
  std::string device;  ///< how the result names the device (MmioDevice::label)
  UnassignedBar bar;   ///< the BAR, its size and the dmesg line
};

/// The result of sizing the 64-bit MMIO window for a set of passthrough devices.
struct MmioResult {
  std::vector<MmioBar> bars;          ///< in placement order (largest first)
  std::uint64_t total_bytes = 0;      ///< end of the packed BARs
  unsigned size_gb = 0;               ///< the value for pciPassthru.64bitMMIOSizeGB
  std::optional<unsigned> kb_gb;      ///< Broadcom KB 323402: next power of two of 2 x total FB
  bool estimated = false;             ///< a GPU's BARs were not known: size_gb is the KB figure
  std::vector<MmioStep> steps;        ///< the arithmetic, in order
  std::vector<std::string> unknown;   ///< devices whose BAR sizes are not known (not counted)
  std::vector<std::string> below_4g;  ///< 32-bit BARs (live below 4 GiB, not counted)
  /// NVIDIA GPUs whose BARs and framebuffer are both unknown: sized at kUnknownGpuMinGb.
  std::vector<std::string> unknown_gpus;
  /// BARs of the devices the kernel log says it found no space for.
  std::vector<MmioUnassigned> unassigned;
};

/// The window assumed for an NVIDIA GPU whose BARs and framebuffer are unknown: the smallest
/// 64-bit MMIO space NVIDIA lists for any data-center GPU (NVIDIA AI Enterprise, VMware
/// appendix: 64 GB for V100, A10, A30, L4, L2). A GPU needs no 64-bit window only when its BARs
/// are known to be small.
inline constexpr unsigned kUnknownGpuMinGb = 64;

/// A device to size: a host device (by index), or a catalogue entry without a host.
struct MmioDevice {
  const Device* device = nullptr;       ///< from a host capture; may be null
  const CatalogEntry* model = nullptr;  ///< catalogue entry; may be null
  std::string label;                    ///< how the result names it
  /// The caller knows it is an NVIDIA GPU (vendor 0x10de, GPU class) though neither a capture
  /// nor the catalogue has it.
  bool nvidia_gpu = false;
};

/// Packs the 64-bit memory BARs of `devices` with natural alignment (largest first) and rounds
/// the total up to a power of two in GiB. BAR sizes from the capture (lspci's Region lines, else
/// the kernel log's ranges), else the catalogue (BAR1
/// plus the other 64-bit BARs). When a GPU's BARs are known from neither, the answer is
/// KB 323402's figure (next power of two of 2 x total framebuffer) if that is larger: its
/// doubling is the headroom for the small BARs and alignment, so no BAR size is invented.
MmioResult size_64bit_mmio(const std::vector<MmioDevice>& devices);

/// Host devices by BDF. Throws vmxkit::Error for a BDF the host does not have.
MmioResult size_64bit_mmio(const Host& host, const std::vector<Bdf>& devices);

/// Devices by vendor:device id (from a .vmx, or the generator) without a host; ids not in the
/// catalogue are reported as unknown.
MmioResult size_64bit_mmio(const Catalog& catalog,
                           const std::vector<std::pair<std::uint16_t, std::uint16_t>>& ids);

/// The framebuffer in GB of an NVIDIA vGPU profile: the vGPU table's, else (a profile the table
/// does not know, which the lint reports) what the name says (`grid_zz9-8q` -> 8), or nullopt.
std::optional<unsigned> vgpu_framebuffer_gb(std::string_view profile);

/// NVIDIA AI Enterprise, VMware appendix: a VM with a vGPU and 32 GB (32768 MB) or more of
/// memory needs 64-bit MMIO and EFI boot, an MMIO space of at least 64 GB, and as much as the
/// physical GPU the vGPU runs on requires (not the profile's framebuffer).
inline constexpr std::int64_t kVgpuLargeMemoryMb = 32768;
inline constexpr unsigned kVgpuLargeMemoryMinGb = 64;

/// The catalogue GPU models a vGPU profile can run on: the boards the vGPU table names for it
/// (devices/vgpu_types.tsv), as far as the catalogue knows them; none for a profile the table
/// does not know.
std::vector<const CatalogEntry*> vgpu_physical_models(const Catalog& catalog,
                                                      std::string_view profile);

/// Whether `model` is one of `models` (by vendor:device id: the entries may come from two copies
/// of the catalogue).
bool is_one_of(const std::vector<const CatalogEntry*>& models, const CatalogEntry& model);

/// How one vGPU counts for the 64-bit MMIO window. In a VM with less than 32 GB of memory, as a
/// GPU with the profile's framebuffer (KB 323402). With 32 GB or more, as the physical GPU:
/// `physical` when the host device is known, else the catalogue model of the board that needs
/// the least (so that no larger board is assumed); `min_gb` is then NVIDIA's 64 GB floor.
struct VgpuMmio {
  MmioDevice device;
  std::unique_ptr<CatalogEntry> owned;  ///< the profile's entry, when device.model points at it
  unsigned min_gb = 0;
  std::string why;  ///< the line that explains the sizing
};
VgpuMmio vgpu_mmio(std::string_view profile, std::optional<std::int64_t> memory_mb,
                   const Catalog& catalog, const Device* physical);

/// Raises `result` to at least `gb` (and keeps why in its steps); no change when it is larger.
void apply_minimum(MmioResult& result, unsigned gb, const std::string& why);

/// The smallest power of two >= n (n >= 1).
std::uint64_t next_pow2(std::uint64_t n);

}  // namespace vmxkit::pci
