// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m` as read: the matrix nvidia-smi prints, read on a host or in a guest.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/model/pci_device.h"

namespace vmxkit::pci {

/// `nvidia-smi topo -m`: labels and cells as printed, each GPU's CPU/NUMA affinity columns, and
/// the NIC legend (NIC0 -> mlx5_0). Labels are in nvidia-smi's order: GPUs by NVML index, then
/// NICs (older drivers print the NICs by their RDMA names, `mlx5_0`, instead of `NIC0`).
struct SmiTopo {
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> cells;  ///< [row][col]
  std::map<std::string, std::string> nic_names;
  /// Per row: the `CPU Affinity`, `NUMA Affinity` and `GPU NUMA ID` columns (empty when the
  /// capture has no such column, or the row none: NIC rows).
  std::vector<std::string> cpu_affinity;
  std::vector<std::string> numa_affinity;
  std::vector<std::string> gpu_numa_id;
  Origin where;                      ///< the header line
  std::uint32_t first_row_line = 0;  ///< the line of the first matrix row

  /// The cell between two labels, or empty.
  std::string cell(std::string_view row, std::string_view col) const;
  /// Whether label `i` is a GPU (`GPU3`) rather than a NIC (`NIC0`, `mlx5_0`).
  bool is_gpu(std::size_t i) const;
  /// The number of GPU labels.
  std::size_t gpu_count() const;
  /// The RDMA device name of label `i`: the NIC legend's, or the label itself for `mlx5_0`.
  std::string nic_name(std::size_t i) const;
};

/// The bonded NVLink count of a cell (`NV18` -> 18, `NV#` forms only), nullopt for a PCIe class.
std::optional<unsigned> nvlink_count(std::string_view cell);

}  // namespace vmxkit::pci
