// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/plan_json.h"

#include <fmt/format.h>

namespace vmxkit::report {
namespace {

Json texts(const std::vector<std::string>& strings) {
  Json array = Json::array();
  for (const std::string& s : strings) array.push_back(json_text(s));
  return array;
}

Json devices_json(const std::vector<PlannedDevice>& devices) {
  Json list = Json::array();
  for (const PlannedDevice& d : devices) {
    list.push_back({{"address", d.address ? Json(d.address->to_string()) : Json(nullptr)},
                    {"vendor_id", fmt::format("{:04x}", d.vendor_id)},
                    {"device_id", fmt::format("{:04x}", d.device_id)},
                    {"sriov_vf", d.sriov_vf},
                    {"label", json_text(d.label)},
                    {"model", optional_text(d.model)}});
  }
  return list;
}

// A pair and, with a host, its verdict: the path class and why, and the reasons behind it.
Json pair_json(const PlannedPair& p) {
  Json pair{{"gpu", p.gpu}, {"peer", p.peer}, {"peer_is_gpu", p.peer_is_gpu}};
  if (!p.verdict) {
    pair["path"] = nullptr;
    pair["detail"] = nullptr;
    pair["verdict"] = nullptr;
    pair["reasons"] = Json::array();
    return pair;
  }
  const PairReport& v = *p.verdict;
  pair["path"] = std::string(to_string(v.path));
  pair["detail"] = optional_text(v.path_detail);
  pair["verdict"] = std::string(to_string(v.verdict));
  Json reasons = Json::array();
  for (const PairReason& r : v.reasons) {
    reasons.push_back({{"effect", std::string(to_string(r.effect))},
                       {"text", json_text(r.text)},
                       {"fix", optional_text(r.fix)}});
  }
  pair["reasons"] = std::move(reasons);
  return pair;
}

// The members and their names are those of `vmxkit mmio --format json`.
Json mmio_json(const MmioSize& m) {
  Json bars = Json::array();
  for (const MmioBar& b : m.bars) {
    bars.push_back({{"device", json_text(b.device)},
                    {"bar", json_text(b.bar)},
                    {"size", b.size},
                    {"offset", b.offset},
                    {"source", json_text(b.source)}});
  }
  return Json{
      {"size_gb", m.size_gb},          {"kb323402_gb", m.kb_gb ? Json(*m.kb_gb) : Json(nullptr)},
      {"estimated", m.estimated},      {"total_bytes", m.total_bytes},
      {"bars", std::move(bars)},       {"unknown", texts(m.unknown)},
      {"below_4g", texts(m.below_4g)}, {"lines", texts(m.lines)}};
}

}  // namespace

Json plan_json(const Plan& plan, const PlanOutput& output,
               const std::vector<std::string>& warnings) {
  Json pairs = Json::array();
  for (const PlannedPair& p : plan.pairs()) pairs.push_back(pair_json(p));
  return Json{
      {"schema", kPlanJsonSchema},
      {"tool", "vmxkit"},
      {"version", std::string(version())},
      {"output",
       {{"format", output.format},
        {"path", output.path ? Json(json_text(*output.path)) : Json(nullptr)}}},
      {"gpus", devices_json(plan.gpus())},
      {"nics", devices_json(plan.nics())},
      {"pairs", std::move(pairs)},
      {"vgpu", plan.vgpu() ? Json(json_text(*plan.vgpu())) : Json(nullptr)},
      {"memory_mb", plan.memory_mb()},
      {"mmio", mmio_json(plan.mmio())},
      {"needs_64bit_mmio", plan.needs_64bit_mmio()},
      {"p2p", plan.p2p()},
      {"explanation", texts(plan.explanation())},
      {"warnings", texts(warnings)},
  };
}

}  // namespace vmxkit::report
