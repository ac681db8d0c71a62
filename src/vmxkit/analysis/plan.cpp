// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "vmxkit/analysis/readiness.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/devices/vgpu.h"

namespace vmxkit::generate {
namespace {

constexpr std::uint64_t kDefaultMemoryMb = 65536;

int rank(pci::PathClass cls) { return static_cast<int>(cls); }  // self < pix < ... < unknown

std::string device_label(const pci::Host& host, std::size_t index) { return host.describe(index); }

bool is_auto(const std::vector<std::string>& list) {
  return list.size() == 1 && list.front() == "auto";
}

Choice host_choice(const pci::Host& host, std::size_t index, DeviceRole role) {
  const pci::Device& d = host.at(index);
  Choice c;
  c.role = role;
  c.host_index = index;
  c.model = d.model;
  c.address = d.bdf;
  c.vendor_id = d.vendor_id.value_or(0);
  c.device_id = d.device_id.value_or(0);
  c.label = device_label(host, index);
  return c;
}

Choice model_choice(const pci::CatalogEntry& e, DeviceRole role) {
  Choice c;
  c.role = role;
  c.model = &e;
  c.vendor_id = e.vendor_id;
  c.device_id = e.device_id;
  c.label = fmt::format("{} ({})", e.model, e.id_string());
  return c;
}

std::vector<std::size_t> host_devices(const pci::Host& host, pci::Role role) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < host.devices().size(); ++i) {
    if (host.at(i).role == role) out.push_back(i);
  }
  return out;
}

std::size_t host_device(const pci::Host& host, const std::string& text, std::string_view what) {
  const auto bdf = parse_bdf(text);
  if (!bdf) {
    throw Error(
        fmt::format("--{} {}: with --host, name devices by address (0000:3b:00.0) or "
                    "auto",
                    what, text));
  }
  const auto index = host.index_of(*bdf);
  if (!index) throw Error(fmt::format("--{} {}: no such device on the host", what, text));
  return *index;
}

// The best path class from a GPU to any NIC (unknown when there is none).
pci::PathClass best_nic_class(const pci::Host& host, std::size_t gpu,
                              const std::vector<std::size_t>& nics) {
  pci::PathClass best = pci::PathClass::unknown;
  for (const std::size_t n : nics) {
    const pci::PathClass c = pci::classify(host, gpu, n).cls;
    if (rank(c) < rank(best)) best = c;
  }
  return best;
}

// 1 when an ESXi capture says the device is not ready for this use (not enabled for
// passthrough, or enabled when vGPU/SR-IOV need it with the VMkernel), else 0: among devices
// connected alike, `auto` takes the ones the host is ready to give.
int not_ready(const pci::Host& host, std::size_t i, pci::PassthroughUse use) {
  return pci::esxi_owner_problem(host.at(i), use) ? 1 : 0;
}

// The devices of `candidates` the host is ready to give for `use` (an ESXi capture says who
// owns each device; other captures say nothing, and every device stays). Each one left out is
// kept with its finding (why, and the command that readies it) for the explanation: `auto` never
// picks a device the VM would fail to power on with (TOPO009). None ready: refused with the
// reasons.
std::vector<std::size_t> ready_only(Plan& plan, const pci::Host& host,
                                    const std::vector<std::size_t>& candidates,
                                    pci::PassthroughUse use, std::string_view what) {
  std::vector<std::size_t> ready;
  const std::size_t first_skipped = plan.not_ready.size();
  for (const std::size_t i : candidates) {
    if (auto f = pci::esxi_owner_problem(host.at(i), use)) {
      plan.not_ready.push_back({i, std::move(*f)});
    } else {
      ready.push_back(i);
    }
  }
  if (ready.empty() && !candidates.empty()) {
    throw NotReadyError(fmt::format("--{} auto: no {} of the host is ready for this VM", what,
                                    what == "gpu" ? "GPU" : "NIC"),
                        {plan.not_ready.begin() + static_cast<std::ptrdiff_t>(first_skipped),
                         plan.not_ready.end()});
  }
  return ready;
}

pci::PassthroughUse gpu_use(const Request& request) {
  return request.vgpu ? pci::PassthroughUse::vgpu : pci::PassthroughUse::full;
}

pci::PassthroughUse nic_use(const Request& request) {
  return request.sriov ? pci::PassthroughUse::sriov_pf : pci::PassthroughUse::full;
}

// `--gpus N`: start from the GPU closest to a NIC, then add the GPU closest to those chosen.
std::vector<std::size_t> best_connected(const pci::Host& host, std::vector<std::size_t> gpus,
                                        const std::vector<std::size_t>& nics, unsigned n,
                                        pci::PassthroughUse use) {
  if (n > gpus.size()) {
    throw Error(fmt::format("--gpus {}: the host has {} GPU(s)", n, gpus.size()));
  }
  std::vector<std::size_t> chosen;
  while (chosen.size() < n) {
    auto score = [&](std::size_t g) {
      int worst_to_chosen = 0;
      for (const std::size_t c : chosen) {
        worst_to_chosen = std::max(worst_to_chosen, rank(pci::classify(host, g, c).cls));
      }
      return std::tuple{worst_to_chosen, not_ready(host, g, use),
                        rank(best_nic_class(host, g, nics)), host.at(g).bdf};
    };
    const auto best = std::min_element(gpus.begin(), gpus.end(), [&](std::size_t a, std::size_t b) {
      return score(a) < score(b);
    });
    chosen.push_back(*best);
    gpus.erase(best);
  }
  std::sort(chosen.begin(), chosen.end(),
            [&](std::size_t a, std::size_t b) { return host.at(a).bdf < host.at(b).bdf; });
  return chosen;
}

// The vGPU types the host's GPUs offer, of one series (C when the name gave none), for a
// message: "nvidia_h100-80c, nvidia_h100-40c, ... (H100 PCIe)".
std::string types_offered(const pci::Host& host, char series) {
  std::vector<std::uint16_t> ids;
  std::vector<std::string> parts;
  for (const pci::Device& d : host.devices()) {
    if (d.role != pci::Role::gpu || d.vendor_id != 0x10de || !d.device_id) continue;
    if (std::find(ids.begin(), ids.end(), *d.device_id) != ids.end()) continue;
    ids.push_back(*d.device_id);
    std::vector<std::string> names;
    const auto types = devices::VgpuTable::builtin().offered({*d.device_id}, series);
    names.reserve(types.size());
    for (const devices::VgpuType* t : types) names.push_back(t->profile);
    const std::string gpu = d.model ? d.model->model : fmt::format("10de:{:04x}", *d.device_id);
    parts.push_back(names.empty() ? fmt::format("{}: none in vmxkit's vGPU table", gpu)
                                  : fmt::format("{}: {}", gpu, fmt::join(names, ", ")));
  }
  if (parts.empty()) return "the host capture shows no NVIDIA GPU with a device id";
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The vGPU type `--vgpu` names, from the one vGPU table (devices/vgpu_types.tsv), which lint
// reads too: a name the table does not know is refused with the nearest real names and, with a
// host, the types of the series asked that the host's GPUs offer.
const devices::VgpuType& vgpu_type(const std::string& profile, const pci::Host* host) {
  const devices::VgpuLookup found = devices::VgpuTable::builtin().lookup(profile);
  if (found.match == devices::VgpuMatch::known) return *found.type;
  std::string why;
  switch (found.match) {
    case devices::VgpuMatch::wrong_prefix:
      why =
          fmt::format("ESXi names NVIDIA's type {} {}", found.type->type_name, found.type->profile);
      break;
    case devices::VgpuMatch::unknown_type:
      why = fmt::format("the {} board offers no such type", found.parts->board);
      break;
    case devices::VgpuMatch::unknown_board:
      why = fmt::format("vmxkit's vGPU table knows no board '{}' (docs/devices.md)",
                        found.parts->board);
      break;
    default:
      why = "not an NVIDIA vGPU profile name (lower case: grid_<board>-<GB><series>)";
  }
  std::string text = fmt::format("--vgpu {}: {}", profile, why);
  if (!found.nearest.empty() && found.match != devices::VgpuMatch::wrong_prefix) {
    text += fmt::format("; nearest: {}", fmt::join(found.nearest, ", "));
  }
  if (host != nullptr) {
    const char series = found.parts && !found.parts->series.empty()
                            ? static_cast<char>(found.parts->series[0] - 'a' + 'A')
                            : 'C';
    text += fmt::format("; the host's GPUs offer: {}", types_offered(*host, series));
  }
  throw Error(text);
}

// A host read from the vSphere API names the vGPU types it offers (config.sharedPassthruGpuTypes):
// a type it does not offer is refused, naming those it does. ESXi lists a type only once NVIDIA's
// vGPU manager runs and the GPU's graphics type is Shared Direct, so none at all says that.
void refuse_vgpu_not_offered(const std::string& profile, const pci::Host& host) {
  const pci::HostVgpuTypes& types = host.vgpu_types();
  if (!types.known || types.find(profile) != nullptr) return;
  const std::string name = types.host_name.empty() ? "the host" : "host " + types.host_name;
  if (types.offered.empty()) {
    throw Error(fmt::format(
        "--vgpu {}: {} offers no vGPU type (its config.sharedPassthruGpuTypes is empty): install "
        "NVIDIA's vGPU manager on it and set its GPUs' graphics type to Shared Direct, or pass "
        "the GPU through whole (no --vgpu)",
        profile, name));
  }
  throw Error(
      fmt::format("--vgpu {}: {} does not offer it (config.sharedPassthruGpuTypes); it "
                  "offers: {}",
                  profile, name, fmt::join(types.names(), ", ")));
}

// A vGPU type the table knows (vgpu_type) and, when the host says, one it offers.
void check_vgpu_request(const std::string& profile, const pci::Host* host) {
  (void)vgpu_type(profile, host);
  if (host != nullptr) refuse_vgpu_not_offered(profile, *host);
}

// The GPUs a vGPU type runs on: the boards the vGPU table names for it (a GPU whose device id
// the capture does not give is kept, not refused on a guess). Throws when none of `gpus` is one,
// or with `every` (GPUs the user named) when one is not, naming the types the host offers.
std::vector<std::size_t> vgpu_boards_only(const pci::Host& host,
                                          const std::vector<std::size_t>& gpus,
                                          const std::string& profile, bool every) {
  const devices::VgpuType& type = vgpu_type(profile, &host);
  std::vector<std::size_t> out;
  std::vector<std::string> others;
  for (const std::size_t g : gpus) {
    const pci::Device& d = host.at(g);
    const bool board = !d.device_id || std::find(type.device_ids.begin(), type.device_ids.end(),
                                                 *d.device_id) != type.device_ids.end();
    if (board) {
      out.push_back(g);
    } else {
      others.push_back(device_label(host, g));
    }
  }
  if (out.empty() || (every && !others.empty())) {
    throw Error(fmt::format(
        "--vgpu {}: a type of the {} board (NVIDIA {}); not a GPU of this host that offers it: "
        "{}; the host's GPUs offer: {}",
        profile, type.board, type.type_name, fmt::join(others, ", "),
        types_offered(host, type.series)));
  }
  return out;
}

// The GPUs of the host capture: `auto` (the default) takes every GPU, or with `--gpus N` the N
// best connected; addresses must name GPUs.
void choose_host_gpus(Plan& plan, const Request& request, const pci::Host& host,
                      const std::vector<std::size_t>& host_nics) {
  const std::vector<std::string> gpus =
      request.gpus.empty() ? std::vector<std::string>{"auto"} : request.gpus;
  std::vector<std::size_t> chosen;
  if (is_auto(gpus)) {
    chosen = host_devices(host, pci::Role::gpu);
    if (chosen.empty() && host.smi_topo()) {
      throw Error(fmt::format(
          "the host capture has no GPU with a PCI address: {} is nvidia-smi topo -m, which names "
          "none; give the host's lspci -vvv with it",
          host.smi_topo()->where.path));
    }
    if (chosen.empty()) throw Error("the host capture has no GPU");
    if (request.vgpu) chosen = vgpu_boards_only(host, chosen, *request.vgpu, false);
    const std::size_t all = chosen.size();
    chosen = ready_only(plan, host, chosen, gpu_use(request), "gpu");
    if (request.gpu_count && *request.gpu_count > chosen.size() && chosen.size() < all) {
      // The GPUs are chosen first: every device left out so far is a GPU.
      throw NotReadyError(
          fmt::format("--gpus {}: the host has {} GPU(s), {} of them ready for this VM; not ready",
                      *request.gpu_count, all, chosen.size()),
          plan.not_ready);
    }
    if (request.gpu_count) {
      // Judged by the NICs the VM can have: those ready for the NIC use asked.
      std::vector<std::size_t> nics;
      for (const std::size_t k : host_nics) {
        if (not_ready(host, k, nic_use(request)) == 0) nics.push_back(k);
      }
      chosen = best_connected(host, chosen, nics.empty() ? host_nics : nics, *request.gpu_count,
                              gpu_use(request));
    }
  } else {
    for (const std::string& g : gpus) {
      const std::size_t i = host_device(host, g, "gpu");
      if (host.at(i).role != pci::Role::gpu) {
        throw Error(fmt::format("--gpu {}: {} is not a GPU", g, device_label(host, i)));
      }
      chosen.push_back(i);
    }
    if (request.vgpu) vgpu_boards_only(host, chosen, *request.vgpu, true);
  }
  for (const std::size_t i : chosen) plan.gpus.push_back(host_choice(host, i, DeviceRole::gpu));
}

// Without a host: GPU models of the catalogue; none at all only with --vgpu.
void choose_model_gpus(Plan& plan, const Request& request, const pci::Catalog& catalog) {
  for (const std::string& g : request.gpus) {
    if (g == "auto") throw Error("--gpu auto needs --host: name GPU models (h100-pcie) instead");
    const pci::CatalogEntry* e = catalog.find_alias(g);
    if (e == nullptr || e->role != pci::Role::gpu) {
      throw Error(
          fmt::format("--gpu {}: not a GPU model of the catalogue (see `vmxkit generate "
                      "--list-models`)",
                      g));
    }
    plan.gpus.push_back(model_choice(*e, DeviceRole::gpu));
  }
  if (plan.gpus.empty() && !request.vgpu) {
    throw Error("no GPU: give --host HOST with --gpu auto, or --gpu MODEL, or --vgpu PROFILE");
  }
}

// `--nic auto`: each GPU gets the RDMA NIC closest to it, preferring NICs not yet taken and
// then those the host is ready to pass; a NIC shared by several GPUs is listed once.
void choose_auto_nics(Plan& plan, const Request& request, const pci::Host& host,
                      const std::vector<std::size_t>& all_nics) {
  if (all_nics.empty()) throw Error("--nic auto: the host capture has no RDMA-capable NIC");
  const pci::PassthroughUse use = nic_use(request);
  // Only NICs ready for the use, unless a GPU named by the user needs readying anyway: then the
  // nearest NIC, with the command that readies it, is the better plan.
  const bool gpus_ready = std::none_of(plan.gpus.begin(), plan.gpus.end(), [&](const Choice& c) {
    return c.host_index && not_ready(host, *c.host_index, gpu_use(request)) != 0;
  });
  const std::vector<std::size_t> host_nics =
      gpus_ready ? ready_only(plan, host, all_nics, use, "nic") : all_nics;
  std::map<std::size_t, unsigned> uses;
  for (std::size_t g = 0; g < plan.gpus.size(); ++g) {
    if (!plan.gpus[g].host_index) continue;
    const std::size_t gi = *plan.gpus[g].host_index;
    const auto best =
        std::min_element(host_nics.begin(), host_nics.end(), [&](std::size_t a, std::size_t b) {
          auto key = [&](std::size_t k) {
            return std::tuple{rank(pci::classify(host, gi, k).cls), uses[k],
                              not_ready(host, k, use), host.at(k).bdf};
          };
          return key(a) < key(b);
        });
    if (uses[*best]++ == 0) plan.nics.push_back(host_choice(host, *best, DeviceRole::nic));
    const auto it = std::find_if(plan.nics.begin(), plan.nics.end(),
                                 [&](const Choice& c) { return c.host_index == *best; });
    plan.pairs.push_back({g, static_cast<std::size_t>(it - plan.nics.begin()), false, {}});
  }
}

// NICs given by address: each must be an RDMA NIC (or a VF of one), and each GPU is paired with
// the closest of them.
void choose_given_nics(Plan& plan, const Request& request, const pci::Host& host) {
  for (const std::string& n : request.nics) {
    const std::size_t i = host_device(host, n, "nic");
    const pci::Role role = host.at(i).role;
    if (role != pci::Role::rdma_nic && role != pci::Role::nic_vf) {
      throw Error(fmt::format("--nic {}: {} is not an RDMA-capable NIC (ConnectX/BlueField)", n,
                              device_label(host, i)));
    }
    plan.nics.push_back(host_choice(host, i, DeviceRole::nic));
  }
  for (std::size_t g = 0; g < plan.gpus.size() && !plan.nics.empty(); ++g) {
    if (!plan.gpus[g].host_index) continue;
    std::size_t best = 0;
    for (std::size_t k = 1; k < plan.nics.size(); ++k) {
      const auto ck = pci::classify(host, *plan.gpus[g].host_index, *plan.nics[k].host_index);
      const auto cb = pci::classify(host, *plan.gpus[g].host_index, *plan.nics[best].host_index);
      if (rank(ck.cls) < rank(cb.cls)) best = k;
    }
    plan.pairs.push_back({g, best, false, {}});
  }
}

// Without a host: NIC models of the catalogue, paired with the GPUs in order (the last NIC
// takes the GPUs beyond the NIC count).
void choose_model_nics(Plan& plan, const Request& request, const pci::Catalog& catalog) {
  for (const std::string& n : request.nics) {
    if (n == "auto") throw Error("--nic auto needs --host: name NIC models (cx7) instead");
    const pci::CatalogEntry* e = catalog.find_alias(n);
    if (e == nullptr || (e->role != pci::Role::rdma_nic && e->role != pci::Role::nic_vf)) {
      throw Error(fmt::format("--nic {}: not a NIC model of the catalogue", n));
    }
    plan.nics.push_back(model_choice(*e, DeviceRole::nic));
  }
  for (std::size_t g = 0; g < plan.gpus.size() && !plan.nics.empty(); ++g) {
    plan.pairs.push_back({g, std::min(g, plan.nics.size() - 1), false, {}});
  }
}

// `--sriov`: every NIC entry becomes an SR-IOV VF entry, which names the PF (a VF given by
// address is replaced by its PF).
void use_sriov_vfs(Plan& plan, const pci::Host* host) {
  if (plan.nics.empty()) throw Error("--sriov needs NICs (--nic auto or --nic ADDRESS)");
  for (Choice& n : plan.nics) {
    n.sriov_vf = true;
    if (host != nullptr && n.host_index && host->at(*n.host_index).role == pci::Role::nic_vf &&
        host->at(*n.host_index).physfn) {
      const pci::Device& pf = host->at(*host->at(*n.host_index).physfn);
      n.address = pf.bdf;  // entries name the PF, and the ConfigSpec's backing its ids
      n.vendor_id = pf.vendor_id.value_or(n.vendor_id);
      n.device_id = pf.device_id.value_or(n.device_id);
    }
  }
}

// Judges each pair on the host (Pairing::verdict; the report layer explains it) and decides
// what refuses the plan (Plan::refusals): a GPU or NIC without GPUDirect support, and a
// GPU<->NIC path that is unsupported, or degraded without --allow-degraded; a GPU<->GPU path
// only limits GPU P2P (NCCL then goes through host memory), so it is explained, not refused.
// A vGPU pair gets no verdict: NVIDIA supports no vGPU P2P over PCIe, so no PCIe path class is
// a promise for it.
void judge_pairs(Plan& plan, const Request& request, const pci::Host* host) {
  for (std::size_t i = 0; i < plan.pairs.size(); ++i) {
    Pairing& p = plan.pairs[i];
    const Choice& gpu = plan.gpus[p.gpu];
    const Choice& peer = p.peer_is_gpu ? plan.gpus[p.peer] : plan.nics[p.peer];
    if (host == nullptr || !gpu.host_index || !peer.host_index) {
      if (gpu.model && gpu.model->gdr == pci::GdrSupport::no) {
        plan.refusals.push_back({i, std::nullopt, false});
      }
      continue;
    }
    if (request.vgpu && p.peer_is_gpu) continue;
    pci::AnalysisOptions options;
    options.nccl_gpus = plan.gpus.size();  // NCCL runs in the VM: its GPUs
    p.verdict = pci::judge_pair(*host, *gpu.host_index, *peer.host_index, options);
    const std::vector<pci::Reason>& reasons = p.verdict->reasons;
    for (std::size_t k = 0; k < reasons.size(); ++k) {
      const pci::Reason& r = reasons[k];
      const bool blocking_path = !p.peer_is_gpu && (r.kind == pci::ReasonKind::path ||
                                                    r.kind == pci::ReasonKind::path_unknown);
      if (r.kind == pci::ReasonKind::gpu_no_gdr || r.kind == pci::ReasonKind::nic_no_gdr ||
          (blocking_path && r.effect == pci::Verdict::unsupported)) {
        plan.refusals.push_back({i, k, false});
      } else if (blocking_path && r.effect == pci::Verdict::degraded && !request.allow_degraded) {
        plan.refusals.push_back({i, k, true});
      }
    }
  }
}

// The VM's GPUs of a model with NVLink that no `nvidia-smi topo -m` covers: their pair
// verdicts above are PCIe-only. Not for vGPUs, which get no P2P over PCIe at all.
void note_nvlink(Plan& plan, const Request& request, const pci::Host& host) {
  if (request.vgpu) return;
  std::vector<std::size_t> gpus;
  for (const Choice& c : plan.gpus) {
    if (c.host_index) gpus.push_back(*c.host_index);
  }
  std::sort(gpus.begin(), gpus.end(),
            [&](std::size_t a, std::size_t b) { return host.at(a).bdf < host.at(b).bdf; });
  plan.nvlink_notes = pci::nvlink_notes(host, gpus);
}

// ESXi ownership of the chosen devices, when the capture says it (esxcli): the plan stands,
// the host needs a change first, so it is kept with its fix for the explanation. An SR-IOV
// entry's device is its PF, owned by the VMkernel.
void note_esxi_owners(Plan& plan, const Request& request, const pci::Host& host) {
  auto note_owner = [&](std::optional<std::size_t> index, pci::PassthroughUse use) {
    if (!index) return;
    if (auto f = pci::esxi_owner_problem(host.at(*index), use)) {
      plan.esxi_owners.push_back({*index, std::move(*f)});
    }
  };
  for (const Choice& c : plan.gpus) {
    note_owner(c.host_index, request.vgpu ? pci::PassthroughUse::vgpu : pci::PassthroughUse::full);
  }
  for (const Choice& c : plan.nics) {
    note_owner(c.sriov_vf && c.address ? host.index_of(*c.address) : c.host_index,
               c.sriov_vf ? pci::PassthroughUse::sriov_pf : pci::PassthroughUse::full);
  }
}

// The 64-bit MMIO window from the devices' BARs: a vGPU counts as its profile's framebuffer
// (KB 323402), or in a VM of 32 GB or more as its physical GPU with NVIDIA's 64 GB floor; an
// SR-IOV VF entry not at all (ESXi maps the VF; its BARs are not the PF's).
void size_mmio(Plan& plan, const Request& request, const pci::Host* host,
               const pci::Catalog& catalog) {
  std::vector<pci::MmioDevice> mmio_devices;
  std::vector<std::unique_ptr<pci::CatalogEntry>> vgpu_models;
  std::vector<std::pair<unsigned, std::string>> minimums;
  for (const Choice& c : plan.gpus) {
    if (request.vgpu) {
      // The physical GPU named for the vGPU, when a host capture was given.
      pci::VgpuMmio v = pci::vgpu_mmio(*request.vgpu, plan.memory_mb, catalog,
                                       c.host_index ? &host->at(*c.host_index) : nullptr);
      mmio_devices.push_back(v.device);
      // One reason per floor: every vGPU of the profile gives the same one.
      const std::pair<unsigned, std::string> floor(v.min_gb, std::move(v.why));
      if (floor.first > 0 && std::find(minimums.begin(), minimums.end(), floor) == minimums.end()) {
        minimums.push_back(floor);
      }
      if (v.owned) vgpu_models.push_back(std::move(v.owned));
      continue;
    }
    mmio_devices.push_back({c.host_index ? &host->at(*c.host_index) : nullptr, c.model, c.label});
  }
  for (const Choice& c : plan.nics) {
    if (c.sriov_vf) continue;
    mmio_devices.push_back({c.host_index ? &host->at(*c.host_index) : nullptr, c.model, c.label});
  }
  plan.mmio = pci::size_64bit_mmio(mmio_devices);
  for (const auto& [gb, why] : minimums) pci::apply_minimum(plan.mmio, gb, why);
  plan.needs_64bit_mmio = plan.mmio.size_gb > 16;
}

// NVIDIA: "GPU passthrough is not supported on NVIDIA Systems that include NVSwitch when using
// VMware vSphere" (lint's TOPO010); time-sliced vGPU is the supported way there.
void refuse_nvswitch_passthrough(const pci::Host& host) {
  const std::vector<std::size_t> found = pci::nvswitches(host);
  if (found.empty()) return;
  const std::size_t count = found.size();
  throw Error(fmt::format(
      "the host has NVSwitch ({} device{}, the first {}): NVIDIA does not support GPU "
      "passthrough on NVSwitch systems with vSphere; plan time-sliced vGPUs of whole GPUs "
      "instead (--vgpu nvidia_h100xm-80c on HGX H100)",
      count, count == 1 ? "" : "s", host.at(found.front()).bdf.to_string()));
}

// GPU pairs for multi-GPU P2P: every pair, up to topo's full matrix (kFullMatrixLimit GPUs and
// NICs); above it, as topo lists a large host, each GPU with its nearest kNearestPeers GPUs (or,
// without a host, the next ones): every pair grows with the square of the GPUs, each judged and
// explained (2,000 GPUs: 2 million pairs, 29.8 s and 4.3 GB). Returns whether it took nearest
// peers only.
bool pair_gpus(Plan& plan, const pci::Host* host) {
  const std::size_t g = plan.gpus.size();
  if (g + plan.nics.size() <= pci::kFullMatrixLimit) {
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t b = a + 1; b < g; ++b) plan.pairs.push_back({a, b, true, {}});
    }
    return false;
  }
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  const bool placed = host != nullptr && std::all_of(plan.gpus.begin(), plan.gpus.end(),
                                                     [](const Choice& c) { return c.host_index; });
  if (placed) {
    std::vector<std::size_t> order(g);  // plan positions in PCI address order
    for (std::size_t i = 0; i < g; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return host->at(*plan.gpus[x].host_index).bdf < host->at(*plan.gpus[y].host_index).bdf;
    });
    std::vector<std::size_t> devices;
    devices.reserve(g);
    for (const std::size_t i : order) devices.push_back(*plan.gpus[i].host_index);
    const pci::PeerFinder finder(*host, devices);
    for (std::size_t a = 0; a < g; ++a) {
      for (const auto& [cls, p] : finder.nearest(*plan.gpus[a].host_index, pci::kNearestPeers)) {
        pairs.insert(std::minmax(a, order[p]));
      }
    }
  } else {
    for (std::size_t a = 0; a < g; ++a) {
      for (std::size_t b = a + 1; b < g && b <= a + pci::kNearestPeers; ++b) pairs.emplace(a, b);
    }
  }
  for (const auto& [a, b] : pairs) plan.pairs.push_back({a, b, true, {}});
  return true;
}

// `--gpu auto` means every GPU; when only some of them have a NIC on a supported path, fewer
// GPUs is the better way out than --allow-degraded: `--gpus N` takes the N best-connected.
// Returns how many have one, or 0 when that is not the way out.
std::size_t well_connected_gpus(const Plan& plan, const Request& request) {
  if (!is_auto(request.gpus) || request.gpu_count || plan.gpus.size() < 2) return 0;
  std::vector<bool> good(plan.gpus.size(), false);
  for (const Pairing& p : plan.pairs) {
    if (!p.peer_is_gpu && p.verdict && p.verdict->verdict == pci::Verdict::ok) good[p.gpu] = true;
  }
  const auto count = static_cast<std::size_t>(std::count(good.begin(), good.end(), true));
  return count == plan.gpus.size() ? 0 : count;
}

}  // namespace

std::string placeholder(std::string_view what) { return fmt::format("<fill in: {}>", what); }

Plan make_plan(const Request& request, const pci::Host* host, const pci::Catalog& catalog) {
  if (request.vgpu) check_vgpu_request(*request.vgpu, host);
  Plan plan;
  plan.vgpu = request.vgpu;
  plan.network = request.network;
  // A host read from the vSphere API gives its UUID: no placeholder reaches the plan.
  plan.system_id =
      request.system_id.empty() && host != nullptr ? host->system_uuid() : request.system_id;
  plan.memory_mb = request.memory_mb.value_or(kDefaultMemoryMb);
  plan.memory_default = !request.memory_mb;
  plan.host_label = request.host_label;

  const std::vector<std::size_t> host_nics =
      host != nullptr ? host_devices(*host, pci::Role::rdma_nic) : std::vector<std::size_t>{};
  if (host != nullptr) {
    if (!request.vgpu) refuse_nvswitch_passthrough(*host);
    choose_host_gpus(plan, request, *host, host_nics);
  } else {
    choose_model_gpus(plan, request, catalog);
  }
  if (plan.gpus.empty() && request.vgpu) {
    Choice c;
    c.label = fmt::format("vGPU {}", *request.vgpu);
    plan.gpus.push_back(c);
  }
  if (host == nullptr) {
    choose_model_nics(plan, request, catalog);
  } else if (is_auto(request.nics)) {
    choose_auto_nics(plan, request, *host, host_nics);
  } else {
    choose_given_nics(plan, request, *host);
  }
  if (request.sriov) use_sriov_vfs(plan, host);
  plan.nearest_pairs = pair_gpus(plan, host);
  plan.p2p = !plan.gpus.empty() && (plan.gpus.size() + plan.nics.size() >= 2);
  // vSphere VM administration, PCI devices: with DirectPath I/O devices "you cannot perform
  // certain operations on the virtual machine", suspending, vMotion, snapshots. A VF entry and
  // a vGPU are not DirectPath devices.
  plan.directpath = std::any_of(plan.nics.begin(), plan.nics.end(),
                                [](const Choice& c) { return !c.sriov_vf; }) ||
                    (!request.vgpu && !plan.gpus.empty());

  if (request.device_group) plan.device_group = plan_device_group(plan, *request.device_group);
  judge_pairs(plan, request, host);
  if (host != nullptr) note_nvlink(plan, request, *host);
  if (host != nullptr) note_esxi_owners(plan, request, *host);
  if (!plan.refusals.empty()) {
    plan.well_connected_gpus = well_connected_gpus(plan, request);
    return plan;  // refused by the caller, with the devices `auto` left out as not ready
  }

  size_mmio(plan, request, host, catalog);
  return plan;
}

}  // namespace vmxkit::generate
