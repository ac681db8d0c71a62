// SPDX-License-Identifier: Apache-2.0
#include "unit/pci/pci_test_util.h"

#include <sstream>

#include "vmxkit/pci/text.h"

namespace vmxkit::test {

pci::Host host_from(const std::vector<std::pair<std::string, std::string>>& inputs) {
  pci::Host host;
  for (const auto& [name, text] : inputs) pci::load_text(host, text, name);
  host.finalize();
  return host;
}

Cells matrix_cells(const std::string& text) {
  Cells cells;
  std::istringstream in(text);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (pci::trim(line).empty()) break;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (header) {
      for (const std::string& s : w) {
        if (s == "CPU") break;
        cells.labels.push_back(s);
      }
      header = false;
      continue;
    }
    if (w.empty()) break;
    std::vector<std::string> row(w.begin() + 1,
                                 w.begin() + static_cast<long>(std::min(w.size(), cells.labels.size() + 1)));
    cells.rows.push_back(row);
  }
  return cells;
}

}  // namespace vmxkit::test
