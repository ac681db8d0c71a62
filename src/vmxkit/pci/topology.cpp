// SPDX-License-Identifier: Apache-2.0
// Path classes follow nvidia-smi's legend; the rules are in the topology reference §2 and §7.
#include "vmxkit/pci/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace vmxkit::pci {
namespace {

constexpr std::uint64_t kSmallBar1 = std::uint64_t{256} << 20;

std::vector<std::size_t> chain(const Host& host, std::size_t i) {
  std::vector<std::size_t> up;
  for (auto p = host.at(i).parent; p; p = host.at(*p).parent) up.push_back(*p);
  return up;
}

bool counts_as_switch(const Device& d) {
  return d.port_type == PortType::upstream_port || d.port_type == PortType::pcie_to_pci_bridge;
}

std::optional<std::uint64_t> bar1_size(const Device& gpu) {
  if (const Bar* b = gpu.bar(1); b && b->size) return b->size;
  if (gpu.model && gpu.model->bar1_bytes) return gpu.model->bar1_bytes;
  return std::nullopt;
}

// The NIC whose ATS matters: itself, or its PF.
const Device& ats_owner(const Host& host, const Device& nic) {
  if (nic.ats_present || !nic.physfn) return nic;
  return host.at(*nic.physfn);
}

void add(PairVerdict& v, ReasonKind kind, Verdict effect, std::string text, std::string fix = {}) {
  v.reasons.push_back(Reason{kind, effect, std::move(text), std::move(fix)});
  v.verdict = std::max(v.verdict, effect);
}

}  // namespace

std::string_view to_string(PathClass cls) {
  switch (cls) {
    case PathClass::self: return "X";
    case PathClass::pix: return "PIX";
    case PathClass::pxb: return "PXB";
    case PathClass::phb: return "PHB";
    case PathClass::node: return "NODE";
    case PathClass::sys: return "SYS";
    case PathClass::unknown: return "?";
  }
  return "?";
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok: return "ok";
    case Verdict::degraded: return "degraded";
    case Verdict::unsupported: return "unsupported";
  }
  return "unsupported";
}

std::string_view to_string(ReasonKind kind) {
  switch (kind) {
    case ReasonKind::path: return "path";
    case ReasonKind::path_unknown: return "path-unknown";
    case ReasonKind::acs_redirect: return "acs-redirect";
    case ReasonKind::gpu_no_gdr: return "gpu-no-gpudirect";
    case ReasonKind::nic_no_gdr: return "nic-no-gpudirect";
    case ReasonKind::gdr_unknown: return "gpudirect-unknown";
    case ReasonKind::small_bar1: return "small-bar1";
    case ReasonKind::iommu_translating: return "iommu-translating";
    case ReasonKind::vf: return "vf";
    case ReasonKind::ats_disabled: return "ats-disabled";
  }
  return "path";
}

Path classify(const Host& host, std::size_t a, std::size_t b) {
  Path path;
  const Device& da = host.at(a);
  const Device& db = host.at(b);
  if (a == b) {
    path.cls = PathClass::self;
    return path;
  }
  const std::vector<std::size_t> up_a = chain(host, a);
  const std::vector<std::size_t> up_b = chain(host, b);
  if (da.bdf.same_device(db.bdf)) {
    path.cls = PathClass::pix;
    path.detail = "functions of one device";
    return path;
  }
  // Lowest common bridge.
  std::optional<std::size_t> pos_a;
  std::optional<std::size_t> pos_b;
  for (std::size_t j = 0; j < up_b.size() && !pos_a; ++j) {
    for (std::size_t i = 0; i < up_a.size(); ++i) {
      if (up_a[i] == up_b[j]) {
        pos_a = i;
        pos_b = j;
        break;
      }
    }
  }
  if (pos_a) {
    path.common = up_a[*pos_a];
    for (std::size_t i = 0; i <= *pos_a; ++i) path.bridges.push_back(up_a[i]);
    for (std::size_t j = *pos_b; j-- > 0;) path.bridges.push_back(up_b[j]);
    for (const std::size_t br : path.bridges) {
      if (counts_as_switch(host.at(br))) ++path.switches;
    }
    path.cls = path.switches <= 1 ? PathClass::pix : PathClass::pxb;
    path.detail = path.switches <= 1
                      ? fmt::format("through one switch below {}", host.at(*path.common).bdf.to_string())
                      : fmt::format("through {} switch levels, meeting at {}", path.switches,
                                    host.at(*path.common).bdf.to_string());
  } else {
    path.bridges = up_a;
    for (auto it = up_b.rbegin(); it != up_b.rend(); ++it) path.bridges.push_back(*it);
    if (!da.root || !db.root) {
      path.cls = PathClass::unknown;
      path.detail = fmt::format("{} is not placed in the tree", (!da.root ? da : db).bdf.to_string());
    } else if (*da.root == *db.root) {
      path.cls = PathClass::phb;
      path.detail = fmt::format("through host bridge {}", host.roots()[*da.root].to_string());
    } else {
      const RootBus& ra = host.roots()[*da.root];
      const RootBus& rb = host.roots()[*db.root];
      const auto na = da.numa_node ? da.numa_node : ra.numa_node;
      const auto nb = db.numa_node ? db.numa_node : rb.numa_node;
      if (na && nb) {
        path.cls = *na == *nb ? PathClass::node : PathClass::sys;
        path.detail = *na == *nb ? fmt::format("host bridges {} and {}, both on NUMA node {}",
                                               ra.to_string(), rb.to_string(), *na)
                                 : fmt::format("host bridges {} (NUMA node {}) and {} (NUMA node {})",
                                               ra.to_string(), *na, rb.to_string(), *nb);
      } else {
        path.cls = PathClass::unknown;
        path.detail = fmt::format("host bridges {} and {}; NODE or SYS: no NUMA node known for {}",
                                  ra.to_string(), rb.to_string(), (!na ? da : db).bdf.to_string());
      }
    }
  }
  for (const std::size_t br : path.bridges) {
    if (path.common && br == *path.common) continue;
    const Device& d = host.at(br);
    if (d.acs && d.acs->redirects_p2p()) path.acs_redirect.push_back(br);
  }
  return path;
}

PairVerdict judge_pair(const Host& host, std::size_t a, std::size_t b, const AnalysisOptions& options) {
  PairVerdict v;
  v.a = a;
  v.b = b;
  v.path = classify(host, a, b);
  const Device& da = host.at(a);
  const Device& db = host.at(b);
  const bool gpu_gpu = da.role == Role::gpu && db.role == Role::gpu;
  const std::string_view what = gpu_gpu ? "GPU P2P" : "GPUDirect RDMA";
  switch (v.path.cls) {
    case PathClass::self:
    case PathClass::pix:
    case PathClass::pxb:
      add(v, ReasonKind::path, Verdict::ok,
          fmt::format("{}: {}; {} stays below the host bridge", to_string(v.path.cls), v.path.detail, what));
      break;
    case PathClass::phb:
    case PathClass::node:
      add(v, ReasonKind::path, Verdict::degraded,
          fmt::format("{}: {}; {} goes through the CPU (works, P2P reads are slow; NCCL's default "
                      "level PXB will not use it)",
                      to_string(v.path.cls), v.path.detail, what),
          "place both devices under one PCIe switch");
      break;
    case PathClass::sys:
      add(v, ReasonKind::path, Verdict::unsupported,
          fmt::format("SYS: {}; {} across the SMP interconnect is not supported", v.path.detail, what),
          "use devices on one NUMA node, best under one PCIe switch");
      break;
    case PathClass::unknown:
      add(v, ReasonKind::path_unknown, Verdict::degraded,
          fmt::format("path class unknown: {}", v.path.detail),
          "add `numactl --hardware` output (on ESXi: `esxcli hardware memory get`) or lspci -vvv "
          "with NUMA node lines");
      break;
  }
  if (!v.path.acs_redirect.empty()) {
    std::string bits;
    for (const std::size_t br : v.path.acs_redirect) {
      bits += fmt::format("{}{} ({})", bits.empty() ? "" : ", ", host.at(br).bdf.to_string(),
                          host.at(br).acs->ctl_text());
    }
    add(v, ReasonKind::acs_redirect, Verdict::degraded,
        fmt::format("ACS redirects P2P to the root complex on {}", bits),
        fmt::format("on bare metal: setpci -s {} ECAP_ACS+0x6.w=0000 (or disable ACS/IOMMU in "
                    "firmware); in a VM keep ACS and enable ATS on the NIC",
                    host.at(v.path.acs_redirect.front()).bdf.to_string()));
  }
  for (const Device* d : {&da, &db}) {
    if (d->role == Role::gpu) {
      if (d->model && d->model->gdr == GdrSupport::no) {
        add(v, ReasonKind::gpu_no_gdr, Verdict::unsupported,
            fmt::format("{} ({}) has no GPUDirect RDMA/P2P support", d->bdf.to_string(), d->model->model),
            "use a data-center or professional GPU");
      } else if (!d->model) {
        add(v, ReasonKind::gdr_unknown, Verdict::ok,
            fmt::format("{}: GPU model not in the catalogue; GPUDirect support not known", d->bdf.to_string()),
            "add the model with --catalog FILE");
      }
      if (const auto bar1 = bar1_size(*d); bar1 && *bar1 <= kSmallBar1) {
        add(v, ReasonKind::small_bar1, Verdict::degraded,
            fmt::format("{} has a {} BAR1: GPUDirect can map only that much GPU memory at once",
                        d->bdf.to_string(), format_size(*bar1)),
            "enable a large BAR1 (Resizable BAR in firmware, or NVIDIA Display Mode Selector)");
      }
    } else {
      if (d->model && d->model->gdr == GdrSupport::no) {
        add(v, ReasonKind::nic_no_gdr, Verdict::unsupported,
            fmt::format("{} ({}) has no GPUDirect RDMA support", d->bdf.to_string(), d->model->model));
      } else if (d->role == Role::nic || !d->model || d->model->gdr == GdrSupport::unknown) {
        add(v, ReasonKind::gdr_unknown, d->role == Role::nic ? Verdict::unsupported : Verdict::ok,
            fmt::format("{}: GPUDirect RDMA support of this NIC is not known{}", d->bdf.to_string(),
                        d->role == Role::nic ? " (not an RDMA NIC)" : ""));
      }
      if (d->role == Role::nic_vf) {
        add(v, ReasonKind::vf, Verdict::ok,
            d->physfn ? fmt::format("{} is an SR-IOV VF of {}; it shares the PF's path",
                                    d->bdf.to_string(), host.at(*d->physfn).bdf.to_string())
                      : fmt::format("{} is an SR-IOV VF; it shares its PF's path", d->bdf.to_string()));
      }
      const Device& owner = ats_owner(host, *d);
      if (owner.ats_present && owner.ats_enabled == false) {
        add(v, ReasonKind::ats_disabled, Verdict::degraded,
            fmt::format("ATS is off on {} (ATSCtl Enable-): in a VM, where ACS stays on, P2P goes "
                        "through the root complex",
                        owner.bdf.to_string()),
            fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host", owner.bdf.to_string()));
      }
    }
  }
  if (options.iommu_translating == true) {
    add(v, ReasonKind::iommu_translating, Verdict::degraded,
        "the IOMMU translates DMA (not off or pass-through): on bare metal peer traffic is routed "
        "through the root complex",
        "add iommu=pt to the kernel command line (bare metal)");
  }
  return v;
}

std::string Topology::label(std::size_t i) const {
  return i < gpus.size() ? fmt::format("GPU{}", i) : fmt::format("NIC{}", i - gpus.size());
}

Topology analyze(const Host& host, const AnalysisOptions& options) {
  Topology t;
  for (std::size_t i = 0; i < host.devices().size(); ++i) {
    const Role r = host.at(i).role;
    if (r == Role::gpu) t.gpus.push_back(i);
    if (r == Role::rdma_nic || r == Role::nic_vf || (options.all_nics && r == Role::nic)) t.nics.push_back(i);
  }
  const std::size_t n = t.size();
  t.matrix.assign(n, std::vector<PathClass>(n, PathClass::unknown));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) {
      const PathClass c = classify(host, t.device(i), t.device(j)).cls;
      t.matrix[i][j] = c;
      t.matrix[j][i] = c;
    }
  }
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < t.gpus.size(); ++j) {
      t.pairs.push_back(judge_pair(host, t.gpus[i], t.gpus[j], options));
    }
  }
  t.best_nic.assign(t.gpus.size(), std::nullopt);
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    std::optional<std::tuple<Verdict, PathClass, std::size_t, std::size_t>> best;
    for (std::size_t j = 0; j < t.nics.size(); ++j) {
      PairVerdict v = judge_pair(host, t.gpus[i], t.nics[j], options);
      const auto bad = static_cast<std::size_t>(std::count_if(
          v.reasons.begin(), v.reasons.end(), [](const Reason& r) { return r.effect != Verdict::ok; }));
      const auto key = std::make_tuple(v.verdict, v.path.cls, bad, j);
      if (!best || key < *best) best = key;
      t.pairs.push_back(std::move(v));
    }
    if (best) t.best_nic[i] = std::get<3>(*best);
  }
  return t;
}

std::string render_topology_text(const Host& host, const Topology& t) {
  std::string out;
  const std::size_t n = t.size();
  for (std::size_t i = 0; i < n; ++i) out += "\t" + t.label(i);
  out += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  bool any_unknown = false;
  for (std::size_t i = 0; i < n; ++i) {
    out += t.label(i);
    for (std::size_t j = 0; j < n; ++j) {
      const PathClass c = t.matrix[i][j];
      any_unknown = any_unknown || c == PathClass::unknown;
      out += c == PathClass::self ? "\t X " : fmt::format("\t{}", to_string(c));
    }
    if (i < t.gpus.size()) {
      const Device& d = host.at(t.device(i));
      std::string cpus = "N/A";
      if (d.numa_node) {
        if (const auto it = host.numa().cpus.find(*d.numa_node); it != host.numa().cpus.end()) cpus = it->second;
      }
      out += fmt::format("\t{}\t{}\t\tN/A", cpus, d.numa_node ? std::to_string(*d.numa_node) : "N/A");
    }
    out += '\n';
  }
  out +=
      "\nLegend:\n\n"
      "  X    = Self\n"
      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n";
  if (any_unknown) out += "  ?    = NODE or SYS: no NUMA node is known for a host bridge (or a device is not placed)\n";
  auto legend = [&](std::size_t i) {
    const Device& d = host.at(t.device(i));
    std::string name = d.rdma_name.empty() ? d.bdf.to_string() : d.rdma_name + " " + d.bdf.to_string();
    if (d.model) {
      name += " " + d.model->model;
    } else if (!d.name.empty()) {
      name += " " + d.name;
    }
    if (d.role == Role::nic_vf) name += " (VF)";
    return fmt::format("  {}: {}\n", t.label(i), name);
  };
  if (!t.nics.empty()) {
    out += "\nNIC Legend:\n\n";
    for (std::size_t i = t.gpus.size(); i < n; ++i) out += legend(i);
  }
  if (!t.gpus.empty()) {
    out += "\nGPU Legend:\n\n";
    for (std::size_t i = 0; i < t.gpus.size(); ++i) out += legend(i);
  }
  if (!t.pairs.empty()) out += "\nP2P verdicts:\n";
  auto label_of = [&](std::size_t dev) {
    for (std::size_t i = 0; i < n; ++i) {
      if (t.device(i) == dev) return t.label(i);
    }
    return host.at(dev).bdf.to_string();
  };
  for (const PairVerdict& v : t.pairs) {
    out += fmt::format("\n  {} <-> {}  {}  {}\n", label_of(v.a), label_of(v.b), to_string(v.path.cls),
                       to_string(v.verdict));
    for (const Reason& r : v.reasons) {
      out += fmt::format("    - {}\n", r.text);
      if (!r.fix.empty() && r.effect != Verdict::ok) out += fmt::format("      fix: {}\n", r.fix);
    }
  }
  if (!t.gpus.empty() && !t.nics.empty()) {
    out += "\nBest NIC per GPU:\n\n";
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      const std::size_t j = *t.best_nic[i];
      const PathClass c = t.matrix[i][t.gpus.size() + j];
      Verdict verdict = Verdict::ok;
      for (const PairVerdict& v : t.pairs) {
        if (v.a == t.gpus[i] && v.b == t.nics[j]) verdict = v.verdict;
      }
      out += fmt::format("  GPU{}: NIC{} ({}, {}, {})\n", i, j, host.at(t.nics[j]).bdf.to_string(),
                         to_string(c), to_string(verdict));
    }
  }
  return out;
}

}  // namespace vmxkit::pci
