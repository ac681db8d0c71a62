// SPDX-License-Identifier: Apache-2.0
// The guest checks. Sources are in the table and in docs/guest-check.md.
#include "vmxkit/checks/guest_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/guest/loaders.h"

namespace vmxkit::guest {
namespace {

const std::vector<CheckInfo> kChecks = {
    {"GUEST001", "gdr-kernel-path", Severity::error,
     "no GPUDirect RDMA kernel path: nvidia_peermem is not loaded and DMA-BUF is not possible",
     "NVIDIA GPUDirect RDMA guide, \"Using nvidia-peermem\" "
     "(https://docs.nvidia.com/cuda/gpudirect-rdma/); NVIDIA GPU Operator, GPUDirect RDMA "
     "(https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
     "gpu-operator-rdma.html); NCCL src/transport/net_ib/gdr.cc (peer-memory and DMA-BUF "
     "probes)"},
    {"GUEST002", "nccl-no-gdr", Severity::warning,
     "NCCL will not use GPUDirect RDMA between a GPU and its nearest NIC at its defaults",
     "NCCL src/graph/paths.cc ncclTopoCheckGdr and ncclTopoSetPaths, src/graph/xml.cc "
     "ncclTopoGetXmlFromSys (NCCL 2.30.7); NCCL env.rst NCCL_NET_GDR_LEVEL; "
     "github.com/NVIDIA/nccl-tests/issues/256"},
    {"GUEST003", "bar1-small", Severity::error,
     "a GPU's BAR1 is unassigned or smaller than the GPU's: the VM's 64-bit MMIO window is too "
     "small",
     "NVIDIA GPUDirect RDMA guide, \"PCI BAR sizes\"; Broadcom KB 323402 "
     "(pciPassthru.64bitMMIOSizeGB)"},
    {"GUEST004", "nic-ats-off", Severity::warning,
     "ATS is off on a passthrough NIC (ATSCtl Enable-)",
     "NCCL troubleshooting, PCI Access Control Services: \"ATS needs to be enabled in network "
     "adapters\" in VMs; NVIDIA AI Enterprise, VM configuration appendix (mlxconfig "
     "ATS_ENABLED)"},
    {"GUEST005", "acs-redirect", Severity::warning,
     "a virtual bridge on a GPU-NIC path redirects peer traffic (ACSCtl ReqRedir/CmpltRedir/"
     "EgressCtrl)",
     "Linux drivers/pci/p2pdma.c pci_bridge_has_acs_redir; pciutils ls-ecaps.c cap_acs"},
    {"GUEST006", "link-degraded", Severity::warning,
     "a GPU's or NIC's link runs below its capability (LnkSta < LnkCap)",
     "PCI Express Base Specification, Link Capabilities/Link Status; pciutils ls-caps.c"},
    {"GUEST007", "no-nvidia-gpu", Severity::error, "no NVIDIA GPU in the guest",
     "the guest's lspci"},
    {"GUEST008", "gpu-driver", Severity::error, "the NVIDIA driver is not loaded for a GPU",
     "NVIDIA driver installation guide, kernel modules "
     "(https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/)"},
    {"GUEST009", "rdma-driver", Severity::error,
     "an RDMA NIC has no RDMA driver (mlx5_core/mlx5_ib) or no verbs device",
     "rdma-core libibverbs (ibv_devinfo); NVIDIA MLNX_OFED/DOCA-OFED documentation"},
    {"GUEST010", "rdma-port-down", Severity::warning, "an RDMA port is not PORT_ACTIVE",
     "rdma-core libibverbs/examples/devinfo.c (port state)"},
    {"GUEST011", "versions", Severity::info,
     "the driver, CUDA, kernel and RDMA stack versions found", "the inputs"},
    {"GUEST012", "not-checked", Severity::info,
     "a check the inputs could not answer, with the input that would", "-"},
    {"GUEST013", "no-rdma-nic", Severity::warning,
     "no RDMA NIC (ConnectX/BlueField, or a VF of one) in the guest", "the guest's lspci"},
    {"GUEST014", "peermem-version", Severity::warning,
     "nvidia_peermem and nvidia are of different driver versions",
     "NVIDIA GPUDirect RDMA guide, \"Using nvidia-peermem\" (part of the driver package)"},
    {"GUEST015", "nccl-topo-mismatch", Severity::warning,
     "the NCCL topology file's GPU and NIC bus ids are not the guest's, or its pairs come out "
     "otherwise in the guest: NCCL falls back to the guest's own tree for those devices",
     "NCCL src/graph/topo.cc ncclTopoGetSystem, src/graph/xml.cc ncclTopoGetPciNode and "
     "ncclTopoGetXmlFromSys, src/graph/xml.h xmlFindTagKv, src/transport/net_ib/init.cc "
     "ncclIbGetPciPath (NCCL 2.30.7)"},
};

// Roles as the pci module assigns them, and by lspci's names where a plain `lspci` (without
// -nn) gave no ids.
bool is_gpu(const pci::Device& d) {
  if (d.role == pci::Role::gpu) return true;
  return !d.vendor_id && d.class_code && (*d.class_code >> 8) == 0x03 &&
         d.name.rfind("NVIDIA Corporation", 0) == 0;
}
bool is_rdma(const pci::Device& d) {
  if (d.role == pci::Role::rdma_nic || d.role == pci::Role::nic_vf) return true;
  return !d.vendor_id && d.class_code && (*d.class_code >> 8) == 0x02 &&
         d.name.rfind("Mellanox Technologies", 0) == 0;
}

bool is_vmware_guest(const pci::Host& h) {
  return std::any_of(h.devices().begin(), h.devices().end(), [](const pci::Device& d) {
    return d.vendor_id == 0x15ad || d.name.rfind("VMware", 0) == 0;
  });
}

// "16GT/s" -> 16.0; 0 when unreadable.
double link_speed(std::string_view s) {
  const auto gt = s.find("GT/s");
  if (gt == std::string_view::npos) return 0;
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + gt, v);
  return r.ec == std::errc() ? v : 0;
}

std::uint64_t next_pow2_gib(std::uint64_t bytes) {
  std::uint64_t gib = 1;
  while ((gib << 30) < bytes) gib <<= 1;
  return gib;
}

pci::PathClass class_from_smi(std::string_view cell) {
  if (cell == "PIX") return pci::PathClass::pix;
  if (cell == "PXB") return pci::PathClass::pxb;
  if (cell == "PHB" || cell == "NODE") return pci::PathClass::phb;
  if (cell == "SYS") return pci::PathClass::sys;
  return pci::PathClass::unknown;
}

std::string ib_name_for(const Guest& g, const pci::Device& nic, std::size_t nic_ordinal) {
  if (!nic.rdma_name.empty()) return nic.rdma_name;
  // ibv_devinfo lists devices in the order the driver registered them: PCI order for mlx5.
  if (g.ib_devices() && nic_ordinal < g.ib_devices()->size()) {
    return (*g.ib_devices())[nic_ordinal].name;
  }
  return {};
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

class Checker {
 public:
  Checker(const Guest& g, const NcclTopoInput* topo) : g_(g), h_(g.pci()), topo_(topo) {
    for (std::size_t i = 0; i < h_.devices().size(); ++i) {
      if (is_gpu(h_.at(i))) gpus_.push_back(i);
      if (is_rdma(h_.at(i))) nics_.push_back(i);
    }
  }

  std::vector<Finding> run() {
    presence();
    kernel_path();
    nccl();
    nccl_topo();
    bar1();
    ats_acs_links();
    drivers();
    ports();
    peermem_version();
    versions();
    std::stable_sort(out_.begin(), out_.end(),
                     [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
    return std::move(out_);
  }

 private:
  void add(std::string_view id, std::string subject, std::string message, std::string fix = {},
           pci::Origin where = {}) {
    const CheckInfo* info = find_check(id);
    out_.push_back(Finding{info->id, info->name, info->severity, std::move(subject),
                           std::move(message), std::move(fix), std::move(where)});
  }
  void not_checked(std::string_view check, std::string what, std::string needs) {
    const CheckInfo* info = find_check(check);
    add("GUEST012", std::string(info->id),
        fmt::format("{} ({}): not checked (needs: {})", what, info->name, needs));
  }
  std::string gpu_subject(std::size_t i) const { return h_.describe(i); }

  bool gpus_known() const { return g_.has_full_lspci() || !g_.smi_gpus().empty(); }

  void presence() {
    if (g_.has_full_lspci()) {
      if (gpus_.empty() && g_.smi_gpus().empty()) {
        add("GUEST007", {},
            "the guest's lspci shows no NVIDIA GPU: the passthrough GPU is not in this VM",
            "add the GPU to the VM (pciPassthruN.* entries, `vmxkit generate`), power it on, "
            "then run `lspci -nn | grep -i nvidia` in the guest");
      }
      if (nics_.empty() && !(g_.ib_devices() && !g_.ib_devices()->empty())) {
        add("GUEST013", {},
            "the guest's lspci shows no RDMA NIC (ConnectX/BlueField or a VF of one): "
            "GPUDirect RDMA has no NIC to talk to",
            "pass a ConnectX port or SR-IOV VF through to the VM (`vmxkit generate --nic auto`)");
      }
    } else if (g_.smi_gpus().empty()) {
      not_checked("GUEST007", "GPU present", "a full `lspci -nn` or `nvidia-smi`");
      not_checked("GUEST013", "RDMA NIC present", "a full `lspci -nn` or `ibv_devinfo`");
    } else if (!g_.ib_devices()) {
      not_checked("GUEST013", "RDMA NIC present", "a full `lspci -nn` or `ibv_devinfo`");
    }
  }

  void kernel_path() {
    const auto peermem = g_.module_loaded("nvidia_peermem");
    const auto legacy = g_.module_loaded("nv_peer_mem");
    if (peermem == true || legacy == true) return;
    // DMA-BUF: the open GPU kernel module, Linux 5.12 or later (RDMA dma-buf MRs).
    std::vector<std::string> why_not;
    std::vector<std::string> unknown;
    const auto& open = g_.open_kernel_module();
    if (!open) {
      unknown.push_back("/proc/driver/nvidia/version or `modinfo nvidia` (kernel module flavour)");
    } else if (open->value != "open") {
      why_not.push_back(fmt::format("the NVIDIA kernel module is the proprietary one ({})",
                                    open->where.to_string()));
    }
    const auto& k = g_.kernel();
    if (!k) {
      unknown.push_back("`uname -r`");
    } else if (k->major < 5 || (k->major == 5 && k->minor < 12)) {
      why_not.push_back(
          fmt::format("kernel {} is older than 5.12 ({})", k->text, k->where.to_string()));
    }
    const bool peermem_known_off = peermem == false;
    if (!peermem_known_off) {
      unknown.insert(unknown.begin(), "`lsmod` or /proc/modules (nvidia_peermem)");
    }
    if (peermem_known_off && !why_not.empty()) {
      std::string reasons;
      for (const std::string& r : why_not) reasons += (reasons.empty() ? "" : "; ") + r;
      const bool installed = g_.modinfo().count("nvidia_peermem") != 0;
      add("GUEST001", "nvidia_peermem",
          fmt::format("no GPUDirect RDMA kernel path: nvidia_peermem is not loaded{} and "
                      "DMA-BUF is not possible: {}; NCCL will report GPU Direct RDMA disabled "
                      "and stage every transfer through host memory",
                      installed ? " (modinfo shows it installed)" : "", reasons),
          "modprobe nvidia-peermem && echo nvidia-peermem > "
          "/etc/modules-load.d/nvidia-peermem.conf (needs MLNX_OFED/DOCA-OFED's peer-memory "
          "support; or install the open GPU kernel module on kernel 5.12+ for DMA-BUF)",
          g_.modules() && !g_.modules()->empty() ? g_.modules()->front().where : pci::Origin{});
      return;
    }
    if (peermem_known_off && unknown.empty()) return;  // DMA-BUF possible
    if (!peermem_known_off || !unknown.empty()) {
      std::string needs;
      for (const std::string& u : unknown) needs += (needs.empty() ? "" : ", ") + u;
      not_checked("GUEST001", "GPUDirect RDMA kernel path (nvidia_peermem or DMA-BUF)", needs);
    }
  }

  void nccl() {
    if (!topo_ && g_.nccl_topo_file()) {
      const Fact& f = *g_.nccl_topo_file();
      not_checked("GUEST002",
                  fmt::format("NCCL's path class per GPU and NIC with NCCL_TOPO_FILE={} ({})",
                              f.value, f.where.to_string()),
                  fmt::format("`--nccl-topo {}`: NCCL builds its tree from that file", f.value));
      return;
    }
    const std::vector<NcclPair> pairs = nccl_view(g_, topo_);
    if (pairs.empty()) {
      if (!gpus_.empty() && !nics_.empty()) return;  // cannot happen: every GPU gets a pair
      if (!g_.has_full_lspci() && !g_.smi_topo()) {
        not_checked("GUEST002", "NCCL's path class per GPU and NIC",
                    "a full `lspci -vvv` or `nvidia-smi topo -m`");
      }
      return;
    }
    const bool esxi = is_vmware_guest(h_);
    for (const NcclPair& p : pairs) {
      const std::string gpu = p.gpu_index ? gpu_subject(*p.gpu_index) : p.gpu_label;
      const std::string nic = (p.nic_index ? h_.at(*p.nic_index).bdf.to_string() : p.nic_label) +
                              (p.nic_name.empty() ? "" : " (" + p.nic_name + ")");
      if (p.cls == pci::PathClass::unknown) {
        not_checked("GUEST002", fmt::format("NCCL's path class for {} and {}", gpu, nic),
                    "the whole `lspci -vvv` (or `lspci -tv`) so every bridge is placed, or "
                    "`nvidia-smi topo -m`");
        continue;
      }
      if (p.gdr) continue;  // PIX or PXB: NCCL uses GPUDirect RDMA at its defaults
      std::string where;
      if (p.from_nccl_topo) {
        where = fmt::format("with the topology file {} (see GUEST015)", topo_->path);
      } else if (p.from_smi_topo) {
        where = "as nvidia-smi topo -m shows it";
      } else if (esxi) {
        where =
            "an ESXi guest puts every passthrough device on its own virtual PCIe root port, so "
            "GPU and NIC meet only at the virtual host bridge";
      } else if (p.gpu_index && p.nic_index) {
        where = pci::classify(h_, *p.gpu_index, *p.nic_index).detail;
      }
      add("GUEST002", gpu,
          fmt::format("NCCL sees {} to the nearest NIC, {}: {}; at its default "
                      "NCCL_NET_GDR_LEVEL (PXB) NCCL will not use GPUDirect RDMA for this pair "
                      "and stages the data through host memory, whatever the host's real PCIe "
                      "path is",
                      to_string(p.cls), nic, where),
          fmt::format("give NCCL the host's real tree: `vmxkit nccl-topo --host HOST --vm VM.vmx "
                      "--guest GUEST... -o nccl-topo.xml`, then run with "
                      "NCCL_TOPO_FILE=nccl-topo.xml; or set NCCL_NET_GDR_LEVEL={} (risk: NCCL "
                      "then uses GPUDirect RDMA even where the host's path crosses the CPU or "
                      "sockets, which the guest cannot see; check with `vmxkit topo` on the "
                      "host that GPU and NIC share a switch)",
                      p.cls == pci::PathClass::sys ? "SYS" : "PHB"));
    }
  }

  /// GUEST015: the file given with --nccl-topo against this guest; without it, the
  /// NCCL_TOPO_FILE the capture shows is named as not checked.
  void nccl_topo() {
    if (topo_ == nullptr) {
      if (const auto& f = g_.nccl_topo_file()) {
        not_checked("GUEST015",
                    fmt::format("NCCL_TOPO_FILE={} ({})", f->value, f->where.to_string()),
                    fmt::format("`--nccl-topo {}`, the file itself", f->value));
      }
      return;
    }
    const NcclTopoCheck c = check_nccl_topo(topo_->tree, g_);
    const std::string fix = fmt::format(
        "write the file again from this guest's capture: `vmxkit nccl-topo --host HOST --vm "
        "VM.vmx --guest GUEST... -o {}` (its GPU and NIC bus ids are the guest's, as CUDA and "
        "the IB plugin report them)",
        topo_->path);
    for (const std::uint32_t line : c.bridges_without_class) {
      add("GUEST015", topo_->path,
          "a <pci> with elements below it has no class attribute: NCCL's init fails (\"Attribute "
          "class of node pci not found\", ncclTopoAddPci)",
          "add class=\"0x060400\" to it, or write the file again with vmxkit nccl-topo",
          pci::Origin{topo_->path, line});
    }
    for (const NcclTopoMove& m : c.moved) moved(m, c, fix);
    for (const Bdf& b : c.not_in_file) {
      const auto i = h_.index_of(b);
      add("GUEST015", i ? h_.describe(*i) : b.to_string(),
          fmt::format("not in the topology file {}: NCCL places it from the guest's own tree "
                      "(its virtual root port, straight under the CPU node of its guest NUMA "
                      "node){}",
                      topo_->path, changes_of(c, b)),
          fix, i && !h_.at(*i).origins.empty() ? h_.at(*i).origins.front() : pci::Origin{});
    }
  }

  /// The pairs of `c` that involve the device, as text.
  static std::string changes_of(const NcclTopoCheck& c, const std::string& busid) {
    std::string out;
    for (const NcclPairChange& p : c.changed) {
      if (p.gpu != busid && p.nic != busid) continue;
      out += fmt::format("{}GPU {} - {} {}: {} where the file (the host) has {}",
                         out.empty() ? "; " : ", ", p.gpu, to_string(p.peer), p.nic,
                         to_string(p.in_guest), to_string(p.in_file));
    }
    return out;
  }
  static std::string changes_of(const NcclTopoCheck& c, const Bdf& b) {
    std::string out = changes_of(c, b.to_string());
    if (out.empty()) out = changes_of(c, nccl_busid(b, NcclNodeKind::nic));
    return out;
  }

  void moved(const NcclTopoMove& m, const NcclTopoCheck& c, const std::string& fix) {
    std::string now;
    std::string changes;
    if (m.guest_bdf) {
      now = fmt::format("; the guest's {} is {}{}", m.id, m.guest_bdf->to_string(),
                        m.guest_busid != m.guest_bdf->to_string()
                            ? fmt::format(" ({} for NCCL)", m.guest_busid)
                            : std::string());
      changes = changes_of(c, m.guest_busid);
    }
    add("GUEST015", m.file_busid,
        fmt::format("the topology file's {} {}{} is not in this guest{}: NCCL finds no element "
                    "of that bus id (xmlFindTagKv compares the strings), falls back to the "
                    "guest's own tree for the device (a virtual root port: straight under the "
                    "CPU node of its guest NUMA node, SYS to the file's devices when that node "
                    "is not one of the file's) and says nothing{}",
                    to_string(m.kind), m.file_busid, m.id.empty() ? "" : " (" + m.id + ")", now,
                    changes),
        fix, pci::Origin{topo_->path, m.line});
  }

  void bar1() {
    if (gpus_.empty()) return;
    if (!g_.has_lspci_verbose()) {
      not_checked("GUEST003", "GPU BAR1 size and assignment", "`lspci -vvv` in the guest");
      return;
    }
    for (const std::size_t i : gpus_) {
      const pci::Device& d = h_.at(i);
      const pci::Bar* b = d.bar(1);
      const std::uint64_t want = d.model && d.model->bar1_bytes ? *d.model->bar1_bytes : 0;
      const std::string fix_size =
          want ? fmt::format(
                     " (at least {} for this GPU's BAR1 alone; `vmxkit mmio HOST "
                     "--device BDF` on the host gives the total)",
                     next_pow2_gib(want * 2))
               : " (`vmxkit mmio HOST --device BDF` on the host gives it)";
      const std::string fix =
          "power the VM off and set pciPassthru.use64bitMMIO = \"TRUE\" and "
          "pciPassthru.64bitMMIOSizeGB to the power of two the passthrough BARs need" +
          fix_size + "; firmware = \"efi\"";
      const pci::Origin where = d.origins.empty() ? pci::Origin{} : d.origins.front();
      if (b == nullptr || b->address == 0 || b->disabled) {
        add("GUEST003", gpu_subject(i),
            fmt::format("BAR1 (the large prefetchable BAR through which GPUDirect RDMA maps GPU "
                        "memory) is {}: the VM's 64-bit MMIO window is too small for it",
                        b == nullptr  ? "missing from lspci"
                        : b->disabled ? "disabled"
                                      : "unassigned"),
            fix, where);
      } else if (b->size && want && *b->size < want) {
        add("GUEST003", gpu_subject(i),
            fmt::format("BAR1 is {} where this GPU has {}: the VM's 64-bit MMIO window is too "
                        "small (pciPassthru.64bitMMIOSizeGB)",
                        pci::format_size(*b->size), pci::format_size(want)),
            fix, where);
      }
      for (const SmiGpu& s : g_.smi_gpus()) {
        if (s.bus_id && *s.bus_id == d.bdf && s.bar1_total && b && b->size &&
            *s.bar1_total + (std::uint64_t{64} << 20) < *b->size) {
          add("GUEST003", gpu_subject(i),
              fmt::format("nvidia-smi -q shows a BAR1 total of {} where lspci shows {}",
                          pci::format_size(*s.bar1_total), pci::format_size(*b->size)),
              fix, s.where);
        }
      }
    }
  }

  void ats_acs_links() {
    if (gpus_.empty() && nics_.empty()) return;
    if (!g_.has_lspci_verbose()) {
      if (!nics_.empty()) {
        not_checked("GUEST004", "ATS on the NIC", "`lspci -vvv` as root in the guest");
      }
      if (!nics_.empty() && !gpus_.empty()) {
        not_checked("GUEST005", "ACS on the virtual bridges", "`lspci -vvv` as root in the guest");
      }
      not_checked("GUEST006", "GPU and NIC link speed and width", "`lspci -vvv` in the guest");
      return;
    }
    for (const std::size_t i : nics_) {
      const pci::Device& d = h_.at(i);
      const pci::Device& owner = d.physfn ? h_.at(*d.physfn) : d;
      if (owner.ats_present && owner.ats_enabled == false) {
        add("GUEST004", h_.describe(i),
            "ATS is off (ATSCtl Enable-): in a VM, where ACS stays on, the NIC's peer reads and "
            "writes of GPU memory go through the root complex",
            "on the host: mlxconfig -d <host BDF of this NIC> set ATS_ENABLED=true, reboot the "
            "host, then check `lspci -vvv` in the guest shows ATSCtl: Enable+",
            d.origins.empty() ? pci::Origin{} : d.origins.front());
      } else if (!owner.ats_present && owner.port_type == pci::PortType::unknown) {
        not_checked("GUEST004", fmt::format("ATS on {}", d.bdf.to_string()),
                    "`lspci -vvv` run as root (its capabilities)");
      }
    }
    for (const std::size_t gi : gpus_) {
      for (const std::size_t ni : nics_) {
        const pci::Path path = pci::classify(h_, gi, ni);
        for (const std::size_t br : path.acs_redirect) {
          const pci::Device& b = h_.at(br);
          add("GUEST005", b.bdf.to_string(),
              fmt::format("virtual bridge {} on the path between {} and {} redirects peer "
                          "traffic ({}): the guest kernel refuses P2P DMA through it",
                          b.bdf.to_string(), h_.at(gi).bdf.to_string(), h_.at(ni).bdf.to_string(),
                          b.acs->ctl_text()),
              fmt::format("in the guest: setpci -s {} ECAP_ACS+0x6.w=0000 (or the kernel "
                          "parameter pci=disable_acs_redir={}); the host's ACS stays as it is",
                          b.bdf.to_string(), b.bdf.to_string()),
              b.origins.empty() ? pci::Origin{} : b.origins.front());
        }
      }
    }
    std::vector<std::size_t> ends = gpus_;
    ends.insert(ends.end(), nics_.begin(), nics_.end());
    for (const std::size_t i : ends) {
      const pci::Device& d = h_.at(i);
      if (!d.link_cap || !d.link_sta) continue;
      const double cap = link_speed(d.link_cap->speed);
      const double sta = link_speed(d.link_sta->speed);
      const bool slow = cap > 0 && sta > 0 && sta < cap;
      const bool narrow = d.link_cap->width && d.link_sta->width && *d.link_sta->width > 0 &&
                          *d.link_sta->width < *d.link_cap->width;
      if (!slow && !narrow) continue;
      add("GUEST006", h_.describe(i),
          fmt::format("link runs at {} x{} where the device can do {} x{}", d.link_sta->speed,
                      d.link_sta->width.value_or(0), d.link_cap->speed,
                      d.link_cap->width.value_or(0)),
          "compare with the host's `lspci -vvv` for this device: a degraded link there is the "
          "slot, riser or card (reseat it, check the BIOS PCIe settings); a guest-only "
          "difference is what the virtual port reports",
          d.origins.empty() ? pci::Origin{} : d.origins.front());
    }
  }

  void drivers() {
    // The GPU driver: lsmod, lspci -k, or nvidia-smi (which runs only with the driver).
    const bool smi_ran = g_.has(InputKind::nvidia_smi) || g_.has(InputKind::nvidia_smi_query);
    const auto nvidia = g_.module_loaded("nvidia");
    if (!gpus_.empty() || !g_.smi_gpus().empty()) {
      if (nvidia == false && !smi_ran) {
        add("GUEST008", "nvidia",
            "the nvidia kernel module is not loaded: CUDA and NCCL cannot use the GPU",
            "install the NVIDIA data-center driver for this kernel, then `modprobe nvidia`; "
            "`dmesg | grep -i nvrm` says why it did not load");
      } else if (!nvidia && !smi_ran) {
        bool bound = false;
        for (const std::size_t i : gpus_) bound |= h_.at(i).driver == "nvidia";
        if (!bound) {
          not_checked("GUEST008", "NVIDIA driver loaded", "`lsmod`, `lspci -k` or `nvidia-smi`");
        }
      }
    }
    if (!nics_.empty()) {
      const auto core = g_.module_loaded("mlx5_core");
      const auto ib = g_.module_loaded("mlx5_ib");
      if (g_.ib_devices() && g_.ib_devices()->empty()) {
        add("GUEST009", "ibv_devinfo",
            "ibv_devinfo finds no RDMA device although lspci shows the NIC: NCCL will fall "
            "back to sockets",
            "modprobe mlx5_ib (install rdma-core, or MLNX_OFED/DOCA-OFED), then `ibv_devinfo`");
      } else if (core == false || ib == false) {
        add("GUEST009", core == false ? "mlx5_core" : "mlx5_ib",
            fmt::format("{} is not loaded: the NIC has no RDMA verbs device",
                        core == false ? "mlx5_core" : "mlx5_ib"),
            "modprobe mlx5_core mlx5_ib (install rdma-core, or MLNX_OFED/DOCA-OFED)");
      } else if (!g_.ib_devices() && (!core || !ib)) {
        not_checked("GUEST009", "RDMA driver and verbs device", "`lsmod` or `ibv_devinfo`");
      }
    }
  }

  void ports() {
    if (!g_.ib_devices()) {
      if (!nics_.empty()) not_checked("GUEST010", "RDMA port state", "`ibv_devinfo`");
      return;
    }
    for (const IbDevice& d : *g_.ib_devices()) {
      for (const IbPort& p : d.ports) {
        if (p.state == "PORT_ACTIVE") continue;
        add("GUEST010", fmt::format("{} port {}", d.name, p.number),
            fmt::format("port state is {}{}: no traffic can flow on it",
                        p.state.empty() ? "unknown" : p.state,
                        p.link_layer.empty() ? "" : " (" + p.link_layer + ")"),
            p.link_layer == "Ethernet"
                ? "bring the netdev up (`ip link set DEV up`), check the cable and the switch "
                  "port; `ibv_devinfo` should show PORT_ACTIVE"
                : "check the cable, the switch port and the subnet manager (opensm); "
                  "`ibstat` should show State: Active",
            p.where);
      }
    }
  }

  void peermem_version() {
    if (g_.module_loaded("nvidia_peermem") != true) return;
    const auto& mv = g_.module_versions();
    const auto p = mv.find("nvidia_peermem");
    const auto n = mv.find("nvidia");
    if (p == mv.end() || n == mv.end()) {
      not_checked("GUEST014", "nvidia_peermem and nvidia versions",
                  "`grep . /sys/module/nvidia*/version`");
      return;
    }
    if (p->second.value != n->second.value) {
      add("GUEST014", "nvidia_peermem",
          fmt::format("nvidia_peermem {} is not from the loaded driver {}: peer memory "
                      "registration can fail or crash",
                      p->second.value, n->second.value),
          "reinstall the driver package so both come from one release, then `rmmod "
          "nvidia_peermem && modprobe nvidia-peermem`",
          p->second.where);
    }
  }

  void versions() {
    std::vector<std::string> found;
    if (const auto& d = g_.driver_version()) {
      std::string s = "NVIDIA driver " + d->value;
      if (const auto& o = g_.open_kernel_module()) s += " (" + o->value + " kernel module)";
      found.push_back(s);
    }
    if (const auto& c = g_.cuda_version()) found.push_back("CUDA " + c->value + " (driver API)");
    if (const auto& k = g_.kernel()) found.push_back("kernel " + k->text);
    if (const auto& o = g_.ofed_version()) found.push_back(o->value);
    for (const auto& [name, f] : g_.module_versions()) {
      if (name == "nvidia_peermem" || name == "mlx5_core" || name == "ib_core") {
        found.push_back(name + " " + f.value);
      }
    }
    if (const auto& ib = g_.ib_devices()) {
      for (const IbDevice& d : *ib) {
        if (!d.fw_ver.empty()) found.push_back(d.name + " firmware " + d.fw_ver);
      }
    }
    if (!found.empty()) {
      std::string text;
      for (const std::string& f : found) text += (text.empty() ? "" : ", ") + f;
      add("GUEST011", {}, "found: " + text);
    }
    if (!g_.driver_version() && (!gpus_.empty() || !g_.smi_gpus().empty() || !gpus_known())) {
      not_checked("GUEST011", "NVIDIA driver version",
                  "`nvidia-smi -q` or `grep . /sys/module/nvidia/version`");
    }
    if (!g_.kernel()) not_checked("GUEST011", "kernel release", "`uname -r`");
  }

  const Guest& g_;
  const pci::Host& h_;
  const NcclTopoInput* topo_ = nullptr;
  std::vector<std::size_t> gpus_;
  std::vector<std::size_t> nics_;
  std::vector<Finding> out_;
};

}  // namespace

const std::vector<CheckInfo>& checks() { return kChecks; }

const CheckInfo* find_check(std::string_view id) {
  for (const CheckInfo& c : kChecks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

std::string check_doc(const CheckInfo& info) {
  std::string anchor = std::string(info.id) + "-" + std::string(info.name);
  std::transform(anchor.begin(), anchor.end(), anchor.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
  return "docs/guest-check.md#" + anchor;
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

namespace {

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
    best.gdr = best.cls == pci::PathClass::pix || best.cls == pci::PathClass::pxb;
    out.push_back(std::move(best));
  }
  return out;
}

}  // namespace

std::vector<NcclPair> nccl_view(const Guest& g, const NcclTopoInput* topo) {
  std::vector<NcclPair> out;
  const pci::Host& h = g.pci();
  std::optional<NcclGuestView> view;
  if (topo != nullptr) view = nccl_guest_view(topo->tree, g);
  // NCCL's class with the file, when both devices are among those NCCL places.
  auto file_class = [&](std::size_t a, std::size_t b) -> std::optional<pci::PathClass> {
    if (!view) return std::nullopt;
    const auto na = view->node_of.find(a);
    const auto nb = view->node_of.find(b);
    if (na == view->node_of.end() || nb == view->node_of.end()) return std::nullopt;
    const NcclPairPath* p = view->paths.find(na->second, nb->second);
    if (p == nullptr) return std::nullopt;
    return class_of(p->type);
  };
  std::vector<std::size_t> gpus;
  std::vector<std::size_t> nics;
  for (std::size_t i = 0; i < h.devices().size(); ++i) {
    if (is_gpu(h.at(i))) gpus.push_back(i);
    if (is_rdma(h.at(i))) nics.push_back(i);
  }
  const auto& smi_topo = g.smi_topo();
  auto smi_class = [&](std::size_t gpu_ordinal, std::size_t nic_ordinal) {
    if (!smi_topo) return pci::PathClass::unknown;
    return class_from_smi(
        smi_topo->cell(fmt::format("GPU{}", gpu_ordinal), fmt::format("NIC{}", nic_ordinal)));
  };
  if (!gpus.empty() && !nics.empty()) {
    for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
      NcclPair best;
      best.gpu_index = gpus[gi];
      bool have = false;
      for (std::size_t ni = 0; ni < nics.size(); ++ni) {
        const auto with_file = file_class(gpus[gi], nics[ni]);
        pci::PathClass c = with_file ? *with_file : nccl_path_class(h, gpus[gi], nics[ni]);
        bool smi = false;
        if (c == pci::PathClass::unknown && smi_topo && !with_file) {
          c = smi_class(gi, ni);
          smi = c != pci::PathClass::unknown;
        }
        if (!have || c < best.cls) {
          have = true;
          best.cls = c;
          best.nic_index = nics[ni];
          best.nic_name = ib_name_for(g, h.at(nics[ni]), ni);
          best.from_smi_topo = smi;
          best.from_nccl_topo = with_file.has_value();
        }
      }
      best.gdr = best.cls == pci::PathClass::pix || best.cls == pci::PathClass::pxb;
      out.push_back(std::move(best));
    }
    return out;
  }
  if (smi_topo && gpus.empty()) return smi_view(*smi_topo);
  return out;
}

std::vector<Finding> check_guest(const Guest& g, const NcclTopoInput* topo) {
  return Checker(g, topo).run();
}

}  // namespace vmxkit::guest
