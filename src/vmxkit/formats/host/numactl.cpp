// SPDX-License-Identifier: Apache-2.0
// `numactl --hardware`: the NUMA node count and each node's CPUs.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

// "0 1 2 3 8 9": the CPU numbers, ascending, each once.
std::vector<int> cpu_numbers(std::string_view list) {
  std::vector<int> cpus;
  for (const std::string_view tok : split_any(list, " ")) {
    const auto n = parse_decimal(tok);
    if (n && *n <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      cpus.push_back(static_cast<int>(*n));
    }
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace

void load_numactl(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    if (t.starts_with("available:")) {
      const auto n = parse_decimal(trim(t.substr(10)).substr(0, trim(t.substr(10)).find(' ')));
      if (!n || *n == 0 || *n > 1024) {
        throw Error(path, line_no, 11, "expected 'available: N nodes'");
      }
      host.numa().node_count = static_cast<unsigned>(*n);
    } else if (t.starts_with("node ") && t.find(" cpus:") != std::string_view::npos) {
      const auto c = t.find(" cpus:");
      const auto node = parse_decimal(t.substr(5, c - 5));
      if (node && *node < 1024) {
        host.numa().cpus[static_cast<int>(*node)] = cpu_numbers(t.substr(c + 6));
      }
    }
  }
  if (!host.numa().node_count) throw Error(path, "no 'available: N nodes' line in numactl output");
}

}  // namespace vmxkit::pci
