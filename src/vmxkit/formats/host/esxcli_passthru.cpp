// SPDX-License-Identifier: Apache-2.0
// `esxcli hardware pci pcipassthru list`: which devices are enabled for passthrough.
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

void load_esxcli_passthru(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  bool rows = false;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    if (t.empty() || t.starts_with("Device ID") ||
        t.find_first_not_of("- ") == std::string_view::npos) {
      continue;  // the header and its dashes
    }
    const auto col = [&](std::string_view part) {
      return static_cast<std::uint32_t>(part.data() - raw.data() + 1);
    };
    const auto parts = split_any(t, " \t");
    const auto bdf = parts.empty() ? std::nullopt : parse_bdf(parts[0]);
    if (parts.size() < 2 || !bdf || (parts[1] != "true" && parts[1] != "false")) {
      throw Error(
          path, line_no, col(t),
          "expected a 'DDDD:BB:DD.F  true|false' row (esxcli hardware pci pcipassthru list)");
    }
    Device& d = host.at(host.upsert(*bdf));
    d.passthru_enabled = parts[1] == "true";
    d.origins.push_back(Origin{path, line_no});
    rows = true;
  }
  if (!rows) throw Error(path, "no device rows in esxcli hardware pci pcipassthru list output");
}

}  // namespace vmxkit::pci
