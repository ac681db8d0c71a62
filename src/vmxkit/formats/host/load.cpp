// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/host/load.h"

#include <filesystem>
#include <system_error>

#include "vmxkit/core/io.h"
#include "vmxkit/formats/host/vsphere_api.h"

namespace vmxkit::pci {

std::string_view to_string(InputFormat format) {
  switch (format) {
    case InputFormat::lspci_verbose:
      return "lspci -vvv";
    case InputFormat::lspci_tree:
      return "lspci -tv";
    case InputFormat::esxcli:
      return "esxcli hardware pci list";
    case InputFormat::esxcli_memory:
      return "esxcli hardware memory get";
    case InputFormat::esxcli_passthru:
      return "esxcli hardware pci pcipassthru list";
    case InputFormat::numactl:
      return "numactl --hardware";
    case InputFormat::vsphere_properties:
      return "vSphere HostSystem properties";
    case InputFormat::sysfs:
      return "sysfs";
    case InputFormat::nvidia_smi_topo:
      return "nvidia-smi topo -m";
    case InputFormat::dmesg:
      return "dmesg";
  }
  return "unknown";
}

void load_text(Host& host, std::string_view text, const std::string& path) {
  switch (detect_format(text, path)) {
    case InputFormat::lspci_verbose:
      load_lspci_verbose(host, text, path);
      break;
    case InputFormat::lspci_tree:
      load_lspci_tree(host, text, path);
      break;
    case InputFormat::esxcli:
      load_esxcli(host, text, path);
      break;
    case InputFormat::esxcli_memory:
      load_esxcli_memory(host, text, path);
      break;
    case InputFormat::esxcli_passthru:
      load_esxcli_passthru(host, text, path);
      break;
    case InputFormat::numactl:
      load_numactl(host, text, path);
      break;
    case InputFormat::vsphere_properties:
      load_vsphere_properties(host, text, path);
      break;
    case InputFormat::nvidia_smi_topo:
      load_nvidia_smi_topo(host, text, path);
      break;
    case InputFormat::dmesg:
      load_dmesg(host, text, path);
      break;
    case InputFormat::sysfs:
      break;
  }
}

void load_source(Host& host, const std::string& source) {
  std::error_code ec;  // a path that cannot be inspected (a link loop) is read as a file: its error
  if (source == "live") {
    load_sysfs(host, "/sys/bus/pci/devices");
  } else if (std::filesystem::is_directory(source, ec)) {
    load_sysfs(host, source);
  } else {
    const std::string text = read_file(source);
    load_text(host, text, source);
  }
}

Host load_host(const std::vector<std::string>& sources, const Catalog& catalog) {
  Host host(catalog);
  for (const std::string& source : sources) load_source(host, source);
  host.finalize();
  return host;
}

}  // namespace vmxkit::pci
