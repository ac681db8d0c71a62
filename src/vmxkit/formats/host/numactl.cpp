// SPDX-License-Identifier: Apache-2.0
// `numactl --hardware`: the NUMA node count and each node's CPUs.
#include <fmt/format.h>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

// "0 1 2 3 8 9" -> "0-3,8-9"
std::string compress_cpus(std::string_view list) {
  std::string out;
  long long start = -1;
  long long prev = -2;
  auto flush = [&] {
    if (start < 0) return;
    if (!out.empty()) out += ',';
    out += start == prev ? fmt::format("{}", start) : fmt::format("{}-{}", start, prev);
  };
  for (const std::string_view tok : split_any(list, " ")) {
    const auto n = parse_decimal(tok);
    if (!n) continue;
    const auto v = static_cast<long long>(*n);
    if (v != prev + 1) {
      flush();
      start = v;
    }
    prev = v;
  }
  flush();
  return out;
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
        host.numa().cpus[static_cast<int>(*node)] = compress_cpus(t.substr(c + 6));
      }
    }
  }
  if (!host.numa().node_count) throw Error(path, "no 'available: N nodes' line in numactl output");
}

}  // namespace vmxkit::pci
