// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/pair_reason.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cassert>
#include <string_view>
#include <vector>

#include "vmxkit/checks/path_detail.h"
#include "vmxkit/devices/catalog.h"

namespace vmxkit::report {
// The file's own names (a namespace of its own, so that a unity build of report/ meets no other
// file's helpers).
namespace pair_reason {
using namespace vmxkit::pci;

namespace {

constexpr std::string_view kThroughCpu =
    "goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)";
constexpr std::string_view kAcrossSockets = "across the SMP interconnect is not supported";
constexpr std::string_view kOneSwitchFix = "place both devices under one PCIe switch";
constexpr std::string_view kOneNodeFix = "use devices on one NUMA node, best under one PCIe switch";

std::string_view traffic_name(Traffic traffic) {
  return traffic == Traffic::gpu_p2p ? "GPU P2P" : "GPUDirect RDMA";
}

std::string bdf_of(const Host& host, std::size_t device) { return host.at(device).bdf.to_string(); }

// The device a reason is about, which every reason of its kind names.
const Device& subject_of(const Host& host, const Reason& r) {
  assert(r.subject);
  return host.at(*r.subject);
}

// A path reason of a PCI host: its class and detail, as NCCL would use the path.
std::string path_text(const Host& host, const PairVerdict& v, const Reason& r) {
  const Path& p = v.path;
  const std::string detail = checks::path_detail(host, p);
  const std::string_view cls = to_string(p.cls);
  if (r.amd_two_gpus == AmdTwoGpus::used) {
    return fmt::format(
        "{}: {}; GPU P2P goes through the CPU{}: NCCL uses it all the same, as it allows P2P up "
        "to SYS between at most 2 GPUs on AMD CPUs",
        cls, detail, p.cls == PathClass::sys ? " and across the sockets" : "");
  }
  switch (p.cls) {
    case PathClass::phb:
    case PathClass::node:
      return fmt::format("{}: {}; {} {}", cls, detail, traffic_name(r.traffic), kThroughCpu);
    case PathClass::sys:
      return fmt::format("SYS: {}; {} {}", detail, traffic_name(r.traffic), kAcrossSockets);
    default:
      break;
  }
  return fmt::format("{}: {}; {} stays below the host bridge{}", cls, detail,
                     traffic_name(r.traffic),
                     r.bcm_flattened ? "; NCCL counts the two levels of this Broadcom PEX switch "
                                       "as one (ncclTopoFlattenBcmSwitches) and sees PIX"
                                     : "");
}

// The redirecting bridges of the pair's path, each with its ACSCtl.
std::string redirecting_bridges(const Host& host, const PairVerdict& v) {
  std::vector<std::string> bits;
  bits.reserve(v.path.acs_redirect.size());
  for (const std::size_t br : v.path.acs_redirect) {
    bits.push_back(fmt::format("{} ({})", bdf_of(host, br), host.at(br).acs->ctl_text()));
  }
  return fmt::format("{}", fmt::join(bits, ", "));
}

std::string acs_text(const Host& host, const PairVerdict& v, const Reason& r) {
  if (r.kind == ReasonKind::acs_redirect) {
    return "ACS redirects P2P to the root complex on " + redirecting_bridges(host, v);
  }
  std::vector<std::string> names;
  names.reserve(r.initiators.size());
  for (const std::size_t d : r.initiators) names.push_back(bdf_of(host, d));
  return fmt::format(
      "ACS redirects P2P on {}, but DirectTrans+ there lets the translated requests of {} (ATS "
      "on) go peer to peer, as NVIDIA's VM configuration has it",
      redirecting_bridges(host, v), fmt::join(names, " and "));
}

// A reason about one device of the pair (its model, BAR1, SR-IOV, ATS).
std::string device_text(const Host& host, const Reason& r) {
  const Device& d = subject_of(host, r);
  const std::string bdf = d.bdf.to_string();
  switch (r.kind) {
    case ReasonKind::gpu_no_gdr:
      return fmt::format("{} ({}) has no GPUDirect RDMA/P2P support", bdf, d.model->model);
    case ReasonKind::nic_no_gdr:
      return fmt::format("{} ({}) has no GPUDirect RDMA support", bdf, d.model->model);
    case ReasonKind::gdr_unknown:
      if (d.role == Role::gpu) {
        return bdf + ": GPU model not in the catalogue; GPUDirect support not known";
      }
      return fmt::format("{}: GPUDirect RDMA support of this NIC is not known{}", bdf,
                         d.role == Role::nic ? " (not an RDMA NIC)" : "");
    case ReasonKind::small_bar1:
      return fmt::format("{} has a {} BAR1: GPUDirect can map only that much GPU memory at once",
                         bdf, format_size(r.bar1_bytes));
    case ReasonKind::vf:
      return r.pf ? fmt::format("{} is an SR-IOV VF of {}; it shares the PF's path", bdf,
                                bdf_of(host, *r.pf))
                  : bdf + " is an SR-IOV VF; it shares its PF's path";
    default:  // ats_disabled
      return fmt::format(
          "ATS is off on {} (ATSCtl Enable-): in a VM, where ACS stays on, P2P goes through the "
          "root complex",
          bdf);
  }
}

std::string nvlink_text(const Host& host, const PairVerdict& v, const Reason& r) {
  assert(host.smi_topo());
  return fmt::format(
      "NV{}: joined by {} bonded NVLink{} ({} nvidia-smi topo -m): GPU P2P goes over NVLink, which "
      "NCCL prefers to any PCIe path (PATH_NVL); the PCIe path ({}) does not limit it",
      r.nvlinks, r.nvlinks, r.nvlinks == 1 ? "" : "s", host.smi_topo()->where.to_string(),
      to_string(v.path.cls));
}

// The fix of a path reason: one switch or one NUMA node, and on AMD a VM of the 2 GPUs alone.
std::string path_fix(PathClass cls, const Reason& r) {
  std::string fix;
  if (r.amd_two_gpus == AmdTwoGpus::used) {
    fix = "place both GPUs under one PCIe switch for full P2P bandwidth";
  } else if (cls == PathClass::phb || cls == PathClass::node) {
    fix = kOneSwitchFix;
  } else if (cls == PathClass::sys) {
    fix = kOneNodeFix;
  }
  if (r.amd_two_gpus == AmdTwoGpus::own_vm) {
    fix +=
        "; or give these 2 GPUs a VM of their own: NCCL allows P2P up to SYS on AMD CPUs when it "
        "sees at most 2 GPUs";
  }
  return fix;
}

}  // namespace

std::string reason_words(const Host& host, const PairVerdict& v, const Reason& r) {
  switch (r.kind) {
    case ReasonKind::path:
      return path_text(host, v, r);
    case ReasonKind::path_unknown:
      return "path class unknown: " + checks::path_detail(host, v.path);
    case ReasonKind::acs_redirect:
    case ReasonKind::acs_direct_translated:
      return acs_text(host, v, r);
    case ReasonKind::iommu_translating:
      return "the IOMMU translates DMA (not off or pass-through): on bare metal peer traffic is "
             "routed through the root complex";
    case ReasonKind::nvlink:
      return nvlink_text(host, v, r);
    case ReasonKind::gpu_no_gdr:
    case ReasonKind::nic_no_gdr:
    case ReasonKind::gdr_unknown:
    case ReasonKind::small_bar1:
    case ReasonKind::vf:
    case ReasonKind::ats_disabled:
      return device_text(host, r);
  }
  return {};
}

std::string fix_words(const Host& host, const PairVerdict& v, const Reason& r) {
  switch (r.kind) {
    case ReasonKind::path:
      return path_fix(v.path.cls, r);
    case ReasonKind::path_unknown:
      return "add `numactl --hardware` output (on ESXi: `esxcli hardware memory get`) or lspci "
             "-vvv with NUMA node lines";
    case ReasonKind::acs_redirect:
      return fmt::format(
          "on bare metal: setpci -s {} ECAP_ACS+0x6.w=0000 (or disable ACS/IOMMU in firmware); in "
          "a VM keep ACS, enable ATS on the NIC and DirectTrans on the bridge (NVIDIA's VM "
          "configuration: ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+)",
          bdf_of(host, v.path.acs_redirect.front()));
    case ReasonKind::gpu_no_gdr:
      return "use a data-center or professional GPU";
    case ReasonKind::gdr_unknown:
      if (subject_of(host, r).role == Role::gpu) return "add the model with --catalog FILE";
      return {};
    case ReasonKind::small_bar1:
      return "enable a large BAR1 (Resizable BAR in firmware, or NVIDIA Display Mode Selector)";
    case ReasonKind::ats_disabled:
      return fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host",
                         subject_of(host, r).bdf.to_string());
    case ReasonKind::iommu_translating:
      return "add iommu=pt to the kernel command line (bare metal)";
    case ReasonKind::acs_direct_translated:
    case ReasonKind::nic_no_gdr:
    case ReasonKind::vf:
    case ReasonKind::nvlink:
      return {};
  }
  return {};
}

std::string reason_words(const SmiTopo& t, const SmiPairVerdict& v, const Reason& r) {
  if (r.kind == ReasonKind::nvlink) {
    return fmt::format(
        "{}: joined by {} bonded NVLink{}: GPU P2P goes over NVLink, which NCCL prefers to any "
        "PCIe path (PATH_NVL)",
        v.cell, r.nvlinks, r.nvlinks == 1 ? "" : "s");
  }
  if (r.kind == ReasonKind::path_unknown) {
    return fmt::format("`{}` between {} and {} is not a path class vmxkit knows", v.cell,
                       t.labels[v.a], t.labels[v.b]);
  }
  switch (parse_path_class(v.cell).value_or(PathClass::unknown)) {
    case PathClass::pix:
    case PathClass::pxb:
      return fmt::format("{}: {} stays below the host bridge", v.cell, traffic_name(r.traffic));
    case PathClass::phb:
    case PathClass::node:
      return fmt::format("{}: {} {}", v.cell, traffic_name(r.traffic), kThroughCpu);
    default:
      return fmt::format("SYS: {} {}{}", traffic_name(r.traffic), kAcrossSockets,
                         r.amd_two_gpus == AmdTwoGpus::cpu_unknown
                             ? " (NCCL allows GPU P2P up to SYS between at most 2 GPUs on AMD "
                               "CPUs; the CPU vendor is not in nvidia-smi topo -m)"
                             : "");
  }
}

std::string fix_words(const SmiPairVerdict& v, const Reason& r) {
  if (r.kind != ReasonKind::path) return {};
  switch (parse_path_class(v.cell).value_or(PathClass::unknown)) {
    case PathClass::phb:
    case PathClass::node:
      return std::string(kOneSwitchFix);
    case PathClass::sys:
      return std::string(kOneNodeFix);
    default:
      return {};
  }
}

}  // namespace pair_reason

std::string reason_text(const pci::Host& host, const pci::PairVerdict& verdict,
                        const pci::Reason& reason) {
  return pair_reason::reason_words(host, verdict, reason);
}

std::string reason_fix(const pci::Host& host, const pci::PairVerdict& verdict,
                       const pci::Reason& reason) {
  return pair_reason::fix_words(host, verdict, reason);
}

std::string reason_text(const pci::SmiTopo& topo, const pci::SmiPairVerdict& verdict,
                        const pci::Reason& reason) {
  return pair_reason::reason_words(topo, verdict, reason);
}

std::string reason_fix(const pci::SmiTopo& /*topo*/, const pci::SmiPairVerdict& verdict,
                       const pci::Reason& reason) {
  return pair_reason::fix_words(verdict, reason);
}

}  // namespace vmxkit::report
