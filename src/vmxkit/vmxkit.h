// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/core/signal_safe.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/model/vm_config.h"

/// vmxkit's public API: the one header an embedder includes (`#include <vmxkit/vmxkit.h>`,
/// `find_package(vmxkit)` and link `vmxkit::core`).
///
/// The pipeline the `vmxkit` command line is made of:
///
///     vmxkit::Input in = vmxkit::load_file("vm.vmx");       // .vmx, ConfigSpec, VI/JSON, OVF
///     vmxkit::Host host = vmxkit::load_host({"lspci.txt"});  // lspci, esxcli, numactl, sysfs
///     vmxkit::LintReport r = vmxkit::lint(in, {.host = &host});  // the rule catalogue
///     vmxkit::FixResult f = vmxkit::fix(in);                  // safe fixes, as text edits
///     vmxkit::Topology t = vmxkit::analyze(host);             // path classes, P2P verdicts
///     vmxkit::MmioSize m = vmxkit::size_mmio(&host, {"0000:3b:00.0"});
///     vmxkit::Plan p = vmxkit::plan(&host, {.gpus = {"auto"}, .nics = {"auto"}});
///     std::string vmx = vmxkit::render(p, "vmx");            // or any output of format_table()
///
/// And around it: the rule catalogue (rules()), `.vmx` edits that keep every other byte
/// (VmxDocument, vmx_set(), vmx_unset()), the one write path (read_file_bytes(),
/// write_file_bytes(): atomic, locked, compare-and-swap), `vmxkit apply` (config_change()
/// without a server, apply_plan() against one) and a server's hosts and VMs (load_server_host(),
/// lint_server()). What talks to a server is in `vmxkit::client`, which links the vSphere client
/// and loads libcurl when it first talks to one.
///
/// Conventions: every function returns values (no handles to free; Host, Catalog and Plan are
/// cheap to copy and immutable). Problems in a user's file are `Diagnostic` values; a condition
/// that stops the work (unreadable file, input that cannot be read as its format, a request
/// that cannot work) throws `vmxkit::Error`, whose `what()` starts with `file:line:col: ` when
/// there is one. The library never prints and never exits. Host, Catalog, Plan and VmxDocument
/// values never change once made, so threads may share them and call these functions on them
/// at once.
///
/// Re-exported as they are: Diagnostic, Severity, Fix, FixSafety, Note, TextEdit (fixes),
/// Location, LineIndex, SourceSpan (positions), Bdf (PCI addresses), VmConfig, Setting,
/// PassthroughDevice (the neutral VM model) and Error; and what a program's signal handlers may
/// call (allow_mapped_inputs(), mapped_input_at(), remove_temporary_files()).
namespace vmxkit {

class Host;
class Catalog;

namespace detail {
struct Access;  // how the implementation reaches the internals behind Host, Catalog and Plan
}  // namespace detail

// ------------------------------------------------------------------------------------------------
// Version

/// The library's version, `MAJOR.MINOR.PATCH`, as CMake's `project(VERSION)` gives it.
std::string_view version();

// ------------------------------------------------------------------------------------------------
// Inputs: a VM configuration in any format

/// A format of vmxkit's one format table: every form it reads or writes, with what it can carry.
struct FormatInfo {
  std::string name;     ///< "vmx", "configspec-xml", "terraform", "lspci-vvv"...
  std::string subject;  ///< "vm", "host" or "guest"
  std::string summary;
  bool input = false;   ///< read by load() (VM formats) or load_host() (host formats)
  bool output = false;  ///< written by render()
  /// What a VM format can carry beyond settings, memory and firmware: a plan that holds more is
  /// refused by its writer, never cut short.
  bool host_address = false;        ///< DirectPath I/O devices by host address
  bool dynamic_directpath = false;  ///< devices by vendor/device id, placed by vSphere
  bool vgpu = false;
  bool sriov = false;
  bool device_groups = false;
  bool dvx = false;
};
/// Every format, in the table's order.
std::vector<FormatInfo> format_table();
/// A format by name, or nullopt.
std::optional<FormatInfo> find_format(std::string_view name);
/// `formats` as `vmxkit formats --format json` writes them: `{"formats": [...]}`, each with its
/// name, subject, summary, input, output and what it carries; two-space indentation and a final
/// newline.
std::string render_formats_json(const std::vector<FormatInfo>& formats);

/// One VM of an input file.
struct InputVm {
  /// The OVF VirtualSystem id; for a VM's configuration from a vSphere client, the VM's name
  /// (else its moref); empty for a `.vmx` and a ConfigSpec.
  std::string name;
  std::string moref;  ///< `vm-42`, where the document names the VM's managed object
  VmConfig config;    ///< spans point into Input::bytes
};

/// A loaded VM configuration: the bytes as read and the neutral model of each VM in them.
struct Input {
  std::string path;            ///< as given to load(); names the file in messages
  std::string bytes;           ///< exactly as read
  std::string format = "vmx";  ///< the format table's name of what was read
  /// One, except for OVF files with several VirtualSystems and vSphere client documents with
  /// several VMs (a RetrievePropertiesEx response, `govc vm.info -json` of several VMs).
  std::vector<InputVm> vms;
  /// Problems reading the file as its format, which lint() reports again: a `.vmx` line VMware
  /// cannot read (VMX001/VMX002; the line is not a setting), a ConfigSpec schema finding (XML001).
  std::vector<Diagnostic> diagnostics;
  std::string vm;   ///< SOAP: the `_this` VirtualMachine moref; else empty
  LineIndex lines;  ///< of `bytes`

  /// Line and column of a byte offset (a Diagnostic's `begin`).
  Location location(std::size_t offset) const { return lines.location(offset); }
  /// The configuration of the file's one VM. Throws vmxkit::Error naming the VirtualSystems
  /// when an OVF file holds several (pick one from `vms`).
  const VmConfig& config() const;
};

/// Reads `bytes` (named `path` in messages) in whatever VM format they are (the format_table() rows
/// with subject "vm" and `input`; a leading BOM is skipped, the path's extension is not consulted).
/// Throws vmxkit::Error with file:line:col when the content cannot be read as its format: malformed
/// or unsafe XML, malformed JSON, values of the wrong type. A `.vmx` never throws: what VMware
/// cannot read is in `diagnostics`.
Input load(std::string path, std::string bytes);

/// Reads the file at `path` and load()s it. Throws vmxkit::Error when the file cannot be read
/// (naming it) or is larger than 1 GiB, and as load().
Input load_file(const std::string& path);

// ------------------------------------------------------------------------------------------------
// Device catalogue

/// What a PCI device is for the GPU/NIC analysis.
enum class DeviceRole : unsigned char {
  other,
  bridge,    ///< a root port, switch port or other PCI bridge
  gpu,       ///< an NVIDIA GPU
  rdma_nic,  ///< an RDMA-capable NIC physical function (ConnectX/BlueField)
  nic_vf,    ///< an SR-IOV virtual function of an RDMA NIC
  nic,       ///< another network controller
};
/// "other", "bridge", "gpu", "rdma-nic", "nic-vf", "nic".
std::string_view to_string(DeviceRole role);

/// A GPU model's NVLink, as the catalogue's sources say.
enum class NvlinkSupport : unsigned char {
  unknown,    ///< not sourced (also every model that is not a GPU)
  no,         ///< the model has no NVLink
  bridge,     ///< a PCIe board that takes an NVLink bridge to boards of its model
  baseboard,  ///< an SXM/OAM/superchip part: NVLink to peers or NVSwitches on its baseboard
};
/// "unknown", "no", "bridge", "baseboard".
std::string_view to_string(NvlinkSupport nvlink);

/// One model the catalogue knows.
struct CatalogModel {
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::string alias;  ///< the name plan() and size_mmio() accept ("h100-pcie"); may be empty
  std::string model;  ///< "H100 PCIe"
  DeviceRole role = DeviceRole::other;
  std::optional<unsigned> framebuffer_gb;
  NvlinkSupport nvlink = NvlinkSupport::unknown;
  /// For `bridge`: the most boards one NVLink bridge set joins, when the sources say.
  std::optional<unsigned> nvlink_bridge_gpus;
  std::string origin;  ///< "built-in", or FILE:LINE of the user file that gave it

  std::string id() const;  ///< "10de:2331"
};

/// The device catalogue: models with their BAR sizes and GPUDirect support.
class Catalog {
 public:
  /// The catalogue compiled into vmxkit (read on first use: constructing one costs nothing).
  Catalog();

  /// Every model, in catalogue order.
  std::vector<CatalogModel> models() const;
  /// A model by alias ("h100-pcie", ASCII case-insensitive) or vendor:device id ("10de:2331").
  std::optional<CatalogModel> find(std::string_view alias_or_id) const;

 private:
  friend struct detail::Access;
  struct Impl;
  explicit Catalog(std::nullptr_t) {}
  const Impl& impl() const;           ///< impl_, or the built-in catalogue's
  std::shared_ptr<const Impl> impl_;  ///< null: the built-in catalogue
};

/// The built-in catalogue with user catalogue files (the `catalog.tsv` format) merged over it,
/// in order: a file's entry adds a model or replaces one with the same vendor:device id.
/// Throws vmxkit::Error when a file cannot be read, or with file:line:col for a malformed line.
Catalog load_catalog(const std::vector<std::string>& files);

// ------------------------------------------------------------------------------------------------
// Hosts: the PCIe tree passthrough devices come from

/// One host input: a file (`lspci -vvv` with or without `-nn`/`-D`, `lspci -tv`,
/// `esxcli hardware pci list`, `esxcli hardware pci pcipassthru list`, `numactl --hardware`,
/// `esxcli hardware memory get`; format detected), a sysfs directory laid out like
/// /sys/bus/pci/devices, or `live` (this machine's); or a capture already in memory.
struct HostSource {
  std::string path;                 ///< the file, directory or `live`; names `text` when given
  std::optional<std::string> text;  ///< the capture's text (read from stdin, a socket...)

  /// Implicit, so a list of paths is a list of sources: `load_host({"a.txt", "numa.txt"})`.
  HostSource(std::string source) : path(std::move(source)) {}
  HostSource(const char* source) : path(source) {}
  /// A capture already read; `name` is how messages call it.
  static HostSource from_text(std::string name, std::string text);
};

/// A PCI function of a host, as the inputs describe it.
struct HostDevice {
  Bdf address;
  std::optional<std::uint16_t> vendor_id;
  std::optional<std::uint16_t> device_id;
  DeviceRole role = DeviceRole::other;
  std::string description;  ///< "0000:c1:00.0 (RTX 6000 Ada Generation)"
  std::string model;        ///< the catalogue model ("H100 PCIe"), or empty when not known
  std::optional<int> numa_node;
};

/// A host's PCI devices merged from every input, as a tree under its root buses.
class Host {
 public:
  /// Every function, in PCI address order.
  const std::vector<HostDevice>& devices() const;
  /// The device at `address`, or nullptr.
  const HostDevice* find(const Bdf& address) const;
  /// What the loaders skipped or could not tell, "FILE:LINE: message" where about one line.
  const std::vector<std::string>& warnings() const;
  /// The catalogue the host's devices were matched against.
  Catalog catalog() const;

 private:
  friend struct detail::Access;
  struct Impl;
  Host() = default;
  std::shared_ptr<const Impl> impl_;
};

/// Loads and merges host inputs, matching devices against `catalog`. Throws vmxkit::Error when
/// an input cannot be read, or with file:line:col when its text is none of the known formats;
/// what a loader skips is a warning. Several inputs of one host merge (an `lspci -vvv` plus
/// `numactl --hardware`).
Host load_host(const std::vector<HostSource>& sources, const Catalog& catalog = Catalog());

// ------------------------------------------------------------------------------------------------
// Topology: how GPUs and NICs reach each other

/// nvidia-smi `topo -m` path classes, closest first.
enum class PathClass : unsigned char {
  self,     ///< X: the same function
  pix,      ///< at most one PCIe switch
  pxb,      ///< several switches, below the host bridge
  phb,      ///< through one PCIe host bridge (the CPU)
  node,     ///< between host bridges of one NUMA node
  sys,      ///< across sockets
  unknown,  ///< NODE or SYS (NUMA not known), or a device the inputs could not place
};
/// "X", "PIX", "PXB", "PHB", "NODE", "SYS", "?".
std::string_view to_string(PathClass path);

/// GPUDirect RDMA / P2P verdict for a pair.
enum class Verdict : unsigned char { ok, degraded, unsupported };
/// "ok", "degraded", "unsupported".
std::string_view to_string(Verdict verdict);

/// Why a pair is not simply ok (or, for its path, why it is).
struct PairReason {
  Verdict effect = Verdict::ok;  ///< the worst verdict this reason alone leads to
  std::string text;
  std::string fix;  ///< a command or setting that fixes it; may be empty
};

/// The verdict for one GPU<->NIC or GPU<->GPU pair.
struct PairReport {
  Bdf a;
  Bdf b;
  PathClass path = PathClass::unknown;
  std::string path_detail;  ///< why this class ("both below switch 0000:17:00.0")
  Verdict verdict = Verdict::ok;
  std::vector<PairReason> reasons;
};

/// Above this many GPUs and NICs together, a host's topology lists each GPU's nearest peers
/// instead of the full matrix, whose cells and pair verdicts grow with the square of that number
/// (unless TopologyOptions::full_matrix). Real servers have at most about 16 GPUs and 16 NICs.
inline constexpr std::size_t kFullMatrixLimit = 64;

/// Facts about the host that are not in its PCI inputs, and what to compute.
struct TopologyOptions {
  std::optional<bool> iommu_translating;  ///< the IOMMU translates DMA; nullopt: not known
  bool all_nics = false;                  ///< every NIC, not only RDMA-capable ones
  /// The full matrix and every pair's verdict whatever the host's size (`topo --matrix`).
  /// Without it, a host of more than kFullMatrixLimit GPUs and NICs gets no matrix and no pairs
  /// from analyze(), and each GPU's nearest peers in the reports of topology_report().
  bool full_matrix = false;
};

/// The GPU/NIC matrix like `nvidia-smi topo -m`.
struct Topology {
  std::vector<Bdf> gpus;  ///< in PCI address order
  std::vector<Bdf> nics;  ///< in PCI address order
  /// Path classes indexed [row][col] over gpus then nics.
  std::vector<std::vector<PathClass>> matrix;
  std::vector<PairReport> pairs;  ///< GPU<->GPU pairs, then GPU<->NIC pairs
  /// Per GPU (same order as gpus): index into nics of the best NIC for it, if any.
  std::vector<std::optional<std::size_t>> best_nic;
};

/// Classifies the path of every GPU<->GPU and GPU<->NIC pair of the host and judges it for
/// GPUDirect RDMA. Does not throw.
Topology analyze(const Host& host, const TopologyOptions& options = {});

/// Whether the IOMMU of `host` translates DMA as its kernel command line sets it, for
/// TopologyOptions::iommu_translating: true (`intel_iommu=on`, `amd_iommu=on`), false (off, or
/// `iommu=pt`), nullopt when the line does not say (AMD turns it on by default where the
/// firmware enables it). `cmdline` is the text of /proc/cmdline or /etc/default/grub, named
/// `cmdline_name` in messages. Throws vmxkit::Error when it holds no kernel command line.
std::optional<bool> iommu_translating(const Host& host, std::string_view cmdline,
                                      const std::string& cmdline_name);

/// Where the host's `nvidia-smi topo -m` and its PCI inputs disagree: GPU counts that differ
/// (then nothing is matched), and each matched GPU pair whose class in the matrix is not the
/// class the PCI tree gives (at most 12, then how many more). Empty without such a matrix.
std::vector<std::string> nvidia_smi_warnings(const Host& host);

/// For a host known from `nvidia-smi topo -m` alone (a matrix, and no GPU or RDMA NIC from a
/// PCI input): the name of that input. Such a host has no PCI address to place a VM's devices
/// on (`vmxkit lint --host` refuses it) and no PCIe tree to draw; its topology_report() gives
/// the matrix's own verdicts. nullopt for any other host.
std::optional<std::string> nvidia_smi_only_input(const Host& host);

class TopologyReport;
class VmxDocument;

/// The topology of `host` as `vmxkit topo` reports it: analyze()'s matrix and verdicts with what
/// the reports show beyond them (a large host's nearest peers per GPU, NVLink from `nvidia-smi
/// topo -m`, the notes on NVLink the PCI inputs cannot show, the host's warnings); for a host
/// known from `nvidia-smi topo -m` alone, each pair judged by its cell and what the matrix
/// cannot tell. Does not throw.
TopologyReport topology_report(const Host& host, const TopologyOptions& options = {});

/// How render_topology() draws a diagram.
struct TopologyRenderOptions {
  /// dot and svg: the graph's heading, naming the host's inputs ("PCIe tree of lspci.txt"); with
  /// `vm`, "; passthrough devices of VM highlighted" follows (VM: the document's path).
  std::string title;
  /// dot and svg: highlight this VM's passthrough devices (its pciPassthruN.id entries, matched
  /// as lint matches them) and draw each GPU/NIC and GPU/GPU pair of the VM in the colour of its
  /// path class (PIX/PXB green, PHB/NODE amber, SYS red). nullptr: none.
  const VmxDocument* vm = nullptr;
  /// Receives each warning as it arises, whole and as the command line prints it on stderr
  /// (`vmxkit: warning: vm.vmx:4:1: pciPassthru1 names no device of the host; it is not
  /// highlighted`, with its line break). Unset: none is made.
  std::function<void(std::string_view)> message;
};

/// `report` as `vmxkit topo --format FORMAT` writes it: "text" (the matrix and legends in the
/// layout of `nvidia-smi topo -m`, then each pair's verdict with its reasons and the best NIC
/// per GPU; a large host's nearest peers instead of the matrix), "json" (the same as one
/// document, two-space indentation and a final newline) or "dot" (the host's PCIe tree as a
/// Graphviz diagram: NUMA nodes, host bridges, root ports, one box per switch, GPUs and NICs,
/// other devices folded per bridge; render_svg() lays it out as `--format svg` does). Throws
/// vmxkit::Error for another format and for a diagram of a host known from `nvidia-smi topo -m`
/// alone.
std::string render_topology(const TopologyReport& report, std::string_view format,
                            const TopologyRenderOptions& options = {});

/// Graphviz DOT text (render_topology()'s "dot") laid out by Graphviz's `dot` as SVG, with
/// Graphviz's own font metrics, so the same DOT gives the same bytes on every machine with one
/// Graphviz version. Graphviz's libraries are loaded on the first call. Throws vmxkit::Error when
/// they cannot be loaded (saying what to install), or with Graphviz's message for DOT it cannot
/// read or lay out. Defined in `vmxkit::graphviz` (which links vmxkit::core), not in
/// vmxkit::core.
std::string render_svg(std::string_view dot);

/// A host's topology, analysed once for any of its reports (render_topology()).
class TopologyReport {
 public:
  /// The GPUs the report covers (for a host known from `nvidia-smi topo -m` alone, the
  /// matrix's GPU labels).
  std::size_t gpu_count() const;
  /// The NICs the report covers: RDMA-capable ones, or every NIC with
  /// TopologyOptions::all_nics (the matrix's NIC labels for a host known from it alone).
  std::size_t nic_count() const;
  /// More than kFullMatrixLimit GPUs and NICs without TopologyOptions::full_matrix: each GPU's
  /// nearest NICs and GPU peers are reported instead of the matrix and every pair.
  bool listed() const;
  /// The host is known from `nvidia-smi topo -m` alone (nvidia_smi_only_input()).
  bool nvidia_smi_only() const;

 private:
  friend TopologyReport topology_report(const Host& host, const TopologyOptions& options);
  friend std::string render_topology(const TopologyReport& report, std::string_view format,
                                     const TopologyRenderOptions& options);
  struct Impl;
  TopologyReport() = default;
  std::shared_ptr<const Impl> impl_;
};

// ------------------------------------------------------------------------------------------------
// Host checks: is a host ready for GPUDirect RDMA and SR-IOV (`vmxkit host-check`)

/// What a host is, which decides what its checks ask.
enum class HostKind : unsigned char {
  unknown,     ///< a Linux host whose use the inputs do not show
  esxi,        ///< an ESXi host
  kvm,         ///< a Linux host that assigns devices to VMs
  bare_metal,  ///< a Linux host for GPUDirect RDMA without VMs
};
/// "ESXi", "Linux KVM host", "Linux bare metal", "Linux, kind unknown".
std::string_view to_string(HostKind kind);
/// "esxi", "kvm", "bare-metal" (`--host-kind`); nullopt for anything else.
std::optional<HostKind> parse_host_kind(std::string_view text);

/// A host or guest check's finding, with the command or setting that fixes it.
struct CheckFinding {
  std::string_view rule_id;    ///< the check's id ("HOST003"), valid for the program's life
  std::string_view rule_name;  ///< its name ("not-checked" when an input is missing to answer it)
  Severity severity = Severity::warning;  ///< the check's, or lower where the check says why
  std::string subject;  ///< the device (BDF), module or file it is about; empty for the whole
  std::string message;
  std::string fix;  ///< empty when none
  /// The input and line the finding rests on; empty (and 0) for one about what no input showed.
  std::string file;
  std::uint32_t line = 0;
};

/// A vGPU type a host offers (config.sharedPassthruGpuTypes), with what a VM holding one may do
/// (config.sharedGpuCapabilities); nullopt where the host does not say.
struct VgpuTypeOffer {
  std::string profile;  ///< "nvidia_h100xm-80c", as a VM's pciPassthruN.vgpu names it
  std::optional<bool> disk_snapshot;
  std::optional<bool> memory_snapshot;
  std::optional<bool> suspend;
  std::optional<bool> migrate;
};

/// The vGPU types of a host read from the vSphere API.
struct HostVgpuTypes {
  std::string host_name;  ///< the HostSystem's name; may be empty
  std::vector<VgpuTypeOffer> offered;
};

struct HostCheckOptions {
  /// The host's kernel command line: the text of /proc/cmdline or /etc/default/grub, named
  /// `cmdline_name` in messages; nullopt when not given (its checks say so).
  std::optional<std::string> cmdline;
  std::string cmdline_name;
  HostKind kind = HostKind::unknown;  ///< unknown: detected from the inputs
};

struct HostCheckReport {
  /// The kind the checks judged: HostCheckOptions::kind, else the one the inputs show.
  HostKind kind = HostKind::unknown;
  std::vector<CheckFinding> findings;  ///< in check id order
  /// The vGPU types the host offers, when the inputs say (the vSphere API's host properties).
  std::optional<HostVgpuTypes> vgpu_types;
};

/// Runs every host check (`vmxkit rules --kind host`) over the host: IOMMU on the kernel command
/// line, ESXi passthrough state, SR-IOV VFs, ATS and ACS on the GPU/NIC paths, what the inputs
/// could not answer and the loaders' warnings. Throws vmxkit::Error when `cmdline` holds no
/// kernel command line.
HostCheckReport check_host(const Host& host, const HostCheckOptions& options = {});

/// `report` as `vmxkit host-check --format json` writes it: host_kind (null when unknown),
/// findings (id, name, severity, subject, message, fix or null) and vgpu_types (null when not
/// known); two-space indentation and a final newline.
std::string render_host_check_json(const HostCheckReport& report);

// ------------------------------------------------------------------------------------------------
// pciPassthru.64bitMMIOSizeGB

/// One 64-bit memory BAR counted, where it was placed, and where its size came from.
struct MmioBar {
  std::string device;  ///< "0000:c1:00.0 (RTX 6000 Ada Generation)" or "10de:2331 (H100 PCIe)"
  std::string bar;     ///< "BAR1", or "KB 323402 estimate" for a whole GPU
  std::uint64_t size = 0;
  std::uint64_t offset = 0;  ///< placement after packing with natural alignment
  std::string source;        ///< "lspci FILE:LINE", "catalogue: ...", "KB 323402 rule: ..."
};

/// The 64-bit MMIO window a set of passthrough devices needs, with its arithmetic.
struct MmioSize {
  unsigned size_gb = 0;               ///< the value for pciPassthru.64bitMMIOSizeGB
  std::optional<unsigned> kb_gb;      ///< Broadcom KB 323402: next power of two of 2 x total FB
  std::uint64_t total_bytes = 0;      ///< end of the packed BARs
  bool estimated = false;             ///< a GPU's BARs were not known: size_gb is the KB figure
  std::vector<MmioBar> bars;          ///< in placement order (largest first)
  std::vector<std::string> lines;     ///< the arithmetic, one step per line
  std::vector<std::string> unknown;   ///< devices whose BAR sizes are not known (not counted)
  std::vector<std::string> below_4g;  ///< 32-bit BARs (below 4 GiB, not counted)
  /// NVIDIA GPUs whose BARs and framebuffer are both unknown: each is sized as the smallest
  /// window NVIDIA lists for a data-center GPU (64 GB), not left out.
  std::vector<std::string> unknown_gpus;
  /// BARs the host's kernel log says it found no space for, each naming its dmesg line.
  std::vector<std::string> unassigned;
};

/// Sizes the window for `devices`: host addresses ("0000:3b:00.0", BAR sizes from the capture),
/// vendor:device ids ("10de:2331") or catalogue aliases ("h100-pcie"). BARs are packed with
/// natural alignment and the total rounded up to a power of two in GiB. Models are looked up in
/// the host's catalogue, or `catalog` without a host. Throws vmxkit::Error for an address
/// without a host or not on it, and for a name that is none of the three forms.
MmioSize size_mmio(const Host* host, const std::vector<std::string>& devices,
                   const Catalog& catalog = Catalog());

/// `size` as `vmxkit mmio --format json` writes it: size_gb, kb323402_gb (null when not known),
/// estimated, total_bytes, bars (device, bar, size, offset, source), unknown, unknown_gpus,
/// below_4g, unassigned and lines; two-space indentation and a final newline.
std::string render_mmio_json(const MmioSize& size);

// ------------------------------------------------------------------------------------------------
// Lint and fix

/// What the rules may consult beyond the file.
struct LintOptions {
  const Host* host = nullptr;        ///< enables the TOPO rules (devices checked on the host)
  const Catalog* catalog = nullptr;  ///< nullptr: the host's catalogue, else the built-in one
};

/// The findings of the rule catalogue in one file.
struct LintReport {
  std::string path;
  std::string bytes;                    ///< the file linted
  std::string format = "vmx";           ///< the format table's name of what was read
  std::vector<Diagnostic> diagnostics;  ///< sorted by position, then rule id
  LineIndex lines;                      ///< of `bytes`

  Location location(std::size_t offset) const { return lines.location(offset); }
  /// How many findings are at `threshold` or more severe (error > warning > info > style).
  std::size_t count_at_least(Severity threshold) const;
};

/// Runs every rule over the input (in-file `# vmxkit: disable=ID` suppressions applied). Throws
/// vmxkit::Error only as load() would for the same bytes.
LintReport lint(const Input& input, const LintOptions& options = {});

/// Which lint rules' findings are reported, chosen as ruff's options choose them (`vmxkit lint
/// --select`, `--extend-select`, `--ignore`, `--extend-ignore`): each list holds rule ids
/// ("PT004"), prefixes of ids ("PT", "MMIO0") or "ALL". `select` replaces the default (every
/// rule), `extend_select` adds to it; `ignore` and `extend_ignore` (the same: there is no
/// configuration file to extend) take rules away. Where a rule matches both, the longer (more
/// specific) selector wins, and an ignore wins a tie.
struct RuleSelection {
  std::vector<std::string> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  std::vector<std::string> extend_ignore;

  /// Throws vmxkit::Error naming the first selector that matches no lint rule (retired ones
  /// included).
  void validate() const;
  /// Whether findings of the rule `rule_id` are reported.
  bool enabled(std::string_view rule_id) const;
  /// Removes the findings of rules not enabled from `diagnostics` (a LintReport's), the others
  /// kept in their order.
  void filter(std::vector<Diagnostic>& diagnostics) const;
  /// No list holds anything: every rule is reported.
  bool empty() const {
    return select.empty() && extend_select.empty() && ignore.empty() && extend_ignore.empty();
  }
};

struct DocumentSource;  // a file, or bytes already read (with apply, below)

struct LintFilesOptions {
  LintOptions lint;  ///< as for lint(); the host and catalogue serve every file
  /// The findings reported (a selector that matches no rule is not an error here: validate()).
  RuleSelection rules;
  /// Files linted at once, on as many threads (the caller's among them); 0: one per core. Never
  /// more than there are files.
  unsigned jobs = 0;
};

/// One file's outcome in lint_files(): its findings, or why it could not be linted.
struct LintFileResult {
  std::string path;                  ///< the source's path, as given
  std::optional<LintReport> report;  ///< the findings the selection reports, when it was read
  /// Otherwise why not: the vmxkit::Error's message (naming the file, and its line and column
  /// where there is one).
  std::string error;
};

/// Lints each of `files` (each a path, or bytes named by its path; in whatever VM format load()
/// reads, told by the bytes), as `vmxkit lint FILE...` does: the files are read and linted on
/// `options.jobs` threads, and each outcome goes to `each`, on the calling thread and in the
/// order of `files`, as soon as it and those before it are done. At most about four outcomes per
/// thread are held at once, however many files there are, so a report written as they come
/// (LintReportWriter) never holds more than a few files. A file that cannot be read, or whose
/// content cannot be read as its format, is an outcome with its `error`, and the other files are
/// still linted. What `each` throws, and any other exception (a bug) when its file's turn comes,
/// leaves lint_files() once the threads have stopped.
void lint_files(std::vector<DocumentSource> files, const LintFilesOptions& options,
                const std::function<void(LintFileResult)>& each);

/// A lint report written while the files' reports come in, as `vmxkit lint --format FORMAT`
/// writes it: add() each report in order (add_unread() for a file that could not be read), then
/// finish() once. It keeps none of them, so the report of many files, or of one file with many
/// findings, is never held as one text.
class LintReportWriter {
 public:
  /// `format` is "text" (GCC-style diagnostics with their source lines and carets, as
  /// render_diagnostics() writes a file's, then a summary line; ANSI colours with `color`),
  /// "json" (docs/json-output.md: the tool, its version, each file with its findings, a summary)
  /// or "sarif" (SARIF 2.1.0: every check as a rule, a result per finding with its region,
  /// notes and fix). `output` receives the report's text piece by piece, in order: what add(),
  /// add_unread() and finish() write is handed over before they return, and what `output`
  /// throws leaves them. Throws vmxkit::Error for another format.
  LintReportWriter(std::string_view format, std::function<void(std::string_view)> output,
                   bool color = false);
  ~LintReportWriter();
  LintReportWriter(const LintReportWriter&) = delete;
  LintReportWriter& operator=(const LintReportWriter&) = delete;

  /// Writes one file's findings.
  void add(const LintReport& report);
  /// Counts a file that could not be read (LintFileResult::error): the summary says so rather
  /// than read as if every file were clean.
  void add_unread();
  /// Writes what follows the last file: the summary line, the JSON summary, the end of the
  /// SARIF log. Call it once, after the last add().
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct FixOptions {
  LintOptions lint;     ///< as for lint()
  bool unsafe = false;  ///< also apply fixes that change behaviour (never display-only ones)
};

struct FixResult {
  std::string bytes;  ///< the fixed file: bytes outside the edits are unchanged
  std::size_t fixes_applied = 0;
  std::vector<std::string_view> fixed_rules;  ///< rule ids of the fixes applied, in order
  LintReport remaining;                       ///< lint of the fixed file
  /// Each pass's edits (EditPlace, re-exported from the core as TextEdit is), in the order of
  /// their places: how a place in `bytes` maps back to the bytes that were fixed (in_original()).
  std::vector<std::vector<EditPlace>> passes;
};

/// Applies the fixes of the findings as text edits on the input's bytes, relinting until
/// nothing changes. Only a `.vmx` is edited: a vSphere document comes back unchanged with its
/// findings in `remaining` (convert it to a .vmx, fix that, convert back). Throws as lint().
FixResult fix(const Input& input, const FixOptions& options = {});
/// fix() of bytes not loaded yet (named `path`), as `vmxkit fix` reads a file: without the
/// model load() would build first. Throws vmxkit::Error only as load() would for the same
/// bytes.
FixResult fix(const std::string& path, std::string bytes, const FixOptions& options = {});

/// `d`, a finding of `result.remaining`, with its place and its notes' places in `original`,
/// the bytes fix() was given: what `vmxkit fix --diff` reports, as the file stays as it was. A
/// place in text the fixes wrote is the place of what that text replaced (or where it was
/// inserted); one past the end of a file that ends with a line break is that line break, so no
/// finding is on a line the file does not have.
Diagnostic in_original(const FixResult& result, std::string_view original, Diagnostic d);

/// The findings of one file as `vmxkit fix` prints those that remain (and the text report of
/// LintReportWriter each file's): render_diagnostic() of each in turn, except that a source line
/// is shown under at most 10 findings and notes, later ones giving their location line alone.
/// `lines` indexes `text`.
std::string render_diagnostics(std::string_view path, std::string_view text, const LineIndex& lines,
                               const std::vector<Diagnostic>& diagnostics, bool color = false);

// ------------------------------------------------------------------------------------------------
// The rule catalogue (`vmxkit rules`)

/// What a rule judges: a VM's configuration (lint()), a host (`vmxkit host-check`) or a guest
/// (`vmxkit guest-check`).
enum class RuleKind : unsigned char { lint, host, guest };
/// "lint", "host", "guest".
std::string_view to_string(RuleKind kind);

/// Whether a rule's findings come with fixes.
enum class RuleFix : unsigned char {
  none,       ///< never
  sometimes,  ///< some of its findings
  always,     ///< every finding
};
/// "none", "sometimes", "always".
std::string_view to_string(RuleFix fix);

/// One rule of the catalogue. The strings are the catalogue's own: they stay valid for the
/// program's life (as Diagnostic::rule_id does).
struct RuleInfo {
  std::string_view id;    ///< "VMX001": a prefix and 3 digits, never reused
  std::string_view name;  ///< kebab-case, reads well after "allow": "duplicate-key"
  RuleKind kind = RuleKind::lint;
  Severity severity = Severity::warning;
  std::string_view summary;  ///< one line
  /// Markdown: what it does, why it matters, an example, its fix's safety and its sources.
  std::string_view doc;
  bool needs_host = false;  ///< lint: only run with LintOptions::host
  bool removed = false;     ///< retired: kept so that old suppressions still resolve
  RuleFix fix = RuleFix::none;
  FixSafety fix_safety = FixSafety::safe;  ///< of the fixes it offers (when `fix` is not none)
};
/// Every rule in force (lint, host and guest rules; retired ones left out), sorted by id.
std::vector<RuleInfo> rules();
/// Every rule, retired ones included, sorted by id (what `vmxkit rules` lists).
std::vector<RuleInfo> all_rules();
/// A rule by id (exact, uppercase: "VMX001"), retired ones included, or nullopt.
std::optional<RuleInfo> find_rule(std::string_view id);

/// A rule's page, as `vmxkit rule ID` prints it: a title line, its metadata and its doc. Throws
/// vmxkit::Error for a rule the catalogue does not hold.
std::string render_rule_page(const RuleInfo& rule);
/// The whole catalogue as markdown (`vmxkit rules --format markdown`, docs/rules.md): a table,
/// then every rule's page.
std::string render_rules_markdown();
/// `rules` as `vmxkit rules --format json` writes them: `{"checks": [...]}`, each with its id,
/// name, kind, severity, fix, fix_safety (null without fixes), needs_host, status ("stable" or
/// "removed") and summary; two-space indentation and a final newline.
std::string render_rules_json(const std::vector<RuleInfo>& rules);

// ------------------------------------------------------------------------------------------------
// Plan: the VM settings for GPU/NIC passthrough with P2P

/// The most guest memory a plan accepts, in MB: 24560 GB, the vSphere maximum for a VM (ESXi 7.0
/// Update 1 and later compatibility, vSphere 8 too): "Maximum Virtual Machine Memory",
/// https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.vm_admin.doc/GUID-81E25CBB-16D9-416B-AD6F-5A96D7CD0A2D.html
inline constexpr std::uint64_t kMaxMemoryMb = std::uint64_t{24560} * 1024;

/// What to generate (the options of `vmxkit generate`).
struct PlanRequest {
  /// Host addresses ("0000:3b:00.0") or `auto` (every GPU); without a host, catalogue models
  /// ("h100-pcie", "10de:2331").
  std::vector<std::string> gpus;
  std::optional<unsigned> gpu_count;  ///< with `auto`: the N best-connected GPUs
  /// Host addresses, `auto` (the closest NIC for each GPU), or models without a host. Empty
  /// with `sriov`: `auto`.
  std::vector<std::string> nics;
  std::optional<std::string> vgpu;     ///< a vGPU profile (grid_a100-40c) instead of passthrough
  bool sriov = false;                  ///< pass SR-IOV VFs of the NICs instead of the PFs
  std::string network = "VM Network";  ///< port group of SR-IOV VF entries
  /// Guest memory, all reserved, 1 to kMaxMemoryMb (plan() throws Error otherwise). Default:
  /// the base's memsize, else 65536.
  std::optional<std::uint64_t> memory_mb;
  std::string system_id;        ///< the host's system UUID for systemId; empty: a placeholder
  bool allow_degraded = false;  ///< accept pairs that meet only at the CPU (PHB/NODE)
  std::string host_label;       ///< how the explanation names the host
  /// A `.vmx` to merge the plan into: render() keeps every byte the plan does not set.
  std::optional<Input> base;
  Catalog catalog;  ///< models without a host (with a host, the host's catalogue is used)
  /// A vendor device group the host offers (vSphere 8.0 U1), by `deviceGroupName`: the plan's
  /// vGPUs and NICs form instances of it, which vCenter places as a unit. The ConfigSpec, SOAP,
  /// VI/JSON and PowerCLI outputs carry it; render() throws for the `.vmx` and govc, which
  /// cannot. Needs `config_target`.
  std::string device_group;
  /// The host's QueryConfigTarget answer that offers the group (`govc vm.target.info -json`, a
  /// SOAP answer), as text, and the name messages give it.
  std::string config_target;
  std::string config_target_name = "ConfigTarget";
};

/// One device the VM gets.
struct PlannedDevice {
  std::optional<Bdf> address;  ///< the host address (for an SR-IOV VF entry, the PF's)
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  bool sriov_vf = false;  ///< an SR-IOV VF entry: ESXi picks a VF at power-on
  std::string label;      ///< "0000:18:00.0 (H100 PCIe)"
  std::string model;      ///< the catalogue model, or empty
};

/// A GPU and the peer it was paired with.
struct PlannedPair {
  std::size_t gpu = 0;   ///< index into Plan::gpus()
  std::size_t peer = 0;  ///< index into Plan::nics(), or Plan::gpus() when peer_is_gpu
  bool peer_is_gpu = false;
  std::optional<PairReport> verdict;  ///< with a host
};

/// The settings generated for a request, and why they were chosen.
class Plan {
 public:
  const std::vector<PlannedDevice>& gpus() const;
  const std::vector<PlannedDevice>& nics() const;
  const std::vector<PlannedPair>& pairs() const;
  const std::optional<std::string>& vgpu() const;
  std::uint64_t memory_mb() const;
  const MmioSize& mmio() const;
  bool needs_64bit_mmio() const;  ///< BARs beyond 16 GiB
  bool p2p() const;               ///< a GPU with a NIC or another GPU
  /// The comment block of a generated `.vmx`: choices and reasons, one line each.
  const std::vector<std::string>& explanation() const;
  /// The `.vmx` the plan merges into, when the request had one.
  const std::optional<Input>& base() const;

 private:
  friend struct detail::Access;
  struct Impl;
  Plan() = default;
  std::shared_ptr<const Impl> impl_;
};

/// Picks the devices, pairs them, sizes the 64-bit MMIO window and writes every P2P
/// prerequisite. `host` may be null: devices are then catalogue models and paths are not
/// checked. Throws vmxkit::Error for a request that cannot work: a device not on the host or
/// not of the role, a GPU without GPUDirect support paired for P2P, a pair across sockets
/// (SYS) or through the CPU (PHB/NODE) without `allow_degraded`, a base that is not a `.vmx`.
Plan plan(const Host* host, const PlanRequest& request);

/// What the command line says of a plan beyond its rendering, for render_plan_json().
struct PlanJsonOptions {
  std::string format = "vmx";       ///< the output format the plan was rendered in (render())
  std::optional<std::string> path;  ///< the file that rendering was written to; nullopt: stdout
  /// What the run said about the host as it read it (Host::warnings(), and a server's).
  std::vector<std::string> warnings;
};

/// `plan` as `vmxkit generate --plan-json` writes it, for programs that drive generate and must
/// not read the prose of a comment block or of stderr: schema (1, raised when a member is renamed
/// or removed or changes its meaning), tool, version, output (format, path or null), gpus and
/// nics (address, ids, sriov_vf, label, model), pairs (indices, path class and detail, verdict,
/// reasons), vgpu, memory_mb, mmio (size_gb, kb323402_gb, estimated, total_bytes, bars, unknown,
/// below_4g, lines), needs_64bit_mmio, p2p, explanation and warnings; two-space indentation and
/// a final newline.
std::string render_plan_json(const Plan& plan, const PlanJsonOptions& options = {});

/// A device of a vendor device group (`VirtualMachineVendorDeviceGroupInfoComponentDeviceInfo`).
struct VendorDeviceGroupComponent {
  std::string type;  ///< `pciPassthru`, `nvidiaVgpu`, `sriovNic` or `dvx`
  std::string vendor_name;
  std::string device_name;
};

/// A vendor device group a host offers its VMs (vSphere 8.0 U1:
/// `ConfigTarget.vendorDeviceGroupInfo`), which vCenter places as a unit.
struct VendorDeviceGroup {
  std::string name;         ///< `deviceGroupName`, as PlanRequest::device_group names it
  std::string description;  ///< `deviceGroupDescription`; may be empty
  std::vector<VendorDeviceGroupComponent> components;
  /// It holds an NVIDIA vGPU and a network device (an SR-IOV NIC, a DVX device or a passthrough
  /// device of a NIC vendor): a group for GPUDirect RDMA from a vGPU (rule P2P005).
  bool pairs_vgpu_with_nic = false;
};

/// The vendor device groups of a host's QueryConfigTarget answer, as PlanRequest::config_target
/// holds it (`govc vm.target.info -json`, a SOAP QueryConfigTargetResponse, or a ConfigTarget
/// pyVmomi serialized), named `name` in messages. An answer without `vendorDeviceGroupInfo`
/// offers none. Throws vmxkit::Error with file:line:col for malformed JSON or XML, values of
/// the wrong type, and a document that is no ConfigTarget.
std::vector<VendorDeviceGroup> vendor_device_groups(std::string_view config_target,
                                                    const std::string& name = "ConfigTarget");

// ------------------------------------------------------------------------------------------------
// Render

struct RenderOptions {
  /// A built-in template (templates()) or a template file; empty: the plan's default. Plans
  /// only.
  std::string template_name;
  std::string vm;  ///< SOAP: the VirtualMachine moref the request targets (`vm-123`)
};

/// Writes a plan in an output format of format_table() (by name). `vmx` fills the template (merged
/// into the plan's base when it has one, with text edits: everything else in the base stays
/// byte for byte); the other formats carry the same settings and the plan's explanation as
/// comments where the form has them. Throws vmxkit::Error for a name that is no output format
/// (listing those there are), an unknown template, a template placeholder that is not known
/// (naming the template, line and column), SOAP without a VM moref, or what the format cannot
/// carry (a device group in a `.vmx`, a vGPU in Terraform's VM resource...).
std::string render(const Plan& plan, std::string_view format, const RenderOptions& options = {});

/// Writes a loaded VM configuration in another format (`vmxkit convert`). `template_name` is
/// not used. Throws vmxkit::Error as render() for a plan.
std::string render(const VmConfig& config, std::string_view format,
                   const RenderOptions& options = {});

struct ConvertOptions {
  /// The OVF VirtualSystem (by ovf:id) or the VM (by name or moref) to convert; empty: the
  /// input's only one.
  std::string system;
  std::string vm;      ///< SOAP: the VirtualMachine moref (`vm-123`); empty: the input's own
  bool color = false;  ///< ANSI colours in the diagnostics of `message`
  /// Receives each message about what the input holds that the output will not, as the
  /// conversion meets it, whole and as the command line prints it on stderr: a diagnostic with
  /// its source line and caret, a `vmxkit: warning: ...` or `vmxkit: note: ...` line. Unset:
  /// none is made.
  std::function<void(std::string_view)> message;
};

/// `vmxkit convert`: the one VM of `bytes` (named `path`; any VM format load() reads) written
/// as `format`, an output of format_table() ("soap": a ConfigSpec in a ReconfigVM_Task
/// request). What the output cannot hold goes to `options.message` first: settings the OVF
/// reader did not read, what a Terraform resource or VM class leaves to vSphere, device groups,
/// empty values (whose meaning differs between a `.vmx` and extraConfig), keys vSphere sets
/// itself. Throws vmxkit::Error for lines VMware cannot read (each reported as a message
/// first; nothing is converted), for several VMs without `system` or a `system` that is none of
/// them, and as render() for what the format cannot carry (at its place in the input).
std::string convert(const std::string& path, std::string bytes, std::string_view format,
                    const ConvertOptions& options = {});

/// A scenario template compiled into vmxkit.
struct TemplateInfo {
  std::string name;
  std::string description;
};
/// The built-in templates, sorted by name.
std::vector<TemplateInfo> templates();

// ------------------------------------------------------------------------------------------------
// .vmx documents: edits that keep every byte they do not touch

/// An entry of a `.vmx`: the key as written, the value as VMware reads it (`|22` is `"`).
struct VmxEntry {
  std::string key;
  std::string value;
};

/// A line VMware cannot read (VMX001 and VMX002 of lint()), kept as it is by edits.
struct VmxProblem {
  std::string message;
  std::size_t begin = 0;  ///< byte offset of the problem in VmxDocument::bytes()
  Location location;      ///< its line and column
};

/// A `.vmx` as VMware reads it, from bytes kept exactly as given: comments, order, key case,
/// quoting, line endings and malformed lines included. Cheap to copy and immutable; edit the
/// bytes with vmx_set() and vmx_unset() and parse the result again when it is to be read.
class VmxDocument {
 public:
  /// Reads `bytes` (named `path` in messages). Never fails on content: a line VMware cannot
  /// read is in problems(). Throws vmxkit::Error for 4 GiB and more, and for UTF-16 or UTF-32
  /// text.
  static VmxDocument parse(std::string bytes, std::string path = {});

  const std::string& path() const;
  std::string_view bytes() const;
  /// The value of the first entry of `key` (ASCII case-insensitive, as VMware compares keys).
  std::optional<std::string> get(std::string_view key) const;
  /// The same entry's value as written: without its quotes, `|XX` escapes not decoded.
  std::optional<std::string> get_raw(std::string_view key) const;
  /// Every entry, in file order.
  std::vector<VmxEntry> entries() const;
  /// Every line VMware cannot read, in file order.
  std::vector<VmxProblem> problems() const;
  /// problems() as lint() reports them: VMX001 and VMX002 diagnostics, in file order.
  std::vector<Diagnostic> diagnostics() const;

 private:
  struct Impl;
  VmxDocument() = default;
  std::shared_ptr<const Impl> impl_;
};

/// `bytes` of a `.vmx` with `key` set to `value` (as `vmxkit set` does): the first entry of the
/// key (any case) gets the value, with its spelling, quoting, comment and line ending kept, and
/// later duplicates are removed; a new key goes after the entries sharing its prefix. Every
/// other byte stays. One pass over the bytes, without a VmxDocument. Throws vmxkit::Error as
/// VmxDocument::parse() does.
std::string vmx_set(std::string_view bytes, std::string_view key, std::string_view value);
/// `bytes` without any entry of `key` (any case), as `vmxkit unset` does; `removed`, when
/// given, says whether there was one (without one the bytes come back unchanged).
std::string vmx_unset(std::string_view bytes, std::string_view key, bool* removed = nullptr);
/// Whether some line of `bytes` is one VMware cannot read (VmxDocument::problems() would not be
/// empty), in one pass that stores nothing. Throws vmxkit::Error, naming `path`, as
/// VmxDocument::parse() does.
bool vmx_has_problems(std::string_view bytes, std::string_view path = {});

/// A `.vmx` in VMware's canonical writer form, as `vmxkit fmt` writes it: every entry `key =
/// "value"` in VMware's escapes (what VMware reads is unchanged), comments and order kept, one
/// line ending, no BOM. Made in one pass over the input without a VmxDocument; the lines that
/// are already canonical are not copied but referred to in the input, which this object keeps
/// (a large file mapped: see allow_mapped_inputs()), so writing a large file out costs about
/// what reading it does. Movable, not copyable.
class CanonicalVmx {
 public:
  /// The canonical form of `bytes`, named `path` in errors. Throws vmxkit::Error (file:line:col)
  /// for a line VMware cannot read: it has no canonical form, and a guess would change what the
  /// user meant.
  CanonicalVmx(std::string bytes, std::string_view path);
  /// The same for the file `path`, read as load_file() reads it (mapped where allowed). With
  /// `unread`, the caller promises never to look at the pieces' bytes (it writes them to
  /// /dev/null): a mapped file's pages are then copied into a small buffer to be scanned
  /// instead of being touched, which is cheaper where page faults are expensive.
  static CanonicalVmx read(const std::string& path, bool unread = false);
  ~CanonicalVmx();
  CanonicalVmx(CanonicalVmx&&) noexcept;
  CanonicalVmx& operator=(CanonicalVmx&&) noexcept;

  /// Whether the input is already in canonical form (`vmxkit fmt --check`).
  bool unchanged() const;
  /// The canonical form in pieces, in order (valid while this object lives).
  std::vector<std::string_view> pieces() const;
  /// The canonical form as one string.
  std::string text() const;
  /// Writes the canonical form to the file descriptor `fd` with writev(2), a thousand pieces a
  /// call. Throws vmxkit::Error naming `name` when a write fails (a closed pipe, a full disk),
  /// or naming the input when it was truncated while mapped.
  void write_to(int fd, const std::string& name) const;

 private:
  struct Impl;
  explicit CanonicalVmx(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// CanonicalVmx(bytes, path).text() without its pieces: one pass that builds the result.
std::string vmx_canonical(std::string_view bytes, std::string_view path = {});

// ------------------------------------------------------------------------------------------------
// Reports: what the command line prints, for a program that prints the same

/// A diagnostic as the command line prints it, GCC style: `path:line:col: severity: message
/// [ID]`, then the source line of `text` (a window around the column when the line is long) and
/// a caret, and each note likewise; a message is cut after 1000 bytes. `lines` indexes `text`.
/// With `color`, ANSI colours.
std::string render_diagnostic(std::string_view path, std::string_view text, const LineIndex& lines,
                              const Diagnostic& diagnostic, bool color = false);

// ------------------------------------------------------------------------------------------------
// Files: the one write path of the command line and the Python package

/// Reads a whole file, as load_file() does. Throws vmxkit::Error naming it when it cannot be
/// read or is larger than 1 GiB.
std::string read_file_bytes(const std::string& path);

/// The lock VMware keeps while a VM runs, `<file>.lck` beside its `.vmx` (for a `.vmx` reached
/// through a symbolic link, beside the link and beside the file it resolves to): the path of
/// the first that exists, or an empty string.
std::string vm_lock(const std::string& vmx_path);

/// The bytes a write was made from: write_file_bytes() then edits that file rather than
/// overwriting it.
struct EditedFile {
  std::string path;   ///< the file read
  std::string bytes;  ///< what it held
  /// How the refusal of a changed file names what was read: "changed on disk since it was
  /// read".
  std::string what = "it";
};

struct WriteOptions {
  /// Write even while the VM holds its lock (vm_lock()); otherwise that is refused.
  bool ignore_vm_lock = false;
  /// How the user overrides that refusal ("pass --force"); ends its message.
  std::string override_hint;
  /// When the target is the file the new bytes were made from (decided under its lock: the
  /// same file once links are resolved, or the same device and inode), the write is an edit of
  /// it, as `vmxkit set -i` makes: refused with vmxkit::Error when the file no longer holds
  /// `edit_of->bytes`, skipped when it holds the new bytes already. Any other target is
  /// written whole.
  std::optional<EditedFile> edit_of;
};

/// Writes `bytes` as the whole content of `path`, atomically: a temporary file beside it,
/// fsynced and renamed over it. Waits (up to a minute) for other vmxkit writers of the file,
/// whose lock it takes before reading anything. An existing file keeps its whole mode and its
/// owner where the process may set them, and is replaced by compare-and-swap: a file another
/// program changed or replaced since the lock was taken is left as it is (vmxkit::Error). A
/// new file is never written over one that appeared meanwhile. A symbolic link is followed
/// (the file it names is written; the link stays). Refused while the VM holds its lock unless
/// `options.ignore_vm_lock`, checked when the lock is taken and again just before the rename.
/// Returns whether it wrote. Throws vmxkit::Error with the file as it was.
bool write_file_bytes(const std::string& path, std::string_view bytes,
                      const WriteOptions& options = {});

// ------------------------------------------------------------------------------------------------
// Apply: a plan made a live VM's (`vmxkit apply`)

/// A document for config_change() and apply_plan(): a file, or bytes already read.
struct DocumentSource {
  std::string path;                  ///< the file; names `bytes` in messages when given
  std::optional<std::string> bytes;  ///< the document's bytes (read from stdin, a socket...)

  DocumentSource() = default;
  /// Implicit, so a path is a source: `config_change("vm.xml", "plan.vmx")`.
  DocumentSource(std::string source) : path(std::move(source)) {}
  DocumentSource(const char* source) : path(source) {}
  /// Bytes already read; `name` is how messages call them.
  static DocumentSource from_bytes(std::string name, std::string bytes);
};

struct ChangeOptions {
  /// Send a firmware that differs from the VM's (`--firmware-change`); otherwise the firmware
  /// is left as it is and the diff says so.
  bool firmware_change = false;
  /// The plan's memory size is a default, not the user's: keep the VM's size (the reservation
  /// still follows it) rather than grow or shrink the VM to it.
  bool keep_memory = false;
};

/// One line of a change's diff.
struct DiffLine {
  /// `-` a device or value that goes, `+` one that comes, `~` a value that changes, `=`
  /// something the plan asks that is not sent (with why).
  char sign = '~';
  std::string what;  ///< "passthrough 0000:18:00.0 (10de:2331)", "memoryMB 16384 -> 65536"
};

/// What one ReconfigVM_Task sends to make a VM what a plan says.
struct ConfigChange {
  /// The VirtualMachineConfigSpec to send, as XML: the devices that go (by the server's keys),
  /// those that come, the extraConfig keys that differ, memory, reservation and firmware where
  /// they differ.
  std::string spec_xml;
  std::vector<DiffLine> diff;
  /// What the plan holds that no server may be sent (`<fill in: ...>` placeholders: the host's
  /// systemId, a device id), each as "where: value". Any makes the change unusable.
  std::vector<std::string> placeholders;
  bool firmware_changes = false;  ///< the firmware is sent (needs the VM off)
  bool devices_change = false;    ///< devices go or come (needs the VM off)
  bool memory_changes = false;
  bool nothing_to_send = false;  ///< the VM already is the plan
};

/// The change that makes the VM `vm` (a ConfigInfo document as a vSphere client reads it, or a
/// RetrievePropertiesEx answer holding one VM's `config`, as pyVmomi serializes either) what
/// `plan` (any VM document load() reads: a `.vmx`, a ConfigSpec...) asks, as `vmxkit apply`
/// computes it. Devices are matched by what they are (address, ids, profile), never passed
/// through twice; memory changes only when the plan gives it. Throws vmxkit::Error when a
/// document cannot be read, when `vm` is not such a document (a `.vmx` holds no device keys),
/// and when either holds more or less than one VM.
ConfigChange config_change(const DocumentSource& vm, const DocumentSource& plan,
                           const ChangeOptions& options = {});

/// What a server says of itself once connected (VsphereServer::on_connected).
struct ServerInfo {
  std::string endpoint;     ///< its URL without credentials: `https://vc.example.com/sdk`
  std::string full_name;    ///< "VMware vCenter Server 8.0.2 build-22617221"
  std::string api_version;  ///< "8.0.2.0"
};

/// A vCenter or ESXi server, as govc names one.
struct VsphereServer {
  /// `https://user:password@host/sdk`, or a host name (https and /sdk implied); empty:
  /// VMXKIT_SERVER, else GOVC_URL. Credentials also come from VMXKIT_USERNAME/VMXKIT_PASSWORD
  /// (where the URL has none), GOVC_USERNAME/GOVC_PASSWORD or a session (VMXKIT_SESSION).
  std::string url;
  /// Given (either), they replace the URL's and the environment's credentials.
  std::optional<std::string> username;
  std::optional<std::string> password;
  /// Skip the TLS certificate and host name checks (also VMXKIT_INSECURE, GOVC_INSECURE).
  bool insecure = false;
  /// An HTTP proxy (`http://host:port`); empty: VMXKIT_PROXY, else libcurl's environment.
  std::string proxy;
  /// Per request, connection included; the connection's own limit is at most this.
  std::chrono::milliseconds timeout{60'000};
  /// Send the credentials to a plain `http://` server, unencrypted (refused without it).
  bool allow_http = false;
  /// Objects per RetrievePropertiesEx answer (maxObjects).
  unsigned batch_size = 100;
  /// Called before each request with its method name ("RetrievePropertiesEx"); the number of
  /// calls is the number of requests sent (`--verbose`).
  std::function<void(std::string_view method)> on_request;
  /// Called once logged in, before any other request.
  std::function<void(const ServerInfo& server)> on_connected;
};

/// Which VM, as the community.vmware modules name one: exactly one of `name` (or its moref),
/// `uuid` and `moid`.
struct VmSelector {
  std::string name;  ///< looked up under `folder`, or in `datacenter`, when given
  /// Its BIOS UUID (`config.uuid`), or with `instance_uuid` its `config.instanceUuid`.
  std::string uuid;
  bool instance_uuid = false;
  std::string moid;  ///< `vm-42`
  std::string datacenter;
  /// An inventory path (`/DC0/vm/gpu`), or a folder of `datacenter` (`gpu`, `vm/gpu`).
  std::string folder;
};

struct ApplyReport;

struct ApplyRequest {
  VsphereServer server;
  VmSelector vm;
  DocumentSource plan;  ///< as config_change()'s `plan`; read once connected
  /// Instead of `plan`: generate's options, planned on the VM's own host as `vmxkit generate
  /// --esx-host` plans on one (its devices, passthrough state and vGPU types read from the
  /// server, its UUID the systemId; the host's catalogue is `generate->catalog`, and
  /// `host_label` becomes "NAME (vSphere API)"). The plan is applied to that VM, named by its
  /// moref from then on; the report calls it "generated for host NAME (vSphere API)". Set
  /// `change.keep_memory` too unless `memory_mb` is given, as `vmxkit apply` does, so that the
  /// VM keeps its size rather than take the plan's default.
  std::optional<PlanRequest> generate;
  /// With `generate`: catalogue files (the `catalog.tsv` format, as load_catalog() reads them),
  /// read once the VM is found, as `vmxkit apply --catalog` reads them; when given, the
  /// catalogue they make replaces `generate->catalog`.
  std::vector<std::string> catalogs;
  ChangeOptions change;
  bool dry_run = false;  ///< compute the change and check every precondition; send nothing
  /// How long the task may run before apply_plan() gives up waiting (it may still run).
  std::chrono::milliseconds task_timeout{600'000};
  /// Called with each warning as it arises: those of the host read for `generate` (a device
  /// the API describes only in part...), once it is read and before the plan is made.
  std::function<void(const std::string& warning)> on_warning;
  /// Called once every check passed, before the task is sent, with the report so far (its
  /// `plan`, `vm`, `change` and `checks`): to show the change while the task runs, as
  /// Terraform's apply shows its plan. Not called when nothing is to be sent (no changes, a
  /// failed check, `dry_run`).
  std::function<void(const ApplyReport& planned)> on_planned;
  /// Called once the ReconfigVM_Task is sent, before apply_plan() waits for it, with the
  /// task's moref (`task-17`).
  std::function<void(std::string_view task)> on_sent;
};

/// How an apply ended.
enum class ApplyStatus : unsigned char {
  no_changes,     ///< the VM already holds the plan: nothing checked, nothing sent
  checks_failed,  ///< a precondition failed: nothing was sent
  dry_run,        ///< every check passed; nothing was sent (ApplyRequest::dry_run)
  applied,        ///< the task succeeded and the VM read back holds the plan
  task_failed,    ///< the task ended in error
  not_held,       ///< the task succeeded but the VM read back lacks part of the plan (`left`)
};
/// "no-changes", "checks-failed", "dry-run", "applied", "task-failed", "not-held".
std::string_view to_string(ApplyStatus status);

/// The VM as read before anything was sent.
struct AppliedVm {
  std::string name;
  std::string moref;        ///< `vm-42`
  std::string power_state;  ///< poweredOn, poweredOff, suspended
};

/// The preconditions: each that passed, each that failed, and each that could not be checked
/// (with why).
struct ApplyChecks {
  std::vector<std::string> passed;
  std::vector<std::string> failed;
  std::vector<std::string> not_checked;
};

/// The ReconfigVM_Task sent, and how it ended.
struct ApplyTask {
  std::string moref;  ///< `task-17`
  bool success = false;
  std::string fault;    ///< the fault type of an error
  std::string message;  ///< its localized message
};

/// What the VM holds once the task ended, as read back.
struct AppliedVmState {
  std::size_t passthrough_devices = 0;  ///< PCI passthrough devices (whole or vGPU)
  std::optional<std::int64_t> memory_mb;
};

struct ApplyReport {
  ApplyStatus status = ApplyStatus::no_changes;
  bool changed = false;  ///< the task was sent and did not fail: the VM changed
  /// How the plan is named: the path of ApplyRequest::plan, or "generated for host NAME
  /// (vSphere API)" for ApplyRequest::generate.
  std::string plan;
  AppliedVm vm;
  ConfigChange change;
  ApplyChecks checks;             ///< none made for no_changes
  std::optional<ApplyTask> task;  ///< once sent
  std::vector<DiffLine> left;     ///< not_held: what the VM read back still lacks of the plan
  /// Once the task ended (applied, task_failed, not_held): what the VM read back holds. A
  /// ReconfigVM_Task is atomic, so a failed one leaves the VM as it was; this says so.
  std::optional<AppliedVmState> after;
  /// applied: the VM read back, linted against its host as `vmxkit lint --server` lints it.
  std::optional<LintReport> lint;
};

/// `vmxkit apply`: connects, reads the plan (or, with `generate`, finds the VM, reads its host
/// and plans on it), finds the VM, computes the change (config_change()), and when there is one
/// reads the host and checks every precondition before any change (placeholders, power state,
/// each device on the host with passthrough active and held by no other VM, vGPU profiles,
/// memory); unless one failed or `dry_run`, sends one ReconfigVM_Task, waits for it, reads the
/// VM back and lints it. How it ended is the report's status; throws vmxkit::Error for what
/// stops the work (a plan that cannot be read, a plan given with `generate`, a plan `generate`
/// refuses, no such VM, a server that cannot be reached or refuses a request, a SOAP fault, a
/// task that outlives `task_timeout`). Defined in `vmxkit::client`.
ApplyReport apply_plan(const ApplyRequest& request);

/// `report` as `vmxkit apply --format json` writes it (docs/apply.md): schema, status, changed,
/// vm (name, moref, power_state), plan, changes (sign, what), placeholders, checks (passed,
/// failed, not_checked), task (moref, success, fault, message; null until sent), left, and lint
/// (the VM read back as `vmxkit lint --format json` writes it; null unless applied); two-space
/// indentation and a final newline. Defined in `vmxkit::client`.
std::string render_apply_json(const ApplyReport& report);

// ------------------------------------------------------------------------------------------------
// NCCL's topology file for a VM (`vmxkit nccl-topo`)

/// An NCCL topology file (NCCL_TOPO_FILE) for a VM.
struct NcclTopoFile {
  std::string xml;                 ///< the file, as NCCL reads it
  std::vector<std::string> notes;  ///< for the user: devices mapped or assumed, NUMA unknown
};

/// The tree NCCL's own sysfs walk builds on `host` above each passthrough GPU and NIC of `vm`
/// (its pciPassthruN.id entries), with the bus ids the guest's captures (`lspci -vvv`, and
/// `-tv`; read in order, files or bytes) give those devices, so that NCCL in the guest computes
/// the path types the host has. `maps` are `GUEST_BDF=HOST_BDF`: which host device a guest
/// device is where several share one vendor:device id. Throws vmxkit::Error when a capture
/// cannot be read or is none of the guest formats, and for a mapping that does not work.
NcclTopoFile nccl_topo(const Host& host, const VmxDocument& vm,
                       const std::vector<DocumentSource>& guest,
                       const std::vector<std::string>& maps = {});

// ------------------------------------------------------------------------------------------------
// Guest checks: is a VM's guest ready for GPUDirect RDMA (`vmxkit guest-check`)

struct GuestCheckOptions {
  /// The NCCL topology file (NCCL_TOPO_FILE) the guest runs NCCL with, when it has one: its
  /// bus ids must be the guest's, and NCCL's view is then the one with the file.
  std::optional<DocumentSource> nccl_topo;
};

class GuestCheck;
/// Reads the captures made in a guest (files or bytes, in order; each detected by its content:
/// lspci -vvv / -tv, lsmod, /proc/cmdline, nvidia-smi, ibv_devinfo, NCCL's log and topology
/// dump..., several in one text after their shell prompt lines) and runs every guest check
/// (`vmxkit rules --kind guest`). Throws vmxkit::Error when a capture cannot be read or is none
/// of the guest formats, and when the NCCL topology file cannot be read.
GuestCheck check_guest(const std::vector<DocumentSource>& captures,
                       const GuestCheckOptions& options = {});
/// `check` as `vmxkit guest-check --format FORMAT` writes it: "text" (the findings, what NCCL
/// does at its defaults for each GPU and its nearest NIC, what its log says it decided, the
/// inputs read, the verdict), "json" (the same as one document) or "sarif" (SARIF 2.1.0). Throws
/// vmxkit::Error for another format.
std::string render_guest_check(const GuestCheck& check, std::string_view format);

/// The guest checks' findings over one guest's captures.
class GuestCheck {
 public:
  const std::vector<CheckFinding>& findings() const;
  /// No error, no warning, and every check made: the guest is ready for GPUDirect RDMA.
  bool ready() const;

 private:
  friend GuestCheck check_guest(const std::vector<DocumentSource>& captures,
                                const GuestCheckOptions& options);
  friend std::string render_guest_check(const GuestCheck& check, std::string_view format);
  struct Impl;
  GuestCheck() = default;
  std::shared_ptr<const Impl> impl_;
};

// ------------------------------------------------------------------------------------------------
// A server's hosts and VMs: the host of `--esx-host`, `vmxkit lint --server`

/// What load_server_host() reads besides the server's answer.
struct ServerHostOptions {
  /// More inputs of the same host (an `lspci -vvv` adds the BARs the API does not give), merged
  /// in order after what the server says, as load_host() reads them.
  std::vector<HostSource> sources;
  Catalog catalog;  ///< what the host's devices are matched against
  /// Also ask the server for the host's QueryConfigTarget answer (ServerHost::config_target).
  bool config_target = false;
  /// Called with each warning as it arises (a missing QueryConfigTarget answer while the server
  /// is read, then the host's own once every input is loaded); they are also in the result.
  std::function<void(std::string_view warning)> on_warning;
  /// Called once the server has been read and logged out of, before `sources` are loaded
  /// (`vmxkit --verbose` says there how many requests it took).
  std::function<void()> on_server_read;
};

/// An ESXi host as a server describes it.
struct ServerHost {
  Host host;  ///< its PCI devices, passthrough and SR-IOV state and NUMA nodes, with `sources`
  std::string system_uuid;  ///< `hardware.systemInfo.uuid`: a plan's systemId
  /// The host's QueryConfigTarget answer as XML, when asked for and the server gave one.
  std::string config_target;
  /// What on_warning was given, in order, without "warning: ".
  std::vector<std::string> warnings;
};

/// Reads the ESXi host named `esx_host` (its name or moref, `host-21`) from `server` (vCenter or
/// the ESXi host itself), merges `options.sources` into it and finalizes it, as `vmxkit topo
/// --server URL --esx-host NAME` reads a host. A QueryConfigTarget that fails is a warning
/// (config_target stays empty). Throws vmxkit::Error when the server cannot be reached or
/// refuses a request, when it has no such host, and as load_host() for `sources`. Defined in
/// `vmxkit::client`.
ServerHost load_server_host(const VsphereServer& server, std::string_view esx_host,
                            const ServerHostOptions& options = {});

/// Which VMs of a server lint_server() lints, and how. Exactly one of `vms`, `uuid` and
/// `all_vms`; the messages of what does not fit name them as `vmxkit lint`'s flags do.
struct ServerLintRequest {
  VsphereServer server;
  std::vector<std::string> vms;  ///< by name or moref (`vm-42`), each matching every such VM
  /// The VM of this BIOS UUID (`config.uuid`), or with `instance_uuid` its
  /// `config.instanceUuid`, found by the server's SearchIndex.
  std::string uuid;
  bool instance_uuid = false;
  bool all_vms = false;  ///< every VM under the container below
  /// The VMs are looked for under this folder (a name, or an inventory path `/DC0/vm/gpu`), or
  /// in this cluster, or in this datacenter (`folder` then may be one of its folders: `gpu` or
  /// `vm/gpu`); none: the whole inventory. `folder` and `cluster` exclude each other, as do
  /// `datacenter` and `cluster`.
  std::string folder;
  std::string cluster;
  std::string datacenter;
  Catalog catalog;      ///< what the hosts are read with and the VMs linted against
  RuleSelection rules;  ///< the findings reported

  /// Throws vmxkit::Error unless exactly one of `vms`, `uuid` and `all_vms` is given
  /// (lint_server() checks it first, before it connects).
  void validate() const;
};

/// A VM of a server, as its inventory lists it.
struct ServerVm {
  std::string name;
  std::string moref;  ///< `vm-42`
};

/// A line lint_server() has for its user while it works (`vmxkit lint --server` prints each on
/// stderr after "vmxkit: ", and "warning: " or "error: " as its kind is).
struct ServerLintMessage {
  enum class Kind : unsigned char {
    progress,  ///< "2000 VMs listed...", "100/250 VMs linted"
    warning,   ///< a host that could not be read: its VMs are linted without it
    error,     ///< a name of `vms` that matches no VM; a VM that vanished while it was listed
  };
  Kind kind = Kind::progress;
  std::string text;  ///< one line, without a line break
};

/// What lint_server() hands over while it works, on the calling thread, in order.
struct ServerLintEvents {
  /// Once the VMs are listed and their hosts read, before the first report: how many VMs are
  /// linted (those that vanish before their config is read among them).
  std::function<void(std::size_t vms)> on_begin;
  /// Each VM's findings (the selection's), linted against the host it runs on; its path is
  /// `HOST/vm/NAME` (HOST as the server's URL names it). The VMs come batch by batch
  /// (VsphereServer::batch_size configs a request, in the order they are listed or named), each
  /// batch in the order of the server's answer.
  std::function<void(LintReport report)> on_report;
  /// A VM listed that was gone when its config was read: not linted (an error message says so
  /// first).
  std::function<void(const ServerVm& vm)> on_vanished;
  /// After the last report, before the session is logged out of.
  std::function<void()> on_end;
  /// Each progress line, warning and error as it arises (see ServerLintMessage).
  std::function<void(const ServerLintMessage& message)> on_message;
};

/// How a lint_server() run went.
struct ServerLintSummary {
  std::size_t linted = 0;              ///< reports handed to on_report
  std::size_t vanished = 0;            ///< VMs handed to on_vanished
  std::vector<std::string> not_found;  ///< names of `vms` that matched no VM
};

/// `vmxkit lint --server`: connects, finds the VMs (lists every VM under the container, in
/// batches, keeping those `vms` names; or the one of `uuid`), reads each host they run on once
/// (a host that cannot be read is a warning, its VMs linted without it), then reads their live
/// configs, one request a batch, and lints each against its host, handing its report over
/// before the next batch is read: however many VMs there are, one batch is held at once.
/// Throws vmxkit::Error when the request does not fit, when the server cannot be reached or
/// refuses a request, when the container or the VM of `uuid` is not found, and what an event
/// throws. Defined in `vmxkit::client`.
ServerLintSummary lint_server(const ServerLintRequest& request, const ServerLintEvents& events);

}  // namespace vmxkit
