// SPDX-License-Identifier: Apache-2.0
// An NCCL topology file (NCCL_TOPO_FILE) for a VM, as data: the tree NCCL's own sysfs walk
// builds on the host for each passthrough GPU and NIC, with the guest's bus ids on the devices;
// the path types NCCL computes from such a tree; and what NCCL does with a file in a guest
// whose bus ids are not the file's. The XML text is report/nccl_topo_xml.h's.
//
// Facts from NCCL's source, github NVIDIA/nccl commit 5067397c (2.30.7); docs/nccl-topo.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/model/host.h"

namespace vmxkit::guest {

// --- the tree ---------------------------------------------------------------------------------

/// What an element of the file is to NCCL: `<cpu>`, or a `<pci>` whose class makes it a PCI
/// switch node, a GPU or a NIC (kvDictPciClass, src/graph/topo.cc); `other` is a `<pci>` of
/// another class (NCCL makes it a PCI node too).
enum class NcclNodeKind : unsigned char { cpu, bridge, gpu, nic, other };
std::string_view to_string(NcclNodeKind kind);

/// Where an element's link_speed and link_width come from.
enum class LinkSource : unsigned char {
  host,          ///< the host's lspci -vvv LnkCap, the lower of the device's and its port's
  guest,         ///< the guest's lspci LnkCap of the passthrough device (the host's has none)
  below,         ///< a bridge no capture gives a link for: the fastest, widest device below it
  nccl_default,  ///< no capture gives one: NCCL's own default (8 GT/s x16), written out
  file,          ///< as a file read says
};

/// A `<net>` of a `<nic>` in NCCL's dump (NCCL_TOPO_DUMP_FILE): `<net name="mlx5_0" dev="0"
/// gdr="1" .../>` (ncclTopoFillNet and ncclTopoProcessNet, src/graph/topo.cc).
struct NcclTopoNet {
  std::string name;
  std::optional<int> dev;
  std::optional<bool> gdr;  ///< NCCL found peer memory or DMA-BUF for it (the HCA's ptrSupport)
  std::uint32_t line = 0;
};

/// One element: `<cpu numaid>` or `<pci busid ...>`.
struct NcclTopoNode {
  NcclNodeKind kind = NcclNodeKind::bridge;
  std::string busid;                       ///< `<pci busid>`; empty for a cpu
  int numaid = 0;                          ///< `<cpu numaid>`
  std::optional<std::uint32_t> pci_class;  ///< 24 bits, `0x060400`
  std::optional<std::uint16_t> vendor;     ///< `0x10de`
  std::optional<std::uint16_t> device;
  std::optional<std::uint16_t> subsystem_vendor;
  std::optional<std::uint16_t> subsystem_device;
  std::string link_speed;  ///< "32.0 GT/s PCIe"; empty: not written
  std::optional<unsigned> link_width;
  LinkSource link_source = LinkSource::host;
  std::optional<Bdf> host_bdf;  ///< the host device it is
  pci::PortType host_port = pci::PortType::unknown;
  std::optional<std::size_t> mapping;  ///< a GPU or NIC: into NcclTopo::mappings
  bool named_net = false;              ///< a file's `<pci>` holding `<nic>`/`<net>` elements
  /// A dump's `<gpu dev= sm= rank= gdr=>` below this `<pci>` (ncclTopoFillGpu, xml.cc).
  std::optional<int> gpu_dev;
  std::optional<int> gpu_rank;
  std::optional<bool> gpu_gdr;    ///< the GPU supports GPU Direct RDMA (CUDA's attribute)
  std::vector<NcclTopoNet> nets;  ///< a dump's `<nic><net .../></nic>` below this `<pci>`
  std::uint32_t line = 0;         ///< a file's element: its line
  std::optional<std::size_t> parent;
  std::vector<std::size_t> children;  ///< ordered by busid, as NCCL inserts them
};

/// The elements of a topology file below `<system version="1">`.
struct NcclTopoTree {
  std::vector<NcclTopoNode> nodes;
  std::vector<std::size_t> cpus;  ///< the `<cpu>` elements, in the file's order

  std::size_t add_cpu(int numaid);
  /// Adds a `<pci>` under `parent`: among its siblings in bus id order (strcmp), as NCCL's
  /// ncclTopoGetXmlFromSys inserts them (src/graph/xml.cc, "Issue #820"), or last, as NCCL's
  /// file reader does.
  std::size_t add_pci(NcclTopoNode node, std::size_t parent, bool in_busid_order = true);
  /// The first `<pci>` in the file's order whose busid is this string (xmlFindTagKv in
  /// src/graph/xml.h: strcmp, no case or domain folding), or nullopt.
  std::optional<std::size_t> find(std::string_view busid) const;
  /// The `<cpu>` with this numaid, or nullopt.
  std::optional<std::size_t> find_cpu(int numaid) const;
  /// Every element, depth first in the file's order.
  std::vector<std::size_t> document_order() const;
};

/// The bus id NCCL looks a guest device up by: lower case, `%04x:%02x:%02x.%x` (int64ToBusId,
/// src/misc/utils.cc) for a GPU; for a NIC the IB plugin's, whose function and (with the default
/// NCCL_IB_MERGE_VFS=1) device number are 0 (ncclIbGetPciPath, src/transport/net_ib/init.cc).
std::string nccl_busid(const Bdf& bdf, NcclNodeKind kind);
/// The node a passthrough device is in NCCL's XML: a GPU, or a NIC (every other candidate).
NcclNodeKind nccl_kind(const pci::Device& d);

/// A link speed as lspci prints it ("32GT/s", "2.5GT/s") in the form Linux's sysfs
/// `max_link_speed` holds and NCCL's kvDictPciGen reads ("32.0 GT/s PCIe"); empty when unknown.
std::string nccl_link_speed(const std::string& lspci_speed);

/// The bandwidth NCCL gives a `<pci>`'s link, GB/s: `width * speed / 80` with speed from
/// kvDictPciGen (prefix match; anything else 60, i.e. 8 GT/s) and width 0 or absent read as 16
/// (ncclTopoAddPci, src/graph/topo.cc).
double nccl_link_bw(std::string_view link_speed, std::optional<unsigned> link_width);

/// The devices NCCL's sysfs walk makes `<pci>` elements above `device` (ncclTopoGetXmlFromSys,
/// src/graph/xml.cc: "Rewind two '/' and follow the upper PCI switch"): of its sysfs path
/// `pciDDDD:BB/c0/.../ck` (c0 on the root bus, ck the device) the components two, four, ...
/// above the device, whatever their port types; for a switch below a root port, only the
/// switch's upstream port. Indices into host.devices(), outermost first; empty for a device on
/// a root port (NCCL hangs it straight off the `<cpu>`).
std::vector<std::size_t> nccl_parent_bridges(const pci::Host& host, std::size_t device);

// --- writing one for a VM ---------------------------------------------------------------------

/// One guest device and the host device it is.
struct DeviceMapping {
  std::size_t guest_index = 0;  ///< into Guest::pci().devices()
  std::size_t host_index = 0;   ///< into Host::devices(): the position written (a VF's PF)
  Bdf guest_bdf;
  Bdf host_bdf;
  NcclNodeKind kind = NcclNodeKind::gpu;  ///< gpu or nic
  std::string busid;                      ///< nccl_busid(guest_bdf, kind)
  std::optional<unsigned> entry;  ///< the pciPassthruN it came from (none: --map to a non-entry)
  bool from_map = false;          ///< given with --map
  bool by_order = false;          ///< one of several devices of its id, matched by order
  bool vf = false;                ///< an SR-IOV VF entry, placed at its PF
  std::string how;                ///< how it was matched, for the note and the XML comment
};

/// What nccl-topo was given besides the inputs.
struct NcclTopoOptions {
  /// `--map GUEST_BDF=HOST_BDF`, as written (validated by build_nccl_topo).
  std::vector<std::string> maps;
};

/// The result: the mappings, notes for the user (stderr), and the tree to write.
struct NcclTopo {
  std::vector<DeviceMapping> mappings;
  std::vector<std::string> notes;
  NcclTopoTree tree;
  std::map<std::uint16_t, std::uint16_t> synthetic_domains;  ///< host domain -> file domain
  bool numa_assumed = false;  ///< some device's host NUMA node is unknown: numaid 0 written
  std::string vm_path;
};

/// The synthetic bus id a host bridge gets in the file: its host bus, device and function in a
/// PCI domain no guest device uses (0xffff downwards, one per host domain), so NCCL's lookups
/// by bus id can never find a bridge where it looks for a guest device.
std::string synthetic_busid(std::uint16_t domain, const Bdf& host_bdf);

/// Maps every guest GPU and NIC (VMware's emulated devices left out) to its host device
/// (pciPassthruN ids, --map) and builds the tree NCCL's sysfs walk builds on the host for them.
/// Throws vmxkit::Error (file:line:col where there is one) for a bad `.vmx` id, a bad or unknown
/// --map address, or a guest GPU/NIC no entry or --map accounts for.
NcclTopo build_nccl_topo(const pci::Host& host, const vmx::Document& vm, const Guest& guest,
                         const NcclTopoOptions& options = {});

// --- what NCCL computes from a tree -----------------------------------------------------------

/// NCCL's path types, in its order and with its numbers (PATH_* in src/include/graph.h).
enum class NcclPathType : unsigned char {
  loc = 0,
  nvl = 1,
  nvb = 2,
  c2c = 3,
  pix = 4,
  pxb = 5,
  p2c = 6,
  pxn = 7,
  phb = 8,
  sys = 9,
  net = 10,
  dis = 11,
};
std::string_view to_string(NcclPathType type);

/// One pair of devices (tree node indices) and NCCL's path between them.
struct NcclPairPath {
  std::size_t a = 0;  ///< a GPU
  std::size_t b = 0;  ///< a NIC, or another GPU
  NcclPathType type = NcclPathType::dis;
  double bw = 0;              ///< GB/s, the lowest PCI link on the path
  bool crosses_cpus = false;  ///< also crosses NCCL's inter-CPU link, whose bandwidth depends
                              ///< on the CPU model (ncclTopoGetInterCpuBw) and is not counted
};

/// NCCL's view of a tree, as ncclTopoGetSystemFromXml (ncclTopoAddCpu/AddPci,
/// ncclTopoFlattenBcmSwitches, ncclTopoConnectCpus) and ncclTopoComputePaths (ncclTopoSetPaths,
/// src/graph/paths.cc) build it. No NVLink, no C2C; every NIC's port is taken to be as fast as
/// every other's.
struct NcclPaths {
  std::vector<NcclPairPath> gpu_nic;  ///< every GPU with every NIC, in the file's order
  std::vector<NcclPairPath> gpu_gpu;  ///< every two GPUs, once
  /// Per GPU, the NICs ncclTopoGetLocal (src/graph/topo.cc) gives it: the highest bandwidth,
  /// then the lowest path type.
  std::map<std::size_t, std::vector<std::size_t>> local_nics;
  const NcclPairPath* find(std::size_t a, std::size_t b) const;
};
NcclPaths nccl_paths(const NcclTopoTree& tree);

// --- a file in a guest ------------------------------------------------------------------------

/// The tree NCCL builds in a guest from a file and the guest's own PCI tree (ncclTopoGetSystem,
/// src/graph/topo.cc): each guest GPU and NIC found in the file by NCCL's bus id keeps the
/// file's place; one the file lacks is placed by the guest's sysfs walk (ncclTopoGetXmlFromSys:
/// below a VMware root port, straight under the `<cpu>` of its guest NUMA node, -1 when the guest
/// shows none); the file's devices the guest does not have are dropped (ncclTopoTrimXml).
struct NcclGuestView {
  NcclTopoTree tree;
  std::map<std::size_t, std::size_t> node_of;  ///< guest device index -> its node in `tree`
  NcclPaths paths;
};
NcclGuestView nccl_guest_view(const NcclTopoTree& file, const Guest& guest);

/// A GPU or NIC of the file whose bus id the guest does not have.
struct NcclTopoMove {
  NcclNodeKind kind = NcclNodeKind::gpu;
  std::string file_busid;
  std::string id;                ///< "15b3:1021", when the file gives vendor and device
  std::optional<Bdf> guest_bdf;  ///< where the guest has a device of that id the file lacks
  std::string guest_busid;       ///< its NCCL bus id
  std::uint32_t line = 0;        ///< the element's line in the file
};

/// A pair whose path type in the guest differs from the file's (the host's).
struct NcclPairChange {
  std::string gpu;  ///< guest NCCL bus ids
  std::string nic;  ///< a NIC, or another GPU
  NcclNodeKind peer = NcclNodeKind::nic;
  NcclPathType in_file = NcclPathType::dis;
  NcclPathType in_guest = NcclPathType::dis;
};

/// What guest-check says about a file (GUEST015).
struct NcclTopoCheck {
  std::vector<NcclTopoMove> moved;
  std::vector<Bdf> not_in_file;  ///< guest GPUs and NICs no moved entry accounts for
  std::vector<NcclPairChange> changed;
  std::vector<std::uint32_t> bridges_without_class;  ///< lines: NCCL's init fails on them
  bool ok() const {
    return moved.empty() && not_in_file.empty() && changed.empty() && bridges_without_class.empty();
  }
};

/// Checks a topology file against a guest: its GPU and NIC bus ids must be the guest's (as NCCL
/// spells them), and every pair's path type in the guest must be the file's.
NcclTopoCheck check_nccl_topo(const NcclTopoTree& file, const Guest& guest);

/// The guest devices NCCL would take as GPUs and NICs (VMware's emulated devices left out), in
/// bus order.
std::vector<std::size_t> nccl_devices(const Guest& guest);

}  // namespace vmxkit::guest
