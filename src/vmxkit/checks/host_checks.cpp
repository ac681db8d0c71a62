// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/host_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/analysis/topology.h"

namespace vmxkit::pci {
namespace {

// Splits a command line on spaces, keeping quoted parts together.
void split_args(std::string_view s, std::vector<std::string>& out) {
  std::string cur;
  bool quoted = false;
  for (const char c : s) {
    if (c == '"') {
      quoted = !quoted;
    } else if ((c == ' ' || c == '\t') && !quoted) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
}

}  // namespace

std::optional<std::string> KernelCmdline::value(std::string_view key) const {
  std::optional<std::string> v;
  for (const std::string& a : args) {
    if (a.size() > key.size() && a.compare(0, key.size(), key) == 0 && a[key.size()] == '=') {
      v = a.substr(key.size() + 1);
    }
  }
  return v;
}

KernelCmdline parse_kernel_cmdline(std::string_view text, const std::string& path) {
  KernelCmdline c;
  c.path = path;
  std::uint32_t line_no = 0;
  bool grub = false;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    for (const std::string_view key : {"GRUB_CMDLINE_LINUX_DEFAULT=", "GRUB_CMDLINE_LINUX="}) {
      if (t.substr(0, key.size()) == key) {
        grub = true;
        std::string_view v = t.substr(key.size());
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
          v = v.substr(1, v.size() - 2);
        }
        split_args(v, c.args);
        if (c.line == 0) c.line = line_no;
      }
    }
  }
  if (grub) {
    c.from_grub = true;
    return c;
  }
  for (const std::string_view raw : LineRange(text)) {
    const std::string_view t = trim(raw);
    if (t.empty() || t.front() == '#') continue;
    split_args(t, c.args);
    c.line = 1;
    break;
  }
  if (c.args.empty()) {
    throw Error(path,
                "no kernel command line: expected /proc/cmdline or /etc/default/grub with "
                "GRUB_CMDLINE_LINUX_DEFAULT");
  }
  return c;
}

std::optional<bool> iommu_translating(const Host& host, const KernelCmdline& cmdline) {
  const auto pt = cmdline.value("iommu");
  if (pt == "pt" || cmdline.value("iommu") == "off") return false;
  const auto intel = cmdline.value("intel_iommu");
  const auto amd = cmdline.value("amd_iommu");
  if ((intel && intel->rfind("off", 0) == 0) || amd == "off") return false;
  if ((intel && intel->find("on") != std::string::npos) || amd == "on") return true;
  // AMD turns the IOMMU on by default when firmware enables it: cannot tell from the line.
  (void)host;
  return std::nullopt;
}

std::optional<EsxiPassthrough> esxi_passthrough(const Device& d) {
  if (!d.configured_owner.empty()) {
    return EsxiPassthrough{d.configured_owner == "VM Passthru",
                           "Configured Owner: " + d.configured_owner};
  }
  if (d.passthru_enabled) {
    return EsxiPassthrough{*d.passthru_enabled,
                           fmt::format("pcipassthru list: Enabled {}", *d.passthru_enabled)};
  }
  return std::nullopt;
}

std::optional<HostFinding> check_esxi_owner(const Device& d, PassthroughUse use) {
  constexpr std::string_view kPassthru = "VM Passthru";
  const std::optional<EsxiPassthrough> state = esxi_passthrough(d);
  const std::string bdf = d.bdf.to_string();
  const std::string what = d.model ? fmt::format("{} ({})", bdf, d.model->model) : bdf;
  if (use == PassthroughUse::full) {
    if (d.passthru_capable == false) {
      return HostFinding{"passthru-incapable", Severity::error, bdf,
                         fmt::format("{} cannot be passed through on this host (Passthru Capable: "
                                     "false)",
                                     what),
                         "check the device's firmware and the host's BIOS (VT-d/AMD-Vi, SR-IOV) "
                         "settings, or use another device"};
    }
    if (!state) return std::nullopt;
    if (!state->enabled) {
      return HostFinding{"passthru-off", Severity::warning, bdf,
                         fmt::format("{} is not enabled for passthrough ({}): the VM will not "
                                     "power on with it",
                                     what, state->said),
                         fmt::format("esxcli hardware pci pcipassthru set -d {} -e true -a "
                                     "(ESXi 7.0+; earlier: enable it under Configure > PCI "
                                     "Devices and reboot)",
                                     bdf)};
    }
    if (!d.current_owner.empty() && d.current_owner != kPassthru) {
      return HostFinding{"passthru-pending", Severity::warning, bdf,
                         fmt::format("{} is enabled for passthrough but still owned by the {} "
                                     "until the change is applied",
                                     what, d.current_owner),
                         fmt::format("reboot the host, or esxcli hardware pci pcipassthru set -d "
                                     "{} -e true -a (ESXi 7.0+)",
                                     bdf)};
    }
    return std::nullopt;
  }
  if (!state || !state->enabled) return std::nullopt;
  return HostFinding{
      "passthru-on", Severity::warning, bdf,
      fmt::format("{} is enabled for passthrough, but {} needs it owned by the VMkernel", what,
                  use == PassthroughUse::vgpu ? "vGPU (the NVIDIA vGPU manager)"
                                              : "SR-IOV (the driver that creates the VFs)"),
      fmt::format("esxcli hardware pci pcipassthru set -d {} -e false -a (ESXi 7.0+; earlier: "
                  "Configure > PCI Devices and reboot)",
                  bdf)};
}

namespace {

// The kernel command line: decides whether the IOMMU is on (AMD: on unless turned off) and in
// pass-through mode, with the GRUB line that fixes it for this CPU vendor. A KVM host must have
// it on (VFIO assigns devices through it; pass-through mode changes only host-owned DMA); bare
// metal wants it off or in pass-through mode (NVIDIA's GPUDirect RDMA guide); a host of unknown
// kind gets both, as warnings that say which kind each is for.
void check_iommu_cmdline(const KernelCmdline& cmdline, CpuVendor cpu, HostKind kind,
                         std::vector<HostFinding>& out) {
  const std::string on_arg = cpu == CpuVendor::amd ? "amd_iommu=on" : "intel_iommu=on";
  const std::string grub_fix =
      cpu == CpuVendor::unknown
          ? "add intel_iommu=on (Intel) or amd_iommu=on (AMD) and iommu=pt to "
            "GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run update-grub (or grub2-mkconfig "
            "-o /boot/grub2/grub.cfg) and reboot"
          : fmt::format(
                "add {} iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run "
                "update-grub (or grub2-mkconfig -o /boot/grub2/grub.cfg) and reboot",
                on_arg);
  const std::string where =
      cmdline.line ? fmt::format("{}:{}", cmdline.path, cmdline.line) : cmdline.path;
  const auto intel = cmdline.value("intel_iommu");
  const auto amd = cmdline.value("amd_iommu");
  const auto iommu = cmdline.value("iommu");
  const bool off = (intel && intel->rfind("off", 0) == 0) || amd == "off" || iommu == "off";
  const bool on = (intel && intel->find("on") != std::string::npos) || amd == "on" ||
                  (cpu == CpuVendor::amd && !off);
  const bool unknown = kind == HostKind::unknown;
  const std::string for_kvm =
      unknown ? " (needed on a KVM host; `--host-kind bare-metal` if it runs no VMs)" : "";
  const Severity kvm_severity = unknown ? Severity::warning : Severity::error;
  if (kind != HostKind::bare_metal) {
    if (off) {
      out.push_back({"iommu-off", kvm_severity, where,
                     "the IOMMU is turned off on the kernel command line: devices and SR-IOV VFs "
                     "cannot be assigned to VMs" +
                         for_kvm,
                     grub_fix});
    } else if (!on) {
      out.push_back({"iommu-off", kvm_severity, where,
                     fmt::format("the kernel command line does not turn the IOMMU on ({}){}",
                                 on_arg, for_kvm),
                     grub_fix});
    }
  }
  if (kind != HostKind::kvm && on && !off && iommu != "pt") {
    out.push_back({"iommu-not-pt", Severity::warning, where,
                   std::string("the IOMMU translates DMA (no iommu=pt): bare-metal GPUDirect RDMA "
                               "needs 1:1 (pass-through) translation") +
                       (unknown ? " (on bare metal; a KVM host assigns devices either way)" : ""),
                   "add iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run "
                   "update-grub and reboot"});
  }
}

// ESXi ownership: which use a device is meant for is not known here, so a GPU or RDMA NIC
// left with the VMkernel is only noted (right for vGPU and SR-IOV PFs), while a device that
// cannot be passed through or waits for a reboot is a warning.
void check_esxi_owners(const Host& host, std::vector<HostFinding>& out) {
  for (const Device& d : host.devices()) {
    if (d.role != Role::gpu && d.role != Role::rdma_nic) continue;
    if (auto f = check_esxi_owner(d, PassthroughUse::full)) {
      if (f->id == "passthru-incapable") f->severity = Severity::warning;
      if (f->id == "passthru-off") {
        f->severity = Severity::info;
        f->message = fmt::format(
            "{} is not enabled for passthrough ({}): right for {}, needed "
            "for DirectPath I/O",
            f->subject, esxi_passthrough(d)->said, d.role == Role::gpu ? "vGPU" : "SR-IOV VFs");
      }
      out.push_back(std::move(*f));
    }
  }
}

// A NIC's SR-IOV state: decides whether VFs are missing (none created on an RDMA NIC, or SR-IOV
// off in ConnectX firmware) or more are asked for than the device has.
void check_sriov(const Device& d, bool esxi, std::vector<HostFinding>& out) {
  if (d.sriov && d.sriov->total_vfs && d.sriov->num_vfs) {
    const unsigned total = *d.sriov->total_vfs;
    const unsigned num = *d.sriov->num_vfs;
    if (num == 0 && d.role == Role::rdma_nic) {
      out.push_back({"sriov-no-vfs", Severity::warning, d.bdf.to_string(),
                     fmt::format("SR-IOV: no VFs created (Number of VFs: 0, Total VFs: {})", total),
                     esxi ? fmt::format("esxcli system module parameters set -m nmlx5_core -p "
                                        "max_vfs={}, then reboot the host (VFs of ConnectX "
                                        "adapters; or Configure > PCI Devices > SR-IOV)",
                                        std::min(total, 8U))
                          : fmt::format("echo {} > /sys/bus/pci/devices/{}/sriov_numvfs (not "
                                        "kept across reboots: set it in a udev rule or the "
                                        "driver's options)",
                                        std::min(total, 8U), d.bdf.to_string())});
    } else if (num > total) {
      out.push_back({"sriov-too-many-vfs", Severity::error, d.bdf.to_string(),
                     fmt::format("SR-IOV: Number of VFs {} is above Total VFs {}", num, total),
                     fmt::format("echo 0 > /sys/bus/pci/devices/{0}/sriov_numvfs; echo {1} > "
                                 "/sys/bus/pci/devices/{0}/sriov_numvfs",
                                 d.bdf.to_string(), total)});
    }
  } else if (d.sriov && d.sriov->total_vfs == 0U && d.vendor_id == 0x15b3) {
    out.push_back({"sriov-no-vfs", Severity::warning, d.bdf.to_string(),
                   "SR-IOV is off in the NIC firmware (Total VFs: 0)",
                   fmt::format("mlxconfig -d {} set SRIOV_EN=1 NUM_OF_VFS=8, then reboot",
                               d.bdf.to_string())});
  }
}

// An RDMA NIC's ATS: decides whether it is off (ATSCtl Enable-) or absent where lspci read the
// capabilities (ConnectX firmware with ATS disabled).
void check_ats(const Device& d, std::vector<HostFinding>& out) {
  if (d.ats_present && d.ats_enabled == false) {
    out.push_back({"ats-disabled", Severity::warning, d.bdf.to_string(),
                   "ATS is off (ATSCtl Enable-): in a VM, where ACS stays on, GPUDirect RDMA "
                   "goes through the root complex",
                   fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host",
                               d.bdf.to_string())});
  } else if (!d.ats_present && d.vendor_id == 0x15b3 && d.port_type != PortType::unknown &&
             !d.port_type_inferred) {
    out.push_back({"ats-absent", Severity::warning, d.bdf.to_string(),
                   "no ATS capability in lspci -vvv: the NIC firmware has ATS disabled (needed for "
                   "GPUDirect RDMA in a VM)",
                   fmt::format("mlxconfig -d {} set ATS_ENABLED=true, then reboot the host",
                               d.bdf.to_string())});
  }
}

// ACS redirect on bridges between GPUs and NICs, once per bridge: on the path of every pair, or
// on a host too large for that (Topology::listed), of each GPU and its nearest peers.
void check_acs_redirect(const Host& host, std::vector<HostFinding>& out) {
  const Topology topo = analyze(host, {});
  std::set<std::size_t> reported;
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> bypassed;  // bridge -> a pair
  auto report = [&](std::size_t a, std::size_t b, const Path& path) {
    const bool ok = acs_redirect_bypassed(host, a, b, path);
    for (const std::size_t br : path.acs_redirect) {
      if (ok) {
        bypassed.emplace(br, std::pair(a, b));
        continue;
      }
      if (!reported.insert(br).second) continue;
      const Device& d = host.at(br);
      out.push_back(
          {"acs-redirect", Severity::warning, d.bdf.to_string(),
           fmt::format(
               "ACS on bridge {} redirects peer traffic to the root complex ({}), "
               "on the path {} <-> {}; in a VM ACS stays on, and GPUDirect needs ATS on the NIC "
               "and DirectTrans on the bridge (NVIDIA's VM configuration)",
               d.bdf.to_string(), d.acs->ctl_text(), host.at(a).bdf.to_string(),
               host.at(b).bdf.to_string()),
           fmt::format("bare metal: setpci -s {} ECAP_ACS+0x6.w=0000 (not persistent), or "
                       "pci=disable_acs_redir={} on the kernel command line",
                       d.bdf.to_string(), d.bdf.to_string())});
    }
  };
  for (const PairVerdict& v : topo.pairs) report(v.a, v.b, v.path);
  for (std::size_t i = 0; i < topo.nearest.size(); ++i) {
    const std::size_t g = topo.gpus[i];
    for (const Peer& p : topo.nearest[i].gpus) {
      report(g, topo.gpus[p.index], classify(host, g, topo.gpus[p.index]));
    }
    for (const Peer& p : topo.nearest[i].nics) {
      report(g, topo.nics[p.index], classify(host, g, topo.nics[p.index]));
    }
  }
  // A bridge whose redirect no pair is stopped by: said, not warned about.
  for (const auto& [br, pair] : bypassed) {
    if (reported.count(br) != 0) continue;
    const Device& d = host.at(br);
    out.push_back(
        {"acs-redirect",
         Severity::info,
         d.bdf.to_string(),
         fmt::format("ACS on bridge {} redirects peer traffic ({}), but DirectTrans+ lets the "
                     "translated requests of devices with ATS on go peer to peer (on the path "
                     "{} <-> {}), as NVIDIA's VM configuration has it",
                     d.bdf.to_string(), d.acs->ctl_text(), host.at(pair.first).bdf.to_string(),
                     host.at(pair.second).bdf.to_string()),
         {}});
  }
}

// Whether lspci read the device's PCI Express capability (not inferred from the tree shape):
// `lspci -tv`, esxcli and `lspci -vvv` run without root do not. check_ats() needs it to call a
// missing ATS capability absent.
bool express_read(const Device& d) {
  return d.port_type != PortType::unknown && !d.port_type_inferred;
}

// Whether lspci listed any capability of the device.
bool capabilities_read(const Device& d) {
  return express_read(d) || d.acs || d.ats_present || d.sriov || d.link_cap;
}

std::string list_some(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 6;
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > kShown) out += fmt::format(" and {} more", items.size() - kShown);
  return out;
}

// Each check the inputs could not answer, as a "not-checked" finding that says what input
// would answer it: a host is never reported ready on checks nobody made.
void report_unchecked(const Host& host, const std::optional<KernelCmdline>& cmdline, bool esxi,
                      std::vector<HostFinding>& out) {
  bool iommu_groups = false;
  std::vector<std::string> nics_sriov, nics_ats, bridges;
  for (const Device& d : host.devices()) {
    iommu_groups = iommu_groups || d.iommu_group.has_value();
    if (d.role == Role::rdma_nic) {
      if (!d.sriov && !capabilities_read(d)) nics_sriov.push_back(d.bdf.to_string());
      if (!d.ats_present && !express_read(d)) nics_ats.push_back(d.bdf.to_string());
    } else if (d.role == Role::bridge && d.secondary_bus && !d.acs && !capabilities_read(d)) {
      bridges.push_back(d.bdf.to_string());
    }
  }
  constexpr std::string_view kCaps = "an lspci -vvv capture of the host, run as root";
  // On ESXi the IOMMU (VT-d, AMD-Vi) is a firmware setting, and esxcli's Passthru Capable
  // reflects it; on Linux the kernel command line or the IOMMU groups in sysfs say.
  if (!cmdline && !esxi && !iommu_groups) {
    out.push_back({"not-checked", Severity::info, "",
                   "IOMMU: not checked (needs: --cmdline /proc/cmdline, a sysfs capture, or an "
                   "esxcli hardware pci list capture)",
                   ""});
  }
  if (!nics_sriov.empty()) {
    out.push_back(
        {"not-checked", Severity::info, "",
         fmt::format("SR-IOV of {}: not checked (needs: {})", list_some(nics_sriov), kCaps), ""});
  }
  if (!nics_ats.empty()) {
    out.push_back({"not-checked", Severity::info, "",
                   fmt::format("ATS of {}: not checked (needs: {})", list_some(nics_ats), kCaps),
                   ""});
  }
  if (!bridges.empty()) {
    out.push_back(
        {"not-checked", Severity::info, "",
         fmt::format("ACS of the bridges {}: not checked (needs: {})", list_some(bridges), kCaps),
         ""});
  }
}

}  // namespace

std::string_view to_string(HostKind kind) {
  switch (kind) {
    case HostKind::esxi:
      return "ESXi";
    case HostKind::kvm:
      return "Linux KVM host";
    case HostKind::bare_metal:
      return "Linux bare metal";
    case HostKind::unknown:
      break;
  }
  return "Linux, kind unknown";
}

std::optional<HostKind> parse_host_kind(std::string_view text) {
  if (text == "esxi") return HostKind::esxi;
  if (text == "kvm") return HostKind::kvm;
  if (text == "bare-metal") return HostKind::bare_metal;
  return std::nullopt;
}

HostKind detect_host_kind(const Host& host, const std::optional<KernelCmdline>& cmdline) {
  // An ESXi capture (esxcli) says who owns each device.
  if (std::any_of(host.devices().begin(), host.devices().end(),
                  [](const Device& d) { return esxi_passthrough(d).has_value(); })) {
    return HostKind::esxi;
  }
  const bool vfio_bound = std::any_of(host.devices().begin(), host.devices().end(),
                                      [](const Device& d) { return d.driver == "vfio-pci"; });
  const bool vfio_ids =
      cmdline && (cmdline->value("vfio-pci.ids") || cmdline->value("vfio_pci.ids"));
  return vfio_bound || vfio_ids ? HostKind::kvm : HostKind::unknown;
}

std::vector<HostFinding> check_host(const Host& host, const std::optional<KernelCmdline>& cmdline,
                                    HostKind kind) {
  std::vector<HostFinding> out;
  const HostKind detected = detect_host_kind(host, cmdline);
  if (kind == HostKind::unknown) kind = detected;
  // ESXi has no GRUB and no kernel command line for the IOMMU, which is VT-d / AMD-Vi in the
  // server firmware.
  const bool esxi = kind == HostKind::esxi;
  out.push_back({"host-kind", Severity::info, "",
                 fmt::format("host: {}{}", to_string(kind),
                             kind == HostKind::unknown
                                 ? " (no vfio-pci binding or esxcli capture; say --host-kind "
                                   "kvm or bare-metal): the advice covers both"
                                 : (kind == detected ? " (from the inputs)" : " (--host-kind)")),
                 ""});
  if (cmdline && esxi) {
    out.push_back({"iommu-esxi", Severity::info, cmdline->path,
                   "the host is ESXi (esxcli capture): its IOMMU is not set on a kernel command "
                   "line but in the server firmware (Intel VT-d, AMD-Vi); esxcli's Passthru "
                   "Capable shows whether it is on",
                   ""});
  } else if (cmdline) {
    check_iommu_cmdline(*cmdline, cpu_vendor(host), kind, out);
  }
  check_esxi_owners(host, out);
  for (const Device& d : host.devices()) {
    if (d.role != Role::rdma_nic && d.role != Role::nic) continue;
    check_sriov(d, esxi, out);
    if (d.role == Role::rdma_nic) check_ats(d, out);
  }
  check_acs_redirect(host, out);
  report_unchecked(host, cmdline, esxi, out);
  for (const HostWarning& w : host.warnings()) {
    out.push_back(
        {"input", Severity::info, w.where.path.empty() ? "" : w.where.to_string(), w.message, ""});
  }
  return out;
}

}  // namespace vmxkit::pci
