// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/plan_explanation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <utility>

#include "vmxkit/report/pair_reason.h"
#include "vmxkit/report/topology_text.h"

namespace vmxkit::report {
namespace {

// "GPU0 <-> NIC1": how the explanation and the refusal name a pair of the plan.
std::string pairing_name(const generate::Pairing& p) {
  return fmt::format("GPU{} <-> {}{}", p.gpu, p.peer_is_gpu ? "GPU" : "NIC", p.peer);
}

// Whether the pair's devices are on the host, so that it was judged there (or, for vGPUs,
// left unjudged on purpose).
bool on_host(const pci::Host* host, const generate::Plan& plan, const generate::Pairing& p) {
  const generate::Choice& peer = p.peer_is_gpu ? plan.gpus[p.peer] : plan.nics[p.peer];
  return host != nullptr && plan.gpus[p.gpu].host_index && peer.host_index;
}

// A judged pair: its class and verdict, then each reason and the fix of each that worsens the
// verdict, unless it refuses the plan (the refusal says so).
void add_verdict_lines(const pci::Host& host, const generate::Pairing& p, std::size_t pair,
                       const std::set<std::pair<std::size_t, std::size_t>>& refused,
                       std::vector<std::string>& out) {
  const pci::PairVerdict& v = *p.verdict;
  out.push_back(fmt::format("{}: {} ({})", pairing_name(p), pci::to_string(v.path.cls),
                            pci::to_string(v.verdict)));
  for (std::size_t k = 0; k < v.reasons.size(); ++k) {
    const pci::Reason& r = v.reasons[k];
    out.push_back("  - " + reason_text(host, v, r));
    if (r.effect == pci::Verdict::ok || refused.count({pair, k}) != 0) continue;
    if (const std::string fix = reason_fix(host, v, r); !fix.empty()) {
      out.push_back("    fix: " + fix);
    }
  }
}

}  // namespace

std::vector<std::string> plan_pair_lines(const pci::Host* host, const generate::Plan& plan) {
  std::set<std::pair<std::size_t, std::size_t>> refused;
  for (const generate::Refusal& r : plan.refusals) {
    if (r.reason) refused.emplace(r.pair, *r.reason);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < plan.pairs.size(); ++i) {
    const generate::Pairing& p = plan.pairs[i];
    if (!on_host(host, plan, p)) {
      out.push_back(fmt::format("{}: path not checked (no host capture)", pairing_name(p)));
    } else if (!p.verdict) {
      out.push_back(fmt::format(
          "{}: no P2P over PCIe between vGPUs (NVIDIA: \"P2P transfers over PCIe are not "
          "supported\"); only time-sliced vGPUs that each use a whole NVLink-capable GPU's "
          "framebuffer get P2P, over NVLink",
          pairing_name(p)));
    } else {
      add_verdict_lines(*host, p, i, refused, out);
    }
  }
  if (host != nullptr) {
    for (const pci::NvlinkNote& n : plan.nvlink_notes) {
      out.push_back("note: " + nvlink_note_text(*host, n));
    }
  }
  return out;
}

std::string plan_refusal_text(const pci::Host* host, const generate::Plan& plan) {
  if (plan.refusals.empty()) return {};
  std::vector<std::string> refused;
  for (const generate::Refusal& r : plan.refusals) {
    const generate::Pairing& p = plan.pairs[r.pair];
    if (!r.reason || host == nullptr) {
      refused.push_back(fmt::format("{}: {} has no GPUDirect RDMA/P2P support", pairing_name(p),
                                    plan.gpus[p.gpu].model->model));
      continue;
    }
    const pci::PairVerdict& v = *p.verdict;
    refused.push_back(fmt::format("{}: {}{}", pairing_name(p),
                                  reason_text(*host, v, v.reasons[*r.reason]),
                                  r.degraded ? " (pass --allow-degraded to accept it)" : ""));
  }
  // A nearer device that `auto` left out because the host has not readied it is the way out.
  std::string skipped;
  for (const std::string& s : plan.not_ready) skipped += "\nskipped (not ready): " + s;
  std::string fewer;
  if (const std::size_t count = plan.well_connected_gpus; count > 0) {
    fewer = fmt::format(
        "\n--gpu auto takes all {} GPUs; {} of them {} a NIC on a supported path: take the "
        "best-connected with --gpus N (--gpus {}{})",
        plan.gpus.size(), count, count == 1 ? "has" : "have", count,
        count == 1 ? "" : ", or --gpus 1 for one pair");
  }
  return fmt::format("this configuration cannot do peer-to-peer DMA:\n  {}{}{}",
                     fmt::join(refused, "\n  "), skipped, fewer);
}

}  // namespace vmxkit::report
