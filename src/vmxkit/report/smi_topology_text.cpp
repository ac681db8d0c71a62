// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/smi_topology_text.h"

#include <fmt/format.h>

#include "vmxkit/report/pair_reason.h"

namespace vmxkit::report {
namespace {

void matrix_text(const pci::SmiTopo& t, std::string& out) {
  for (const std::string& l : t.labels) out += '\t' + l;
  out += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (std::size_t i = 0; i < t.labels.size(); ++i) {
    out += t.labels[i];
    for (std::size_t j = 0; j < t.labels.size(); ++j) {
      out += t.cells[i][j] == "X" ? std::string("\t X ") : '\t' + t.cells[i][j];
    }
    if (t.is_gpu(i)) {
      auto or_na = [](const std::string& s) { return s.empty() ? std::string("N/A") : s; };
      out += fmt::format("\t{}\t{}\t\t{}", or_na(t.cpu_affinity[i]), or_na(t.numa_affinity[i]),
                         or_na(t.gpu_numa_id[i]));
    }
    out += '\n';
  }
}

void legends_text(const pci::SmiTopo& t, std::string& out) {
  out +=
      "\nLegend:\n\n"
      "  X    = Self\n"
      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
      "(e.g., QPI/UPI)\n"
      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
      "within a NUMA node\n"
      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
      "Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n"
      "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  std::string nics;
  for (std::size_t i = 0; i < t.labels.size(); ++i) {
    if (t.is_gpu(i)) continue;
    const std::string name = t.nic_name(i);
    nics += fmt::format("  {}: {}\n", t.labels[i], name.empty() ? "(not named)" : name);
  }
  if (!nics.empty()) out += "\nNIC Legend:\n\n" + nics;
}

}  // namespace

std::string smi_topology_text(const pci::SmiTopo& t, const pci::SmiMatrixVerdicts& v) {
  std::string out;
  matrix_text(t, out);
  legends_text(t, out);
  out += fmt::format(
      "\nRead from nvidia-smi topo -m alone ({}): the verdicts below come from each cell's "
      "class or NVLink. Not known from it:\n",
      t.where.to_string());
  for (const std::string& line : v.not_known) out += fmt::format("  - {}\n", line);
  if (!v.pairs.empty()) out += "\nP2P verdicts:\n";
  for (const pci::SmiPairVerdict& p : v.pairs) {
    out += fmt::format("\n  {} <-> {}  {}  {}\n", t.labels[p.a], t.labels[p.b], p.cell,
                       pci::to_string(p.verdict));
    for (const pci::Reason& r : p.reasons) {
      out += fmt::format("    - {}\n", reason_text(t, p, r));
      if (r.effect == pci::Verdict::ok) continue;
      if (const std::string fix = reason_fix(t, p, r); !fix.empty()) {
        out += fmt::format("      fix: {}\n", fix);
      }
    }
  }
  std::string best;
  std::size_t g = 0;
  for (std::size_t i = 0; i < t.labels.size(); ++i) {
    if (!t.is_gpu(i)) continue;
    if (g < v.best_nic.size() && v.best_nic[g]) {
      best += fmt::format("  {}: {} ({})\n", t.labels[i], t.labels[*v.best_nic[g]],
                          t.cells[i][*v.best_nic[g]]);
    }
    ++g;
  }
  if (!best.empty()) out += "\nBest NIC per GPU:\n\n" + best;
  return out;
}

Json smi_topology_json(const pci::SmiTopo& t, const pci::SmiMatrixVerdicts& v) {
  Json labels = Json::array();
  for (const std::string& l : t.labels) labels.push_back(json_text(l));
  Json matrix = Json::array();
  for (const auto& row : t.cells) {
    Json cells = Json::array();
    for (const std::string& c : row) cells.push_back(json_text(c));
    matrix.push_back(std::move(cells));
  }
  Json pairs = Json::array();
  for (const pci::SmiPairVerdict& p : v.pairs) {
    Json reasons = Json::array();
    for (const pci::Reason& r : p.reasons) {
      reasons.push_back({{"kind", pci::to_string(r.kind)},
                         {"effect", pci::to_string(r.effect)},
                         {"text", json_text(reason_text(t, p, r))},
                         {"fix", optional_text(reason_fix(t, p, r))}});
    }
    const auto links = pci::nvlink_count(p.cell);
    pairs.push_back({{"a", json_text(t.labels[p.a])},
                     {"b", json_text(t.labels[p.b])},
                     {"cell", json_text(p.cell)},
                     {"nvlinks", links ? Json(*links) : Json(nullptr)},
                     {"verdict", pci::to_string(p.verdict)},
                     {"reasons", std::move(reasons)}});
  }
  Json nics = Json::object();
  for (std::size_t i = 0; i < t.labels.size(); ++i) {
    if (!t.is_gpu(i)) nics[t.labels[i]] = json_text(t.nic_name(i));
  }
  Json not_known = Json::array();
  for (const std::string& s : v.not_known) not_known.push_back(json_text(s));
  return Json{{"source", "nvidia-smi topo -m"},   {"origin", json_text(t.where.to_string())},
              {"labels", std::move(labels)},      {"matrix", std::move(matrix)},
              {"nic_names", std::move(nics)},     {"pairs", std::move(pairs)},
              {"not_known", std::move(not_known)}};
}

}  // namespace vmxkit::report
