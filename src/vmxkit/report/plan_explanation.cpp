// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/plan_explanation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include "vmxkit/checks/mmio_lines.h"
#include "vmxkit/checks/owner_words.h"
#include "vmxkit/formats/vsphere/text_checks.h"
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

// The first lines: the devices `auto` left out as not ready, the host, each device chosen and,
// on a large host, that the GPU pairs are each GPU's nearest ones.
void add_choice_lines(const pci::Host* host, const generate::Plan& plan,
                      std::vector<std::string>& out) {
  for (const generate::DeviceFinding& n : plan.not_ready) {
    out.push_back("skipped (not ready): " + checks::owner_message(n.finding));
    out.push_back("    fix: " + checks::owner_fix(n.finding));
  }
  out.push_back(host != nullptr ? fmt::format("host: {}", plan.host_label)
                                : "no host capture: devices from the catalogue; host addresses "
                                  "are placeholders to fill in");
  for (std::size_t g = 0; g < plan.gpus.size(); ++g) {
    out.push_back(fmt::format("GPU{}: {}{}", g, plan.gpus[g].label,
                              plan.vgpu ? fmt::format(" as vGPU {}", *plan.vgpu) : std::string()));
  }
  for (std::size_t n = 0; n < plan.nics.size(); ++n) {
    out.push_back(fmt::format("NIC{}: {}{}", n, plan.nics[n].label,
                              plan.nics[n].sriov_vf ? " (an SR-IOV VF of it)" : ""));
  }
  if (plan.nearest_pairs) {
    const std::size_t g = plan.gpus.size();
    const auto judged = std::count_if(plan.pairs.begin(), plan.pairs.end(),
                                      [](const generate::Pairing& p) { return p.peer_is_gpu; });
    out.push_back(fmt::format(
        "GPU pairs: {} GPUs and NICs are more than the {} whose every pair is judged (as `vmxkit "
        "topo` prints them); each GPU is judged with its nearest {} GPUs: {} of the {} pairs",
        g + plan.nics.size(), pci::kFullMatrixLimit, pci::kNearestPeers, judged, g * (g - 1) / 2));
  }
}

// "GPU0 (sequenceId 1) + NIC0 (sequenceId 2, as the group's template)": an instance's members.
std::string instance_text(const generate::Plan& plan,
                          const std::vector<generate::GroupMember>& members) {
  std::vector<std::string> parts;
  parts.reserve(members.size());
  for (const generate::GroupMember& m : members) {
    if (m.device < plan.gpus.size()) {
      parts.push_back(fmt::format("GPU{} (sequenceId {})", m.device, m.sequence_id));
      continue;
    }
    std::string as;
    if (m.template_device) {
      as = m.template_device->dvx ? fmt::format(", as the group's template: DVX class {}",
                                                m.template_device->dvx->device_class)
                                  : ", as the group's template";
    }
    parts.push_back(
        fmt::format("NIC{} (sequenceId {}{})", m.device - plan.gpus.size(), m.sequence_id, as));
  }
  return fmt::format("{}", fmt::join(parts, " + "));
}

// The vendor device group's lines: the template vGPUs the plan's replaces, each instance (after
// any of its GPUs the group names otherwise) and how vCenter places them.
void add_group_lines(const generate::Plan& plan, const generate::PlannedGroup& group,
                     std::vector<std::string>& out) {
  const std::string name = vsphere::quote_for_message(group.name);
  for (const std::string& profile : group.replaced_vgpus) {
    out.push_back(fmt::format(
        "device group {}: its template's vGPU is {}; the plan's --vgpu {} is used (the group's "
        "vGPU is configurable)",
        name, profile, *plan.vgpu));
  }
  for (std::size_t i = 0; i < group.instances.size(); ++i) {
    for (const generate::GroupMember& m : group.instances[i]) {
      if (m.other_gpu.empty()) continue;
      out.push_back(fmt::format(
          "device group {}: its vGPU's GPU is {}, GPU{} is {}: vCenter places the group's "
          "vGPU on the group's GPU, which the profile must run on",
          name, m.other_gpu, m.device, plan.gpus[m.device].model->model));
    }
    out.push_back(fmt::format("device group {} #{}: {}", name, i + 1,
                              instance_text(plan, group.instances[i])));
  }
  out.push_back(fmt::format(
      "vGPU placement: vCenter places each instance of {} as a unit, on the devices the "
      "vendor found linked (NVIDIA: device groups \"guarantee correct placement across PCIe "
      "switches\"); the paths below are those of the devices named here, which need not be the "
      "ones the group gets. The ConfigSpec, SOAP, VI/JSON and PowerCLI outputs carry the group; "
      "a .vmx and govc cannot",
      name));
}

// The last lines of a plan that stands: the 64-bit MMIO window and its arithmetic, the memory,
// what DirectPath I/O rules out, and the systemId to fill in.
void add_vm_lines(const generate::Plan& plan, std::vector<std::string>& out) {
  out.push_back(fmt::format("64-bit MMIO window: {} GB{}", plan.mmio.size_gb,
                            plan.needs_64bit_mmio ? "" : " (not needed: BARs fit in 16 GiB)"));
  for (const std::string& line : checks::mmio_lines(plan.mmio)) out.push_back("  " + line);
  out.push_back(fmt::format("memory: {} MB{}, all reserved (passthrough DMA needs it)",
                            plan.memory_mb,
                            plan.memory_default ? " (default; set --memory-mb)" : ""));
  if (plan.directpath) {
    out.emplace_back(
        "DirectPath I/O: this VM cannot be suspended, migrated with vMotion, or snapshotted while "
        "it holds the devices (vSphere VM administration, PCI devices)");
  }
  if (plan.system_id.empty()) {
    out.emplace_back(
        "systemId: not given (--system-id); fill in the host's system UUID: `esxcli system "
        "uuid get` on the host, or the device's systemId in QueryConfigTarget().pciPassthrough");
  }
}

}  // namespace

std::vector<std::string> plan_explanation(const pci::Host* host, const generate::Plan& plan) {
  std::vector<std::string> out;
  add_choice_lines(host, plan, out);
  if (plan.device_group) {
    add_group_lines(plan, *plan.device_group, out);
  } else if (plan.vgpu && host != nullptr) {
    out.emplace_back(
        "vGPU placement: ESXi picks the physical GPU of each vGPU at power-on, by its placement "
        "policy; the paths below hold only if it picks the GPUs named here, which a vendor device "
        "group of the GPU and NIC (vSphere 8.0 U1, added in vCenter) makes sure of (rule P2P005)");
  }
  std::vector<std::string> pairs = plan_pair_lines(host, plan);
  out.insert(out.end(), std::make_move_iterator(pairs.begin()),
             std::make_move_iterator(pairs.end()));
  for (const generate::DeviceFinding& f : plan.esxi_owners) {
    out.push_back("ESXi: " + checks::owner_message(f.finding));
    out.push_back("    fix: " + checks::owner_fix(f.finding));
  }
  if (plan.refusals.empty()) add_vm_lines(plan, out);
  return out;
}

std::string not_ready_text(const generate::DeviceFinding& device) {
  return fmt::format("{}\n    fix: {}", checks::owner_message(device.finding),
                     checks::owner_fix(device.finding));
}

std::string not_ready_error_text(const generate::NotReadyError& error) {
  std::string out = error.what();
  out += ':';
  for (const generate::DeviceFinding& device : error.devices()) {
    out += "\n  ";
    out += not_ready_text(device);
  }
  return out;
}

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
  for (const generate::DeviceFinding& n : plan.not_ready) {
    skipped += "\nskipped (not ready): " + not_ready_text(n);
  }
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
