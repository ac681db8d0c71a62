// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/topology_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "vmxkit/analysis/nvlink_note.h"
#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/checks/path_detail.h"
#include "vmxkit/report/pair_reason.h"
#include "vmxkit/report/topology_text.h"

namespace vmxkit::report {
namespace {

Json device_json(const pci::Host& host, const pci::Topology& t, std::size_t i) {
  const pci::Device& d = host.at(t.device(i));
  return Json{{"label", t.label(i)},
              {"bdf", d.bdf.to_string()},
              {"role", pci::to_string(d.role)},
              {"model", d.model ? Json(json_text(d.model->model)) : Json(nullptr)},
              {"name", json_text(d.name)},
              {"vendor_device", d.vendor_id && d.device_id
                                    ? Json(fmt::format("{:04x}:{:04x}", *d.vendor_id, *d.device_id))
                                    : Json(nullptr)},
              {"numa_node", d.numa_node ? Json(*d.numa_node) : Json(nullptr)},
              {"numa_inferred", d.numa_inferred},
              {"rdma_name", optional_text(d.rdma_name)}};
}

Json bdfs(const pci::Host& host, const std::vector<std::size_t>& devices) {
  Json list = Json::array();
  for (const std::size_t b : devices) list.push_back(host.at(b).bdf.to_string());
  return list;
}

Json pairs_json(const pci::Host& host, const pci::Topology& t) {
  std::vector<std::size_t> position(host.devices().size(), t.size());
  for (std::size_t i = 0; i < t.size(); ++i) position[t.device(i)] = i;
  auto label_of = [&](std::size_t dev) {
    return position[dev] < t.size() ? t.label(position[dev]) : host.at(dev).bdf.to_string();
  };
  Json pairs = Json::array();
  for (const pci::PairVerdict& v : t.pairs) {
    Json reasons = Json::array();
    for (const pci::Reason& r : v.reasons) {
      reasons.push_back({{"kind", pci::to_string(r.kind)},
                         {"effect", pci::to_string(r.effect)},
                         {"text", json_text(reason_text(host, v, r))},
                         {"fix", optional_text(reason_fix(host, v, r))}});
    }
    pairs.push_back({{"a", label_of(v.a)},
                     {"b", label_of(v.b)},
                     {"path", pci::to_string(v.path.cls)},
                     {"detail", json_text(checks::path_detail(host, v.path))},
                     {"bridges", bdfs(host, v.path.bridges)},
                     {"switches", v.path.switches},
                     {"acs_redirect", bdfs(host, v.path.acs_redirect)},
                     {"nvlinks", v.nvlinks ? Json(*v.nvlinks) : Json(nullptr)},
                     {"verdict", pci::to_string(v.verdict)},
                     {"reasons", std::move(reasons)}});
  }
  return pairs;
}

// A large host: each GPU's nearest peers instead of the matrix and the pairs.
Json nearest_json(const pci::Topology& t) {
  auto peers = [&](const std::vector<pci::Peer>& list, std::size_t offset) {
    Json out = Json::array();
    for (const pci::Peer& p : list) {
      out.push_back({{"label", t.label(offset + p.index)},
                     {"path", pci::to_string(p.cls)},
                     {"nvlinks", p.nvlinks ? Json(*p.nvlinks) : Json(nullptr)},
                     {"verdict", pci::to_string(p.verdict)}});
    }
    return out;
  };
  Json nearest = Json::array();
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    nearest.push_back({{"gpu", t.label(i)},
                       {"nics", peers(t.nearest[i].nics, t.gpus.size())},
                       {"gpus", peers(t.nearest[i].gpus, 0)}});
  }
  return nearest;
}

// GPUs whose NVLink the PCI inputs cannot show (pci::nvlink_notes), one object per model.
Json nvlink_notes_json(const pci::Host& host, const pci::Topology& t) {
  Json notes = Json::array();
  for (const pci::NvlinkNote& note : pci::nvlink_notes(host, t.gpus)) {
    Json labels = Json::array();
    for (const std::size_t g : note.gpus) {
      const auto it = std::find(t.gpus.begin(), t.gpus.end(), g);
      labels.push_back(t.label(static_cast<std::size_t>(it - t.gpus.begin())));
    }
    const std::optional<unsigned> width = note.model->nvlink_bridge_gpus;
    notes.push_back({{"model", json_text(note.model->model)},
                     {"vendor_device", note.model->id_string()},
                     {"nvlink", pci::to_string(note.kind)},
                     {"bridge_gpus", width ? Json(*width) : Json(nullptr)},
                     {"gpus", std::move(labels)},
                     {"bdfs", bdfs(host, note.gpus)},
                     {"source", json_text(note.source)},
                     {"text", json_text(nvlink_note_text(host, note))}});
  }
  return notes;
}

}  // namespace

Json topology_json(const pci::Host& host, const pci::Topology& t) {
  Json gpus = Json::array();
  for (std::size_t i = 0; i < t.gpus.size(); ++i) gpus.push_back(device_json(host, t, i));
  Json nics = Json::array();
  for (std::size_t i = t.gpus.size(); i < t.size(); ++i) nics.push_back(device_json(host, t, i));
  Json matrix = t.listed ? Json(nullptr) : Json::array();
  for (std::size_t i = 0; i < t.matrix.size(); ++i) {
    Json cells = Json::array();
    for (std::size_t j = 0; j < t.matrix.size(); ++j) cells.push_back(t.cell_text(i, j));
    matrix.push_back(std::move(cells));
  }
  Json best_nic = Json::object();
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    best_nic[t.label(i)] =
        t.best_nic[i] ? Json(t.label(t.gpus.size() + *t.best_nic[i])) : Json(nullptr);
  }
  Json warnings = Json::array();
  for (const pci::HostWarning& w : host.warnings()) warnings.push_back(json_text(w.to_string()));
  for (const std::string& w : pci::smi_warnings(host)) warnings.push_back(json_text(w));
  Json doc = {{"gpus", std::move(gpus)},         {"nics", std::move(nics)},
              {"matrix", std::move(matrix)},     {"pairs", pairs_json(host, t)},
              {"best_nic", std::move(best_nic)}, {"nvlink_notes", nvlink_notes_json(host, t)},
              {"warnings", std::move(warnings)}};
  if (t.listed) {
    doc["note"] = listing_note(t);
    doc["nearest"] = nearest_json(t);
  }
  return doc;
}

}  // namespace vmxkit::report
