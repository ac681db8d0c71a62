// SPDX-License-Identifier: Apache-2.0
// What a VM's guest shows about its passthrough GPUs and NICs: command outputs captured inside
// the guest, each detected by its content, merged into one Guest.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/model/cmdline.h"
#include "vmxkit/model/host.h"
#include "vmxkit/model/smi_topo.h"

namespace vmxkit::guest {

/// The kinds of guest input, by the command that prints them.
enum class InputKind : unsigned char {
  lspci,             ///< `lspci`, `lspci -vvv` (any -n/-D), read by the pci loaders
  lspci_tree,        ///< `lspci -tv`
  lsmod,             ///< `lsmod` or `/proc/modules`
  cmdline,           ///< `/proc/cmdline`
  nvidia_smi,        ///< plain `nvidia-smi` (its table header names the driver and CUDA)
  nvidia_smi_query,  ///< `nvidia-smi -q`
  nvidia_smi_topo,   ///< `nvidia-smi topo -m`
  ibv_devinfo,       ///< `ibv_devinfo`
  uname,             ///< `uname -r` or `uname -a`
  module_versions,   ///< `grep . /sys/module/*/version` (`/sys/module/nvidia/version:550.54.15`)
  nvidia_version,    ///< `/proc/driver/nvidia/version`
  modinfo,           ///< `modinfo nvidia` (or another module)
  ofed_info,         ///< `ofed_info -s`
  nccl_log,          ///< NCCL's log (`NCCL_DEBUG=INFO`): lines with ` NCCL INFO `
  environment,       ///< `env`, `printenv`: `NAME=value` lines
  nccl_topo_dump,    ///< NCCL's detected topology (`NCCL_TOPO_DUMP_FILE`): `<system version>` XML
};
std::string_view to_string(InputKind kind);

/// One input read: where, and what it was taken for.
struct InputRead {
  InputKind kind = InputKind::lspci;
  pci::Origin where;      ///< file and first line of the section
  std::string command;    ///< the shell command before it in the capture, when the capture says
  bool filtered = false;  ///< the command pipes lspci through a filter (`lspci | grep nvidia`)
};

/// A kernel release, `5.15.0-91-generic`.
struct KernelRelease {
  std::string text;
  unsigned major = 0;
  unsigned minor = 0;
  pci::Origin where;
};

/// A loaded kernel module (lsmod, /proc/modules).
struct Module {
  std::string name;
  pci::Origin where;
};

/// A GPU as `nvidia-smi -q` (or the plain `nvidia-smi` table) shows it.
struct SmiGpu {
  std::optional<Bdf> bus_id;
  std::string product;
  std::optional<std::uint64_t> bar1_total;  ///< bytes, `BAR1 Memory Usage` / `Total`
  pci::Origin where;
};

/// An RDMA device as `ibv_devinfo` shows it.
struct IbPort {
  unsigned number = 0;
  std::string state;  ///< "PORT_ACTIVE"
  std::string link_layer;
  pci::Origin where;
};
struct IbDevice {
  std::string name;  ///< hca_id, "mlx5_0"
  std::string transport;
  std::string fw_ver;
  std::vector<IbPort> ports;
  pci::Origin where;
};

/// `nvidia-smi topo -m`, read by the one reader hosts use too (formats/host/nvidia_smi_topo.h).
using SmiTopo = pci::SmiTopo;

/// A fact with the line it came from.
struct Fact {
  std::string value;
  pci::Origin where;
};

// --- NCCL's log (NCCL_DEBUG=INFO) ---------------------------------------------------------------
// What NCCL says it decided, as printed; analysis/nccl_log.h gives the numbers their meaning (the
// path type numbers depend on NCCL's version). Formats: docs/guest-check.md, "NCCL's log".

/// `GPU Direct RDMA Disabled|Enabled for GPU G / HCA H (distance D > L)` (ncclTopoCheckGdr,
/// src/graph/paths.cc, NCCL 2.6-2.29; 2.29 prints `GPU/S-L (rank R) - NET/S-L (...)`).
struct NcclGdrLine {
  bool enabled = false;
  std::string gpu;           ///< as printed: a bus id in hex (`ca000`, 2.6-2.23) or a rank (2.24+)
  std::string hca;           ///< as printed: the net device (`0`), or `S-L` (2.29)
  bool gpu_is_rank = false;  ///< the line names the GPU by its rank (2.29's `(rank R)`)
  int distance = 0;
  int level = 0;
  std::string host;  ///< the host name the line starts with (`host:pid:tid [dev] NCCL INFO`)
  pci::Origin where;
};

/// `NET/IB : GPU Direct RDMA Disabled|Enabled for HCA N 'mlx5_0'[ (no module)]` (the IB plugin:
/// net_ib.cc ncclIbGetProperties 2.5-2.12, src/graph/topo.cc ncclTopoProcessNet 2.13+).
struct NcclHcaGdrLine {
  bool enabled = false;
  unsigned index = 0;
  std::string name;
  pci::Origin where;
};

/// One device of `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ...` (ncclIbInit).
struct NcclNetDevice {
  unsigned index = 0;
  std::string name;  ///< mlx5_0
  std::string link;  ///< IB, RoCE
};

/// `Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA` (net.cc, p2p.cc, shm.cc; `Ring 00`
/// before 2.7, no `/0` before 2.12, `R[busId]` before 2.18.3, `R[nvmlDev]` since).
struct NcclChannelLine {
  unsigned channel = 0;
  std::string from;  ///< `0[0]` as printed: rank and, in brackets, nvmlDev or bus id
  std::string to;
  std::string direction;  ///< "send", "receive" or empty
  std::string via;  ///< what follows `via `: `NET/IB/0/GDRDMA`, `P2P/IPC`, `SHM/direct/direct`
  std::string net;  ///< the NET plugin's name (`IB`, `Socket`), empty for P2P and SHM
  std::optional<unsigned> net_dev;
  bool gdr = false;  ///< `/GDRDMA`
  std::string host;
  pci::Origin where;
};

/// `Pattern 4, crossNic 0, nChannels 2, bw 12.0/12.0, type PHB/PIX, sameChannels 1`
/// (ncclTopoPrintGraph, src/graph/search.cc; `speed` before 2.14).
struct NcclGraphLine {
  int pattern = 0;
  int channels = 0;
  std::string type_intra;
  std::string type_inter;
  pci::Origin where;
};

/// `comm 0x.. rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 3000 ... - Init START|COMPLETE`
/// (ncclCommInitRankFunc, src/init.cc): which GPU a rank and an nvmlDev are.
struct NcclRankLine {
  int rank = 0;
  int nvml_dev = 0;
  std::string bus_id;  ///< hex as printed, `3000` for 0000:03:00.0 (int64ToBusId)
  std::string host;
  pci::Origin where;
};

/// Everything NCCL's INFO log says that guest-check reads.
struct NcclLog {
  std::optional<Fact> version;  ///< `NCCL version 2.21.5+cuda12.4` -> "2.21.5+cuda12.4"
  /// `NAME set by environment to VALUE` (ncclGetLevel, ncclLoadParam, ...): the first of each.
  std::map<std::string, Fact> env;
  std::optional<Fact> network;  ///< `Using network IB` (init.cc)
  std::vector<NcclNetDevice> ib_devices;
  std::optional<pci::Origin> ib_using;      ///< the `NET/IB : Using ...` line
  std::optional<pci::Origin> ib_no_device;  ///< `NET/IB : No device found.`
  std::optional<Fact> socket_using;         ///< `NET/Socket : Using [0]eth0:...`
  std::vector<NcclGdrLine> gdr;
  std::vector<NcclHcaGdrLine> hca_gdr;
  std::vector<NcclChannelLine> channels;
  std::vector<NcclGraphLine> graphs;
  std::vector<NcclRankLine> ranks;
  std::vector<Fact> dmabuf_failures;  ///< `Failed to register memory with DMA-BUF, error=N`
};

/// An `NCCL_TOPO_DUMP_FILE` given among the guest inputs: its text, read by the caller with
/// report/nccl_topo_xml.h (the reader lives above the model).
struct NcclTopoDumpText {
  std::string text;
  pci::Origin where;
};

/// Everything the guest inputs say, merged.
class Guest {
 public:
  Guest();

  // --- building ---
  // Inputs are read by formats/guest/load.h (load_text(), load_guest()).
  /// Builds the PCI tree; call once after the last input.
  void finalize();
  bool finalized() const { return finalized_; }

  // --- what was read ---
  const std::vector<InputRead>& inputs() const { return inputs_; }
  bool has(InputKind kind) const;
  /// A full (unfiltered) lspci listing was given.
  bool has_full_lspci() const;
  /// lspci -vv or more was given: BARs, capabilities and links are known.
  bool has_lspci_verbose() const { return lspci_verbose_; }
  const pci::Host& pci() const { return host_; }
  const std::optional<std::vector<Module>>& modules() const { return modules_; }
  const std::optional<pci::KernelCmdline>& cmdline() const { return cmdline_; }
  const std::optional<KernelRelease>& kernel() const { return kernel_; }
  const std::optional<Fact>& driver_version() const { return driver_version_; }
  const std::optional<Fact>& cuda_version() const { return cuda_version_; }
  const std::vector<SmiGpu>& smi_gpus() const { return smi_gpus_; }
  const std::optional<std::vector<IbDevice>>& ib_devices() const { return ib_devices_; }
  const std::optional<SmiTopo>& smi_topo() const { return smi_topo_; }
  /// `/sys/module/NAME/version` values by module name.
  const std::map<std::string, Fact>& module_versions() const { return module_versions_; }
  /// The NVIDIA kernel module flavour: true = open GPU kernel module, false = proprietary.
  const std::optional<Fact>& open_kernel_module() const { return open_module_; }
  /// Modules `modinfo` described (installed, whether or not loaded), by name.
  const std::map<std::string, Fact>& modinfo() const { return modinfo_; }
  const std::optional<Fact>& ofed_version() const { return ofed_version_; }
  /// The NCCL_TOPO_FILE NCCL runs with, from NCCL's log or the environment.
  const std::optional<Fact>& nccl_topo_file() const { return nccl_topo_file_; }
  /// What NCCL's log says it decided; nullopt when no NCCL log was given.
  const std::optional<NcclLog>& nccl_log() const { return nccl_log_; }
  /// The first `NCCL_TOPO_DUMP_FILE` given, as text.
  const std::optional<NcclTopoDumpText>& nccl_topo_dump() const { return nccl_topo_dump_; }

  /// Whether a module is loaded: per lsmod, else per /sys/module/NAME/version (a module with
  /// a version file is loaded), else per lspci's `Kernel driver in use`; nullopt when no
  /// input says. `-` and `_` are the same in module names.
  std::optional<bool> module_loaded(std::string_view name) const;

  // Used by the loaders.
  pci::Host& mutable_pci() { return host_; }
  void set_modules(std::vector<Module> modules);
  void set_cmdline(pci::KernelCmdline cmdline) { cmdline_ = std::move(cmdline); }
  void set_kernel(KernelRelease k) { kernel_ = std::move(k); }
  /// The release from another source (the BOOT_IMAGE name): kept only when uname gives none.
  void set_kernel_fallback(KernelRelease k) {
    if (!kernel_) kernel_ = std::move(k);
  }
  void set_driver_version(Fact f);
  void set_cuda_version(Fact f) { cuda_version_ = std::move(f); }
  void add_smi_gpu(SmiGpu gpu);
  void set_ib_devices(std::vector<IbDevice> devices);
  void set_smi_topo(SmiTopo topo) { smi_topo_ = std::move(topo); }
  void set_module_version(const std::string& name, Fact f);
  void set_open_kernel_module(bool open, pci::Origin where);
  void set_modinfo(const std::string& name, Fact f) { modinfo_[name] = std::move(f); }
  void set_ofed_version(Fact f) { ofed_version_ = std::move(f); }
  void set_nccl_topo_file(Fact f) { nccl_topo_file_ = std::move(f); }
  /// The log read so far (several logs and sections add to one).
  NcclLog& mutable_nccl_log() {
    if (!nccl_log_) nccl_log_.emplace();
    return *nccl_log_;
  }
  void set_nccl_topo_dump(NcclTopoDumpText d) {
    if (!nccl_topo_dump_) nccl_topo_dump_ = std::move(d);
  }
  void set_lspci_verbose() { lspci_verbose_ = true; }
  void add_input(InputRead read) { inputs_.push_back(std::move(read)); }

 private:
  pci::Host host_;
  std::vector<InputRead> inputs_;
  std::optional<std::vector<Module>> modules_;
  std::optional<pci::KernelCmdline> cmdline_;
  std::optional<KernelRelease> kernel_;
  std::optional<Fact> driver_version_;
  std::optional<Fact> cuda_version_;
  std::vector<SmiGpu> smi_gpus_;
  std::optional<std::vector<IbDevice>> ib_devices_;
  std::optional<SmiTopo> smi_topo_;
  std::map<std::string, Fact> module_versions_;
  std::optional<Fact> open_module_;
  std::map<std::string, Fact> modinfo_;
  std::optional<Fact> ofed_version_;
  std::optional<Fact> nccl_topo_file_;
  std::optional<NcclLog> nccl_log_;
  std::optional<NcclTopoDumpText> nccl_topo_dump_;
  bool lspci_verbose_ = false;
  bool finalized_ = false;
};

/// `a` and `b` name the same module (`-` and `_` are equal, as modprobe treats them).
bool same_module(std::string_view a, std::string_view b);

}  // namespace vmxkit::guest
