// SPDX-License-Identifier: Apache-2.0
// `esxcli hardware memory get`: the NUMA node count of an ESXi host.
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

void load_esxcli_memory(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    constexpr std::string_view kKey = "NUMA Node Count:";
    if (!t.starts_with(kKey)) continue;
    const auto n = parse_decimal(trim(t.substr(kKey.size())));
    if (!n || *n == 0 || *n > 1024) {
      const auto col = static_cast<std::uint32_t>(raw.size() - t.size() + kKey.size() + 1);
      throw Error(path, line_no, col, "expected 'NUMA Node Count: N' with N from 1 to 1024");
    }
    host.numa().node_count = static_cast<unsigned>(*n);
  }
  if (!host.numa().node_count) {
    throw Error(path, "no 'NUMA Node Count: N' line in esxcli hardware memory get output");
  }
}

}  // namespace vmxkit::pci
