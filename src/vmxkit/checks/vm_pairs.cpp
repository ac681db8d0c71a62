// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/vm_pairs.h"

#include "vmxkit/core/pci_address.h"

namespace vmxkit::checks {

std::optional<std::size_t> host_device(const Context& ctx, const VmDevice& v) {
  if (ctx.host() == nullptr) return std::nullopt;
  const PassthroughKind kind = v.entry->kind();
  if (kind != PassthroughKind::directpath && kind != PassthroughKind::sriov_vf) return std::nullopt;
  const std::optional<std::string>& address = v.entry->id ? v.entry->id : v.entry->pf_id;
  if (!address) return std::nullopt;
  auto bdf = parse_vmx_bdf(*address);
  if (!bdf) bdf = parse_bdf(*address);
  if (!bdf) return std::nullopt;
  return ctx.host()->index_of(*bdf);
}

SourceSpan id_span(const Context& ctx, const VmDevice& v) {
  if (const Setting* s = ctx.device_setting(*v.entry, "id")) return s->value_span;
  if (const Setting* s = ctx.device_setting(*v.entry, "pfId")) return s->value_span;
  return ctx.device_span(*v.entry);
}

std::vector<PeerPair> peer_pairs(const Context& ctx) {
  std::vector<PeerPair> pairs;
  if (ctx.host() == nullptr || !ctx.wants_p2p()) return pairs;
  const pci::Host& host = *ctx.host();
  const auto& devices = ctx.devices();
  pci::AnalysisOptions options;
  options.nccl_gpus = ctx.count(DeviceClass::gpu);  // NCCL runs in the VM: its GPUs
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].cls != DeviceClass::gpu) continue;
    const auto a = host_device(ctx, devices[i]);
    if (!a) continue;
    // GPU<->NIC: only the GPU's nearest NICs, as NCCL (ncclTopoGetLocalNet) uses no other.
    std::vector<PeerPair> nics;
    for (std::size_t j = 0; j < devices.size(); ++j) {
      if (j == i || devices[j].cls == DeviceClass::other) continue;
      if (devices[j].cls == DeviceClass::gpu && j < i) continue;  // each GPU pair once
      const auto b = host_device(ctx, devices[j]);
      if (!b || *a == *b) continue;
      PeerPair pair{&devices[i], &devices[j], pci::judge_pair(host, *a, *b, options)};
      if (devices[j].cls == DeviceClass::gpu) {
        pairs.push_back(std::move(pair));
        continue;
      }
      if (!nics.empty() && pair.verdict.path.cls < nics.front().verdict.path.cls) nics.clear();
      if (nics.empty() || pair.verdict.path.cls == nics.front().verdict.path.cls) {
        nics.push_back(std::move(pair));
      }
    }
    for (PeerPair& p : nics) pairs.push_back(std::move(p));
  }
  return pairs;
}

std::optional<HostNic> nearest_host_nic(const Context& ctx, const VmDevice& gpu) {
  const auto a = host_device(ctx, gpu);
  if (!a) return std::nullopt;
  const pci::Host& host = *ctx.host();
  std::optional<HostNic> best;
  for (std::size_t n = 0; n < host.devices().size(); ++n) {
    if (host.devices()[n].role != pci::Role::rdma_nic) continue;
    const pci::PathClass cls = pci::path_class(host, *a, n);
    if (!best || cls < best->cls) best = HostNic{n, cls};
  }
  return best;
}

void report_pair(const Context& ctx, Sink& sink, const Check& rule, const PeerPair& p,
                 std::string message, const std::string& fix) {
  const SourceSpan gpu = id_span(ctx, *p.gpu);
  Diagnostic& d = sink.report(rule, id_span(ctx, *p.peer), std::move(message));
  d.notes.push_back({gpu.begin, gpu.end, p.gpu->label + " is here"});
  if (!fix.empty()) d.fix = Fix{fix, FixSafety::display_only, {}};
}

std::vector<const pci::Reason*> reasons_of(const PeerPair& p, pci::ReasonKind kind) {
  std::vector<const pci::Reason*> out;
  for (const pci::Reason& r : p.verdict.reasons) {
    if (r.kind == kind) out.push_back(&r);
  }
  return out;
}

}  // namespace vmxkit::checks
