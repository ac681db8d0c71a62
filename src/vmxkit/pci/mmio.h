// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/pci/catalog.h"
#include "vmxkit/pci/host.h"

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

/// The result of sizing the 64-bit MMIO window for a set of passthrough devices.
struct MmioResult {
  std::vector<MmioBar> bars;          ///< in placement order (largest first)
  std::uint64_t total_bytes = 0;      ///< end of the packed BARs
  unsigned size_gb = 0;               ///< the value for pciPassthru.64bitMMIOSizeGB
  std::optional<unsigned> kb_gb;      ///< Broadcom KB 323402: next power of two of 2 x total FB
  bool estimated = false;             ///< a GPU's BARs were not known: size_gb is the KB figure
  std::vector<std::string> lines;     ///< the arithmetic, one step per line
  std::vector<std::string> unknown;   ///< devices whose BAR sizes are not known (not counted)
  std::vector<std::string> below_4g;  ///< 32-bit BARs (live below 4 GiB, not counted)
};

/// A device to size: a host device (by index), or a catalogue entry without a host.
struct MmioDevice {
  const Device* device = nullptr;       ///< from a host capture; may be null
  const CatalogEntry* model = nullptr;  ///< catalogue entry; may be null
  std::string label;                    ///< how the result names it
};

/// Packs the 64-bit memory BARs of `devices` with natural alignment (largest first) and rounds
/// the total up to a power of two in GiB. BAR sizes from the capture, else the catalogue (BAR1
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

/// The framebuffer in GB an NVIDIA vGPU profile name gives (`grid_a100-40c` -> 40,
/// `grid_a100-3-20c` -> 20), or nullopt.
std::optional<unsigned> vgpu_framebuffer_gb(std::string_view profile);

/// The smallest power of two >= n (n >= 1).
std::uint64_t next_pow2(std::uint64_t n);

}  // namespace vmxkit::pci
