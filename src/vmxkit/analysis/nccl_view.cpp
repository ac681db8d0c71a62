// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/nccl_view.h"

#include <fmt/format.h>

namespace vmxkit::guest {
namespace {

pci::PathClass class_from_smi(std::string_view cell) {
  if (cell == "PIX") return pci::PathClass::pix;
  if (cell == "PXB") return pci::PathClass::pxb;
  if (cell == "PHB" || cell == "NODE") return pci::PathClass::phb;
  if (cell == "SYS") return pci::PathClass::sys;
  return pci::PathClass::unknown;
}

pci::PathClass class_of(NcclPathType t) {
  switch (t) {
    case NcclPathType::pix:
      return pci::PathClass::pix;
    case NcclPathType::pxb:
      return pci::PathClass::pxb;
    case NcclPathType::phb:
      return pci::PathClass::phb;
    case NcclPathType::sys:
      return pci::PathClass::sys;
    default:
      return pci::PathClass::unknown;
  }
}

bool within_gdr_level(pci::PathClass c) {
  return c == pci::PathClass::pix || c == pci::PathClass::pxb;
}

std::string ib_name_for(const Guest& g, const pci::Device& nic, std::size_t nic_ordinal) {
  if (!nic.rdma_name.empty()) return nic.rdma_name;
  // ibv_devinfo lists devices in the order the driver registered them: PCI order for mlx5.
  if (g.ib_devices() && nic_ordinal < g.ib_devices()->size()) {
    return (*g.ib_devices())[nic_ordinal].name;
  }
  return {};
}

// No lspci: nvidia-smi's own matrix (its GPUi/NICj labels).
std::vector<NcclPair> smi_view(const SmiTopo& topo) {
  std::vector<NcclPair> out;
  for (const std::string& row : topo.labels) {
    if (!row.starts_with("GPU")) continue;
    NcclPair best;
    best.gpu_label = row;
    bool have = false;
    for (const std::string& col : topo.labels) {
      if (!col.starts_with("NIC")) continue;
      const pci::PathClass c = class_from_smi(topo.cell(row, col));
      if (!have || c < best.cls) {
        have = true;
        best.cls = c;
        best.nic_label = col;
        const auto it = topo.nic_names.find(col);
        best.nic_name = it == topo.nic_names.end() ? std::string{} : it->second;
        best.from_smi_topo = true;
      }
    }
    if (!have) continue;
    best.gdr = within_gdr_level(best.cls);
    out.push_back(std::move(best));
  }
  return out;
}

// The guest's lspci tree, with a topology file's tree for the devices NCCL places by it and
// nvidia-smi topo -m for pairs lspci cannot place.
class LspciView {
 public:
  LspciView(const Guest& g, const NcclTopoInput* topo) : g_(g), h_(g.pci()) {
    if (topo != nullptr) view_ = nccl_guest_view(topo->tree, g);
    for (std::size_t i = 0; i < h_.devices().size(); ++i) {
      if (is_guest_gpu(h_.at(i))) gpus_.push_back(i);
      if (is_guest_rdma_nic(h_.at(i))) nics_.push_back(i);
    }
  }

  bool has_pairs() const { return !gpus_.empty() && !nics_.empty(); }
  bool has_gpus() const { return !gpus_.empty(); }

  std::vector<NcclPair> pairs() const {
    std::vector<NcclPair> out;
    for (std::size_t gi = 0; gi < gpus_.size(); ++gi) out.push_back(nearest(gi));
    return out;
  }

 private:
  NcclPair nearest(std::size_t gi) const {
    NcclPair best;
    best.gpu_index = gpus_[gi];
    bool have = false;
    for (std::size_t ni = 0; ni < nics_.size(); ++ni) {
      const auto with_file = file_class(gpus_[gi], nics_[ni]);
      pci::PathClass c = with_file ? *with_file : nccl_path_class(h_, gpus_[gi], nics_[ni]);
      bool smi = false;
      if (c == pci::PathClass::unknown && g_.smi_topo() && !with_file) {
        c = smi_class(gi, ni);
        smi = c != pci::PathClass::unknown;
      }
      if (!have || c < best.cls) {
        have = true;
        best.cls = c;
        best.nic_index = nics_[ni];
        best.nic_name = ib_name_for(g_, h_.at(nics_[ni]), ni);
        best.from_smi_topo = smi;
        best.from_nccl_topo = with_file.has_value();
      }
    }
    best.gdr = within_gdr_level(best.cls);
    return best;
  }

  // NCCL's class with the file, when both devices are among those NCCL places.
  std::optional<pci::PathClass> file_class(std::size_t a, std::size_t b) const {
    if (!view_) return std::nullopt;
    const auto na = view_->node_of.find(a);
    const auto nb = view_->node_of.find(b);
    if (na == view_->node_of.end() || nb == view_->node_of.end()) return std::nullopt;
    const NcclPairPath* p = view_->paths.find(na->second, nb->second);
    if (p == nullptr) return std::nullopt;
    return class_of(p->type);
  }

  pci::PathClass smi_class(std::size_t gpu_ordinal, std::size_t nic_ordinal) const {
    return class_from_smi(
        g_.smi_topo()->cell(fmt::format("GPU{}", gpu_ordinal), fmt::format("NIC{}", nic_ordinal)));
  }

  const Guest& g_;
  const pci::Host& h_;
  std::optional<NcclGuestView> view_;
  std::vector<std::size_t> gpus_;
  std::vector<std::size_t> nics_;
};

}  // namespace

bool is_guest_gpu(const pci::Device& d) {
  if (d.role == pci::Role::gpu) return true;
  return !d.vendor_id && d.class_code && (*d.class_code >> 8) == 0x03 &&
         d.name.rfind("NVIDIA Corporation", 0) == 0;
}

bool is_guest_rdma_nic(const pci::Device& d) {
  if (d.role == pci::Role::rdma_nic || d.role == pci::Role::nic_vf) return true;
  return !d.vendor_id && d.class_code && (*d.class_code >> 8) == 0x02 &&
         d.name.rfind("Mellanox Technologies", 0) == 0;
}

pci::PathClass nccl_path_class(const pci::Host& host, std::size_t a, std::size_t b) {
  const pci::PathClass c = pci::path_class(host, a, b);
  switch (c) {
    case pci::PathClass::node:
      return pci::PathClass::phb;
    case pci::PathClass::unknown: {
      const pci::Device& da = host.at(a);
      const pci::Device& db = host.at(b);
      if (!da.root || !db.root) return c;
      const auto na = da.numa_node ? da.numa_node : host.roots()[*da.root].numa_node;
      const auto nb = db.numa_node ? db.numa_node : host.roots()[*db.root].numa_node;
      if (!na && !nb) return pci::PathClass::phb;  // both under the CPU node numaid -1
      return pci::PathClass::sys;                  // -1 and N: two CPU nodes
    }
    default:
      return c;
  }
}

std::vector<NcclPair> nccl_view(const Guest& g, const NcclTopoInput* topo) {
  // NCCL builds its tree from that file and the guest: without the file its view is not known.
  if (topo == nullptr && g.nccl_topo_file()) return {};
  const LspciView lspci(g, topo);
  if (lspci.has_pairs()) return lspci.pairs();
  if (g.smi_topo() && !lspci.has_gpus()) return smi_view(*g.smi_topo());
  return {};
}

}  // namespace vmxkit::guest
