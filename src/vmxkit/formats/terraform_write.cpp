// SPDX-License-Identifier: Apache-2.0
// Writes a plan as HCL for vmware/terraform-provider-vsphere, in the layout `terraform fmt`
// (hclwrite.Format) gives: two-space indents, the `=` of consecutive one-line attributes aligned.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <variant>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/terraform.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::terraform {
namespace {

using vsphere::BackingType;
using vsphere::ConfigSpec;
using vsphere::DeviceChange;
using vsphere::DeviceType;

// The most memory VM Operator's 64-bit MMIO default gives (PCIPassthruMMIOSizeDefault).
constexpr std::int64_t kVmOperatorMmioGb = 512;

// A quoted HCL string (hclsyntax's quoted template): `"`, `\` and control characters escaped,
// and `${` and `%{` written as `$${` and `%%{` so that they are not template sequences.
std::string hcl_string(std::string_view s, std::string_view what) {
  if (!is_valid_utf8(s)) {
    throw vsphere::UncarriedText(s, fmt::format("{} {}: not UTF-8, which HCL requires", what,
                                                vsphere::quote_for_message(s)));
  }
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool template_start = (c == '$' || c == '%') && i + 1 < s.size() && s[i + 1] == '{';
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
      if (template_start) out += c;
    }
  }
  out += '"';
  return out;
}

// A comment line: control characters would end it or break the file.
std::string comment_line(std::string_view text, std::string_view indent) {
  std::string clean;
  for (const char c : text) clean.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
  while (!clean.empty() && clean.back() == ' ') clean.pop_back();
  return std::string(indent) + (clean.empty() ? "#" : "# " + clean) + "\n";
}

// A block's body: one-line attributes (aligned in runs), multi-line ones, nested blocks and
// comment lines, in order.
struct Body {
  struct Attribute {
    std::string name;
    std::string value;  // one line
  };
  struct Lines {
    std::vector<std::string> lines;  // whole lines, without indentation or line break
  };
  std::vector<std::variant<Attribute, Lines>> items;

  void attribute(std::string name, std::string value) {
    items.emplace_back(Attribute{std::move(name), std::move(value)});
  }
  void comment(std::string_view text) { items.emplace_back(Lines{{comment_line(text, "")}}); }
  void lines(std::vector<std::string> l) { items.emplace_back(Lines{std::move(l)}); }

  std::string render(std::string_view indent) const {
    std::string out;
    for (std::size_t i = 0; i < items.size();) {
      if (const auto* l = std::get_if<Lines>(&items[i])) {
        for (const std::string& line : l->lines) {
          out += std::string(indent) + line;
          if (line.empty() || line.back() != '\n') out += '\n';
        }
        ++i;
        continue;
      }
      std::size_t end = i;
      std::size_t width = 0;
      for (; end < items.size() && std::holds_alternative<Attribute>(items[end]); ++end) {
        width = std::max(width, std::get<Attribute>(items[end]).name.size());
      }
      for (; i < end; ++i) {
        const auto& a = std::get<Attribute>(items[i]);
        out += fmt::format("{}{:<{}} = {}\n", indent, a.name, width, a.value);
      }
    }
    return out;
  }
};

// `extra_config = { ... }`: keys quoted (a dotted key unquoted is a reference), values strings.
std::vector<std::string> extra_config_lines(const ConfigSpec& spec) {
  Body inner;
  for (const vsphere::OptionValue& o : spec.extra_config) {
    inner.attribute(hcl_string(o.key, "extraConfig key"), hcl_string(o.value, o.key));
  }
  std::vector<std::string> lines{"extra_config = {"};
  std::string text = inner.render("  ");
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  lines.emplace_back("}");
  return lines;
}

// A resource's block label: the plan's display name as an identifier, else `gpu_vm`.
std::string resource_label(const ConfigSpec& spec) {
  std::string label;
  for (const char c : spec.name.value_or("")) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    label.push_back(ok ? c : '_');
  }
  if (label.empty() || !((label[0] >= 'a' && label[0] <= 'z') ||
                         (label[0] >= 'A' && label[0] <= 'Z') || label[0] == '_')) {
    label = "gpu_vm" + (label.empty() ? std::string() : "_" + label);
  }
  return label;
}

std::string block(std::string_view type, const ConfigSpec& spec, const Body& body) {
  return fmt::format("resource \"{}\" \"{}\" {{\n{}}}\n", type, resource_label(spec),
                     body.render("  "));
}

std::string id_list(const std::vector<std::string>& ids) {
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i > 0 ? ", " : "") + ids[i];
  return out + "]";
}

[[noreturn]] void refuse(const std::string& what) { throw Error("--format terraform: " + what); }

// The SR-IOV VF as a network_interface block (provider 2.6.0).
std::vector<std::string> nic_lines(const DeviceChange& dc, std::size_t n) {
  Body nic;
  nic.comment(
      fmt::format("SR-IOV VF {}: after the resource's other network_interface blocks, "
                  "as the provider requires",
                  n));
  nic.attribute("adapter_type", "\"sriov\"");
  nic.attribute("physical_function", hcl_string(dc.physical_function->id, "physical_function"));
  std::string network;
  if (dc.backing_type == BackingType::dvport && !dc.portgroup_key.empty()) {
    network = hcl_string(dc.portgroup_key, "network_id");
  } else {
    network = hcl_string(
        fmt::format("<fill in: the id of the port group {}, data.vsphere_network.NAME.id>",
                    dc.network_name.empty() ? std::string("of the VF")
                                            : vsphere::quote_for_message(dc.network_name)),
        "network_id");
  }
  nic.attribute("network_id", network);
  std::vector<std::string> lines{"network_interface {"};
  const std::string text = nic.render("  ");
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  lines.emplace_back("}");
  return lines;
}

struct Devices {
  std::vector<std::string> pci_ids;       // quoted HCL strings
  std::vector<const DeviceChange*> nics;  // SR-IOV VFs
  std::vector<std::string> vgpus;         // quoted profiles
};

Devices sort_devices(const ConfigSpec& spec) {
  if (!spec.device_groups.empty()) {
    refuse(
        "the provider has no argument for vSphere device groups; use --format configspec-xml, "
        "vi-json or powercli");
  }
  Devices d;
  for (const DeviceChange& dc : spec.device_change) {
    if (dc.dvx) refuse("the provider has no argument for DVX devices");
    if (dc.type == DeviceType::sriov_ethernet && dc.physical_function) {
      d.nics.push_back(&dc);
    } else if (dc.backing_type == BackingType::device) {
      d.pci_ids.push_back(hcl_string(dc.device.id, "pci_device_id"));
    } else if (dc.backing_type == BackingType::vmiop) {
      d.vgpus.push_back(hcl_string(dc.vgpu, "vgpu_devices"));
    } else if (dc.backing_type == BackingType::dynamic) {
      refuse(
          "the provider has no argument for Dynamic DirectPath devices (provider issue "
          "#2352); use --format vmclass for a VM class, or pass the device by host address");
    }
  }
  if (!d.vgpus.empty() && (!d.pci_ids.empty() || !d.nics.empty())) {
    refuse(
        "the provider's vsphere_virtual_machine has no vGPU argument, and its "
        "vsphere_virtual_machine_class carries no DirectPath device or SR-IOV adapter; "
        "use --format vmclass, or add the vGPU with --format govc or powercli after apply");
  }
  return d;
}

std::string write_vm(const ConfigSpec& spec, const Devices& d, std::string header) {
  Body b;
  if (spec.name) b.attribute("name", hcl_string(*spec.name, "name"));
  if (spec.guest_id) b.attribute("guest_id", hcl_string(*spec.guest_id, "guest_id"));
  if (!d.pci_ids.empty() || !d.nics.empty()) {
    b.attribute("host_system_id", hcl_string("<fill in: the id of the host that holds the devices, "
                                             "data.vsphere_host.NAME.id>",
                                             "host_system_id"));
  }
  if (spec.num_cpus) b.attribute("num_cpus", std::to_string(*spec.num_cpus));
  if (spec.num_cores_per_socket) {
    b.attribute("num_cores_per_socket", std::to_string(*spec.num_cores_per_socket));
  }
  const bool locked = spec.memory_reservation_locked_to_max.value_or(false);
  std::optional<std::int64_t> reservation = spec.memory_reservation_mb;
  // A locked reservation is all of the memory; the provider locks only when they are equal.
  if (locked && spec.memory_mb && !reservation) reservation = spec.memory_mb;
  if (spec.memory_mb) b.attribute("memory", std::to_string(*spec.memory_mb));
  if (reservation) b.attribute("memory_reservation", std::to_string(*reservation));
  if (spec.memory_reservation_locked_to_max) {
    b.attribute("memory_reservation_locked_to_max", locked ? "true" : "false");
  }
  if (spec.memory_limit_mb) b.attribute("memory_limit", std::to_string(*spec.memory_limit_mb));
  if (spec.firmware) b.attribute("firmware", hcl_string(*spec.firmware, "firmware"));
  if (spec.nested_hv_enabled) {
    b.attribute("nested_hv_enabled", *spec.nested_hv_enabled ? "true" : "false");
  }
  if (!d.pci_ids.empty()) b.attribute("pci_device_id", id_list(d.pci_ids));
  if (!spec.extra_config.empty()) b.lines(extra_config_lines(spec));
  for (std::size_t i = 0; i < d.nics.size(); ++i) b.lines(nic_lines(*d.nics[i], i));
  header += comment_line(
      "vmxkit: the arguments to merge into your vsphere_virtual_machine resource "
      "(vmware/terraform-provider-vsphere 2.7.0 or later; extra_config takes effect at the "
      "next power cycle)",
      "");
  return header + block("vsphere_virtual_machine", spec, b);
}

// A vGPU plan as a VM Service class: VM Operator adds 64-bit MMIO (512 GB) to its VMs, and
// the class resource has no extraConfig, firmware or cores per socket.
std::string write_class(const ConfigSpec& spec, const Devices& d, std::string header) {
  std::vector<std::string> p2p;
  for (const vsphere::OptionValue& o : spec.extra_config) {
    const bool mmio_on = iequals(o.key, "pciPassthru.use64bitMMIO") && iequals(o.value, "TRUE");
    const auto gb =
        iequals(o.key, "pciPassthru.64bitMMIOSizeGB") ? parse_int(o.value) : std::nullopt;
    if (mmio_on || (gb && *gb > 0 && *gb <= kVmOperatorMmioGb)) continue;
    // vGPUs get no P2P over PCIe (NVIDIA; rule P2P004), and the class has no other device.
    if (iequals(o.key, "pciPassthru.allowP2P") || iequals(o.key, "pciPassthru.RelaxACSforP2P")) {
      p2p.push_back(o.key);
      continue;
    }
    refuse(
        fmt::format("a vGPU plan is written as a vsphere_virtual_machine_class (the VM "
                    "resource has no vGPU argument), which carries no extraConfig: {} = {} "
                    "would be lost (VM Operator gives 64-bit MMIO of 512 GB, no more); use "
                    "--format vmclass",
                    o.key, vsphere::quote_for_message(o.value)));
  }
  if (!p2p.empty()) {
    header += comment_line(fmt::format("vmxkit: {} not written: a class carries no extraConfig, "
                                       "and vGPUs get no peer-to-peer over PCIe",
                                       fmt::join(p2p, " and ")),
                           "");
  }
  Body b;
  b.attribute("name", hcl_string(spec.name.value_or("vmxkit-gpu"), "name"));
  if (spec.num_cpus) b.attribute("cpus", std::to_string(*spec.num_cpus));
  if (spec.memory_mb) b.attribute("memory", std::to_string(*spec.memory_mb));
  const bool full = spec.memory_reservation_locked_to_max.value_or(false) ||
                    (spec.memory_mb && spec.memory_reservation_mb &&
                     *spec.memory_reservation_mb >= *spec.memory_mb);
  if (full) {
    b.attribute("memory_reservation", "100");
  } else if (spec.memory_mb && *spec.memory_mb > 0 && spec.memory_reservation_mb) {
    b.attribute("memory_reservation",
                std::to_string(*spec.memory_reservation_mb * 100 / *spec.memory_mb));
  }
  b.attribute("vgpu_devices", id_list(d.vgpus));
  header += comment_line(
      "vmxkit: the provider's vsphere_virtual_machine has no vGPU argument (pull request #2113 "
      "closed unmerged): this is a VM Service class (vsphere_virtual_machine_class, provider "
      "2.8.0) for vSphere with Kubernetes; memory_reservation is a percentage",
      "");
  if (!spec.num_cpus) header += comment_line("vmxkit: cpus is required: add the vCPU count", "");
  if (spec.num_cores_per_socket) {
    header += comment_line(fmt::format("vmxkit: {} cores per socket are not carried by a class",
                                       *spec.num_cores_per_socket),
                           "");
  }
  if (spec.firmware) {
    header += comment_line(
        fmt::format("vmxkit: firmware = {} is not carried by a class: VM Operator takes the "
                    "VM's firmware from its spec.bootOptions, else from its image",
                    vsphere::quote_for_message(*spec.firmware)),
        "");
  }
  header += comment_line(
      "vmxkit: VM Operator adds pciPassthru.use64bitMMIO = TRUE and "
      "pciPassthru.64bitMMIOSizeGB = 512 to a VM of a class with PCI devices",
      "");
  return header + block("vsphere_virtual_machine_class", spec, b);
}

}  // namespace

std::string write_terraform(const VmConfig& config, const std::vector<std::string>& comments) {
  const ConfigSpec spec = vsphere::from_vm_config(config);
  const Devices d = sort_devices(spec);
  std::string header;
  for (const std::string& c : comments) header += comment_line(c, "");
  for (const std::string& key : spec.not_sent) {
    header += comment_line(fmt::format("vmxkit: {} is not written: vSphere sets it", key), "");
  }
  return d.vgpus.empty() ? write_vm(spec, d, std::move(header))
                         : write_class(spec, d, std::move(header));
}

}  // namespace vmxkit::terraform

namespace vmxkit::terraform {

std::string output_terraform(const formats::WriteRequest& request) {
  return write_terraform(request.config, request.comments);
}

}  // namespace vmxkit::terraform
