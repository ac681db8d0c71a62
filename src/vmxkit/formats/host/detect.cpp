// SPDX-License-Identifier: Apache-2.0
// Which input format a HOST text is, from its first meaningful line.
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/nvidia_smi_topo.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

InputFormat detect_format(std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  std::uint32_t first_message = 0;
  for (const std::string_view line : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(line);
    // A comment naming where a capture came from, or the shell prompt line of the command.
    if (t.empty() || t.starts_with('#') || t.find("nvidia-smi topo") != t.npos) continue;
    if (is_kernel_log_line(t)) return InputFormat::dmesg;  // before XML: `dmesg -r`'s `<6>`
    // XML: no capture format starts with '<' (a UTF-8 BOM before it is XML's too).
    if (t.starts_with('<') || (line_no == 1 && t.starts_with("\xEF\xBB\xBF<"))) {
      return InputFormat::vsphere_properties;
    }
    if (is_smi_topo_header(t)) return InputFormat::nvidia_smi_topo;
    if (t.starts_with("-[") || t.starts_with("-+-[") || t.starts_with("+-[") ||
        t.starts_with("\\-[") || t.starts_with("-+-") || t.starts_with("+-")) {
      return InputFormat::lspci_tree;
    }
    if (t.starts_with("available:") && t.find("nodes") != std::string_view::npos) {
      return InputFormat::numactl;
    }
    if (t.starts_with("Physical Memory:") || t.starts_with("Reliable Memory:") ||
        t.starts_with("NUMA Node Count:")) {
      return InputFormat::esxcli_memory;
    }
    if (t.starts_with("Device ID") && t.find("Enabled") != std::string_view::npos) {
      return InputFormat::esxcli_passthru;
    }
    if (parse_bdf(t)) return InputFormat::esxcli;
    const auto sp = t.find(' ');
    if (sp != std::string_view::npos && parse_bdf(t.substr(0, sp))) {
      return InputFormat::lspci_verbose;
    }
    if (is_tool_message(line)) {  // a `2>&1` capture: the next line may be the first device
      if (first_message == 0) first_message = line_no;
      continue;
    }
    const auto col = static_cast<std::uint32_t>(line.size() - trim(line).size() + 1);
    throw Error(path, line_no, line[0] == ' ' || line[0] == '\t' ? col : 1,
                "unknown host input: expected `lspci -vvv`, `lspci -tv`, `esxcli hardware pci "
                "list`, `esxcli hardware pci pcipassthru list`, `esxcli hardware memory get` or "
                "`numactl --hardware`, `nvidia-smi topo -m` or `dmesg` output, or a vSphere "
                "HostSystem's properties (XML)");
  }
  if (first_message != 0) {
    throw Error(path, first_message, 1,
                "only tool messages (`lspci: ...`), no device lines: the capture failed");
  }
  throw Error(path, "empty host input");
}

}  // namespace vmxkit::pci
