// SPDX-License-Identifier: Apache-2.0
// NVIDIA vGPU types: the one table every command reads (generate picks from it, lint checks
// against it, the MMIO sizing takes a type's framebuffer and boards from it). The data is
// vgpu_types.tsv beside this file, each row with its source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmxkit::devices {

/// The parts of a profile name in NVIDIA's form: `grid_a100-40c`, `nvidia_h100-3-40c`.
struct VgpuProfile {
  std::string prefix;   ///< "grid" or "nvidia"
  std::string board;    ///< "a100", "h100xm", "rtx6000-ada"
  unsigned slices = 0;  ///< MIG compute slices (`grid_a100-3-20c`: 3); 0 when time-sliced
  unsigned framebuffer_gb = 0;
  std::string series;  ///< "c" (compute), "q", "b", "a"
  bool mig() const { return slices != 0; }
};

/// The parts of a profile name in NVIDIA's form, or nullopt (lowercase, as ESXi writes them).
std::optional<VgpuProfile> parse_vgpu_profile(std::string_view name);

/// Whether NVIDIA's tables say a fact of a type; unknown where they could not be read.
enum class Tri : unsigned char { unknown, yes, no };

/// How sure the table is of a type's ESXi name.
enum class NameBasis : unsigned char {
  direct,    ///< the type name in NVIDIA's vgpuConfig.xml
  rule,      ///< the naming rule, with the prefix seen for the board's family
  inferred,  ///< the prefix taken from sibling boards
  unknown,   ///< no evidence of the prefix
};

/// One vGPU type as NVIDIA's tables give it.
struct VgpuType {
  std::string profile;                    ///< "grid_a100-40c", what pciPassthruN.vgpu holds
  std::string type_name;                  ///< "A100-40C"
  std::string board;                      ///< "a100"
  std::vector<std::uint16_t> device_ids;  ///< NVIDIA device ids of the boards offering it
  std::uint32_t framebuffer_mb = 0;
  char series = 'C';         ///< 'C' compute, 'Q' workstation, 'B' business, 'A' apps
  unsigned max_per_gpu = 0;  ///< 0: not known
  unsigned mig_slices = 0;   ///< 0: time-sliced
  Tri nvlink_p2p = Tri::unknown;
  NameBasis name_basis = NameBasis::direct;
  std::string source;

  /// The framebuffer in GiB, rounded up.
  unsigned framebuffer_gb() const { return (framebuffer_mb + 1023) / 1024; }
  /// A time-sliced type that takes a whole GPU's framebuffer (one per GPU).
  bool whole_gpu() const { return mig_slices == 0 && max_per_gpu == 1; }
};

/// What a profile name is, against the table.
enum class VgpuMatch : unsigned char {
  known,          ///< a row's name (or, where the table does not know the prefix, the other one)
  wrong_prefix,   ///< a row's board and type with the other prefix than NVIDIA's (`grid_` for
                  ///< `nvidia_`); `type` is that row
  unknown_type,   ///< a board the table knows, a type it does not offer
  unknown_board,  ///< in NVIDIA's form, but a board the table does not know
  malformed,      ///< not in NVIDIA's form (uppercase, missing parts)
};

struct VgpuLookup {
  VgpuMatch match = VgpuMatch::malformed;
  const VgpuType* type = nullptr;  ///< for known and wrong_prefix
  std::optional<VgpuProfile> parts;
  std::vector<std::string> nearest;  ///< the closest real names, at most 3 (not for known)
};

/// The built-in table (parsed once; thread-safe).
class VgpuTable {
 public:
  static const VgpuTable& builtin();
  /// Parses the table's text (the vgpu_types.tsv format). Throws vmxkit::Error with file:line.
  static VgpuTable parse(std::string_view text, const std::string& path);

  const std::vector<VgpuType>& types() const { return types_; }
  VgpuLookup lookup(std::string_view name) const;
  /// The types the boards with this NVIDIA device id offer, in table order.
  std::vector<const VgpuType*> types_for_device(std::uint16_t device_id) const;
  /// The types of one series the boards with these device ids offer, once each: time-sliced
  /// before MIG-backed, larger framebuffer first (the order a message lists them in).
  std::vector<const VgpuType*> offered(const std::vector<std::uint16_t>& device_ids,
                                       char series) const;
  /// Whether the table knows a board token ("a100").
  bool knows_board(std::string_view board) const;

 private:
  std::vector<VgpuType> types_;
};

}  // namespace vmxkit::devices
