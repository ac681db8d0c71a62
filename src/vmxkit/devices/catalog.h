// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/devices/pci.h"

namespace vmxkit::pci {

/// Largest framebuffer a catalogue entry or a vGPU profile may give, in GB (16 TiB; the largest
/// GPU has well under 1 TiB): keeps KB 323402's arithmetic far from overflowing.
inline constexpr unsigned kMaxFramebufferGb = 16384;
/// Largest BAR size accepted from any input: 2^52 bytes (4096T), the most physical address
/// space an x86-64 or Arm64 CPU has (52 bits).
inline constexpr std::uint64_t kMaxBarBytes = std::uint64_t{1} << 52;

/// GPUDirect RDMA support of a model as its sources say.
enum class GdrSupport : unsigned char { unknown, yes, no };
std::string_view to_string(GdrSupport gdr);

/// NVLink of a GPU model as its sources say.
enum class NvlinkSupport : unsigned char {
  unknown,    ///< not sourced (`-`)
  no,         ///< the model has no NVLink
  bridge,     ///< a PCIe board that takes an NVLink bridge to boards of its model
  baseboard,  ///< an SXM/OAM/superchip part: NVLink to peers or NVSwitches on its baseboard
};
/// "unknown", "no", "bridge", "baseboard".
std::string_view to_string(NvlinkSupport nvlink);

/// What the catalogue knows about one vendor:device id. Unknown facts stay nullopt/empty.
struct CatalogEntry {
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::string alias;        ///< short name for the command line ("h100-pcie"); may be empty
  std::string model;        ///< "H100 PCIe"
  Role role = Role::other;  ///< gpu, rdma_nic, nic_vf or bridge
  /// Device name as pci.ids/lspci prints it ("GH100 [H100 PCIe]"); " | " separates the names
  /// different pci.ids versions give.
  std::string lspci_name;
  std::optional<unsigned> framebuffer_gb;
  std::optional<std::uint64_t> bar1_bytes;
  std::vector<Bar> other_bars;  ///< the other 64-bit memory BARs (index, size)
  GdrSupport gdr = GdrSupport::unknown;
  NvlinkSupport nvlink = NvlinkSupport::unknown;
  /// `bridge:N`: the most boards one NVLink bridge set joins, when the sources say.
  std::optional<unsigned> nvlink_bridge_gpus;
  std::optional<std::uint16_t> vf_device_id;
  std::string source;  ///< where the facts come from
  std::string origin;  ///< "built-in" or "FILE:LINE" of a user catalogue

  std::string id_string() const;  ///< "10de:2331"
};

/// The device catalogue: a compiled-in data file (`catalog.tsv`) plus user files given with
/// `--catalog FILE` that add entries or replace them by vendor:device id.
class Catalog {
 public:
  /// The built-in catalogue (parsed once; thread-safe).
  static const Catalog& builtin();
  /// Parses catalogue text (the catalog.tsv format; a line of the 11 columns before `nvlink`
  /// is read with nvlink unknown). Throws vmxkit::Error with file:line:col.
  static Catalog parse(std::string_view text, const std::string& path);
  /// Adds or replaces (by vendor:device) every entry of `overrides`.
  void merge(const Catalog& overrides);

  const CatalogEntry* find(std::uint16_t vendor_id, std::uint16_t device_id) const;
  /// By the name lspci prints ("NVIDIA Corporation GA102GL [RTX A6000]"), ids and revision removed.
  const CatalogEntry* find_name(std::string_view lspci_name) const;
  /// By alias ("h100-pcie"), ASCII case-insensitive; also accepts "vvvv:dddd".
  const CatalogEntry* find_alias(std::string_view alias) const;
  const std::vector<CatalogEntry>& entries() const { return entries_; }

  /// The vendor name lspci prints for the vendors the catalogue covers, else empty.
  static std::string_view vendor_name(std::uint16_t vendor_id);

 private:
  std::vector<CatalogEntry> entries_;
};

/// The built-in catalogue with the user files merged over it, in order. Throws vmxkit::Error.
Catalog catalog_with(const std::vector<std::string>& user_files);

/// Parses a size as lspci prints it: "64G", "32M", "512K", "128" (bytes); powers of 1024.
std::optional<std::uint64_t> parse_size(std::string_view text);
/// Prints a size the lspci way: the largest power of 1024 that divides it ("64G").
std::string format_size(std::uint64_t bytes);

}  // namespace vmxkit::pci
