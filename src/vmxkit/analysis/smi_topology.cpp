// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/smi_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace vmxkit::pci {
namespace {

// Adds a reason of `kind` to the verdict, worsened by its effect; the caller sets its facts.
Reason& add(SmiPairVerdict& v, ReasonKind kind, Verdict effect, Traffic traffic) {
  v.verdict = std::max(v.verdict, effect);
  Reason& r = v.reasons.emplace_back();
  r.kind = kind;
  r.effect = effect;
  r.traffic = traffic;
  return r;
}

// The reason of a pair by its cell, as topo judges a PCI host's path.
void judge_cell(SmiPairVerdict& v, bool gpu_gpu) {
  const Traffic traffic = gpu_gpu ? Traffic::gpu_p2p : Traffic::gpudirect_rdma;
  if (const auto links = nvlink_count(v.cell); links && gpu_gpu) {
    add(v, ReasonKind::nvlink, Verdict::ok, traffic).nvlinks = *links;
    return;
  }
  const auto cls = parse_path_class(v.cell);
  if (!cls || *cls == PathClass::self || *cls == PathClass::unknown) {
    add(v, ReasonKind::path_unknown, Verdict::degraded, traffic);
    return;
  }
  switch (*cls) {
    case PathClass::pix:
    case PathClass::pxb:
      add(v, ReasonKind::path, Verdict::ok, traffic);
      break;
    case PathClass::phb:
    case PathClass::node:
      add(v, ReasonKind::path, Verdict::degraded, traffic);
      break;
    default:
      // Whether NCCL's AMD rule applies: the matrix does not name the CPU.
      add(v, ReasonKind::path, Verdict::unsupported, traffic).amd_two_gpus =
          gpu_gpu ? AmdTwoGpus::cpu_unknown : AmdTwoGpus::no;
      break;
  }
}

std::vector<std::string> not_known_lines() {
  // Long lines are split on purpose. NOLINTBEGIN(bugprone-suspicious-missing-comma)
  return {
      "PCI addresses: the GPUs and NICs cannot be named by BDF, so `lint --host` cannot place a "
      "VM's pciPassthruN.id on this input alone (give the host's `lspci -vvv` with it: GPU i is "
      "the i-th NVIDIA GPU in PCI address order)",
      "ACS redirect on the paths and ATS on the NICs (TOPO006, TOPO007): `lspci -vvv` as root",
      "BAR sizes (BAR1 limits GPUDirect RDMA; `vmxkit mmio`): `lspci -vvv` or the kernel log",
      "GPU and NIC models (GPUDirect support, TOPO008): `lspci -nn` or `lspci -vvv`",
      "the CPU vendor (NCCL allows GPU P2P up to SYS between at most 2 GPUs on AMD CPUs): "
      "`lspci -vvv`"};
  // NOLINTEND(bugprone-suspicious-missing-comma)
}

}  // namespace

std::optional<PathClass> parse_path_class(std::string_view cell) {
  if (cell == "X") return PathClass::self;
  if (cell == "PIX") return PathClass::pix;
  if (cell == "PXB") return PathClass::pxb;
  if (cell == "PHB") return PathClass::phb;
  if (cell == "NODE") return PathClass::node;
  if (cell == "SYS" || cell == "SOC") return PathClass::sys;
  return std::nullopt;
}

SmiMatrixVerdicts judge_smi_matrix(const SmiTopo& t) {
  SmiMatrixVerdicts out;
  std::vector<std::size_t> gpus;
  std::vector<std::size_t> nics;
  for (std::size_t i = 0; i < t.labels.size(); ++i) (t.is_gpu(i) ? gpus : nics).push_back(i);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      SmiPairVerdict v{gpus[i], gpus[j], t.cells[gpus[i]][gpus[j]], Verdict::ok, {}};
      judge_cell(v, true);
      out.pairs.push_back(std::move(v));
    }
  }
  for (const std::size_t g : gpus) {
    std::optional<std::tuple<Verdict, PathClass, std::size_t>> best;
    for (const std::size_t n : nics) {
      SmiPairVerdict v{g, n, t.cells[g][n], Verdict::ok, {}};
      judge_cell(v, false);
      const auto key =
          std::make_tuple(v.verdict, parse_path_class(v.cell).value_or(PathClass::unknown), n);
      if (!best || key < *best) best = key;
      out.pairs.push_back(std::move(v));
    }
    out.best_nic.push_back(best ? std::optional(std::get<2>(*best)) : std::nullopt);
  }
  out.not_known = not_known_lines();
  return out;
}

bool smi_only(const Host& host) {
  if (!host.smi_topo()) return false;
  const auto& d = host.devices();
  return std::none_of(d.begin(), d.end(), [](const Device& x) {
    return x.role == Role::gpu || x.role == Role::rdma_nic || x.role == Role::nic_vf;
  });
}

std::vector<std::string> smi_warnings(const Host& host, std::size_t limit) {
  std::vector<std::string> out;
  if (!host.smi_topo()) return out;
  if (!host.smi_mismatch().empty()) out.push_back(host.smi_mismatch());
  const SmiTopo& t = *host.smi_topo();
  const auto& dev = host.smi_devices();
  std::size_t more = 0;
  for (std::size_t i = 0; i < dev.size(); ++i) {
    for (std::size_t j = i + 1; j < dev.size(); ++j) {
      if (!dev[i] || !dev[j]) continue;
      const auto said = parse_path_class(t.cells[i][j]);
      const PathClass tree = path_class(host, *dev[i], *dev[j]);
      if (!said || tree == PathClass::unknown || *said == tree) continue;
      if (out.size() >= limit) {
        ++more;
        continue;
      }
      out.push_back(fmt::format(
          "{}: nvidia-smi topo -m says {} between {} ({}) and {} ({}), the PCI inputs give {}",
          t.where.to_string(), t.cells[i][j], t.labels[i], host.at(*dev[i]).bdf.to_string(),
          t.labels[j], host.at(*dev[j]).bdf.to_string(), to_string(tree)));
    }
  }
  if (more > 0)
    out.push_back(
        fmt::format("{} more pairs where nvidia-smi topo -m and the PCI inputs disagree", more));
  return out;
}

}  // namespace vmxkit::pci
