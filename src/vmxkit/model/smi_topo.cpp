// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/model/smi_topo.h"

#include <algorithm>

#include "vmxkit/core/text.h"

namespace vmxkit::pci {

std::string SmiTopo::cell(std::string_view row, std::string_view col) const {
  std::optional<std::size_t> r;
  std::optional<std::size_t> c;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == row) r = i;
    if (labels[i] == col) c = i;
  }
  if (!r || !c || *r >= cells.size() || *c >= cells[*r].size()) return {};
  return cells[*r][*c];
}

bool SmiTopo::is_gpu(std::size_t i) const {
  return i < labels.size() && labels[i].starts_with("GPU");
}

std::size_t SmiTopo::gpu_count() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) n += is_gpu(i) ? 1 : 0;
  return n;
}

std::string SmiTopo::nic_name(std::size_t i) const {
  if (i >= labels.size() || is_gpu(i)) return {};
  if (const auto it = nic_names.find(labels[i]); it != nic_names.end()) return it->second;
  return labels[i].starts_with("NIC") ? std::string() : labels[i];
}

std::optional<unsigned> nvlink_count(std::string_view cell) {
  if (!cell.starts_with("NV") || cell.size() < 3) return std::nullopt;
  const auto n = parse_decimal(cell.substr(2));
  if (!n || *n == 0 || *n > 1024) return std::nullopt;
  return static_cast<unsigned>(*n);
}

}  // namespace vmxkit::pci
