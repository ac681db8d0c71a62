// SPDX-License-Identifier: Apache-2.0
// Reading HOST arguments into a pci::Host: the formats a capture may be in, told apart by
// content, and one loader per format (each in its own file of formats/host/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/devices/catalog.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

/// The input formats a HOST argument may hold.
enum class InputFormat : unsigned char {
  lspci_verbose,
  lspci_tree,
  esxcli,
  esxcli_memory,
  esxcli_passthru,
  numactl,
  vsphere_properties,  ///< a HostSystem's vSphere API properties (XML): pci/vsphere_api.h
  sysfs,
  nvidia_smi_topo,  ///< `nvidia-smi topo -m` (formats/host/nvidia_smi_topo.h)
  dmesg,            ///< the kernel log's PCI lines (`dmesg`, `journalctl -k`)
};
std::string_view to_string(InputFormat format);

/// Detects the format of an input text from its first meaningful line. Throws vmxkit::Error
/// naming path:line:col when it is none of the known formats.
InputFormat detect_format(std::string_view text, const std::string& path);

/// Parses one input text (format detected) into `host`. Throws vmxkit::Error on input it cannot
/// read; adds warnings for what it skipped.
void load_text(Host& host, std::string_view text, const std::string& path);
/// Reads a sysfs tree laid out like /sys/bus/pci/devices (entries named by BDF, symlinks or
/// directories). Throws vmxkit::Error when the directory cannot be read.
void load_sysfs(Host& host, const std::string& dir);

/// Loads one HOST argument into `host`: a file (format detected), a sysfs directory, or `live`.
void load_source(Host& host, const std::string& source);

/// Loads and merges HOST arguments: files (format detected), sysfs directories, or `live`
/// (this machine's /sys/bus/pci/devices), then finalizes the host.
Host load_host(const std::vector<std::string>& sources,
               const Catalog& catalog = Catalog::builtin());

// Individual loaders (used by load_text; exposed for tests).
void load_lspci_verbose(Host& host, std::string_view text, const std::string& path);
void load_lspci_tree(Host& host, std::string_view text, const std::string& path);
void load_esxcli(Host& host, std::string_view text, const std::string& path);
void load_numactl(Host& host, std::string_view text, const std::string& path);
/// `nvidia-smi topo -m`: the matrix, matched to the PCI inputs' devices by finalize().
void load_nvidia_smi_topo(Host& host, std::string_view text, const std::string& path);
/// The kernel log (`dmesg`, `journalctl -k`): each device's ids and class, BAR sizes from the
/// ranges the kernel prints, the BARs it found no space for, bridges' bus ranges.
void load_dmesg(Host& host, std::string_view text, const std::string& path);
/// Whether a (trimmed) line is a kernel log line: `[    0.000000] ...`, `Linux version`,
/// `pci 0000:00:00.0: ...`, `pci_bus 0000:00: ...`, or a syslog line of the kernel.
bool is_kernel_log_line(std::string_view line);
/// `esxcli hardware memory get` (ESXi has no numactl): its `NUMA Node Count` line.
void load_esxcli_memory(Host& host, std::string_view text, const std::string& path);
/// `esxcli hardware pci pcipassthru list` (ESXi 7.0+): `Device ID  Enabled` rows.
void load_esxcli_passthru(Host& host, std::string_view text, const std::string& path);

}  // namespace vmxkit::pci
