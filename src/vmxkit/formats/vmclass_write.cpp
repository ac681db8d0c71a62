// SPDX-License-Identifier: Apache-2.0
// Writes a plan as a VM Operator VirtualMachineClass whose configSpec is the plan's ConfigSpec
// in VI/JSON (as YAML): VM Operator decodes it with govmomi's `_typeName` JSON decoder.
#include <fmt/format.h>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vmclass.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/json.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/vi_json.h"
#include "vmxkit/formats/yaml_json.h"

namespace vmxkit::vmclass {
namespace {

using vsphere::json::Value;

[[noreturn]] void refuse(const std::string& what) { throw Error("--format vmclass: " + what); }

const Setting* device_field(const VmConfig& config, const PassthroughDevice& d,
                            std::string_view field) {
  for (const std::size_t i : d.settings) {
    const auto k = split_passthrough_key(config.settings[i].key);
    if (k && iequals(k->field, field)) return &config.settings[i];
  }
  return nullptr;
}

// The plan with each DirectPath device named by its vendor and device id (Dynamic DirectPath,
// `allowedDevices`), the only way a class names a device of no particular host.
VmConfig with_class_devices(const VmConfig& config, std::vector<std::string>& notes) {
  VmConfig out = config;
  std::vector<bool> drop(config.settings.size(), false);
  for (const PassthroughDevice& d : config.passthrough_devices()) {
    if (!d.present || d.kind() != PassthroughKind::directpath) continue;
    const Setting* vendor = device_field(config, d, "vendorId");
    const Setting* device = device_field(config, d, "deviceId");
    const auto v = vendor != nullptr ? vsphere::parse_vmx_pci_id(vendor->value) : std::nullopt;
    const auto dev = device != nullptr ? vsphere::parse_vmx_pci_id(device->value) : std::nullopt;
    const std::uint16_t vendor_id = v.value_or(0);
    const std::uint16_t device_id = dev.value_or(0);
    if (vendor_id == 0 || !dev) {
      refuse(
          fmt::format("pciPassthru{} names host device {} without its vendor and device id: a "
                      "VM class names devices by vendor and device id (vmxkit generate "
                      "--host writes them)",
                      d.index, vsphere::quote_for_message(d.id.value_or(""))));
    }
    for (const std::size_t i : d.settings) {
      const auto k = split_passthrough_key(config.settings[i].key);
      for (const std::string_view f : {"id", "deviceId", "vendorId", "systemId"}) {
        if (k && iequals(k->field, f)) drop[i] = true;
      }
    }
    const std::string ids =
        vsphere::format_vmx_pci_id(vendor_id) + ":" + vsphere::format_vmx_pci_id(device_id);
    out.add(fmt::format("pciPassthru{}.allowedDevices", d.index), ids, {}, {});
    const std::string host = d.id && d.id->find("<fill in") == std::string::npos
                                 ? " (host device " + *d.id + ")"
                                 : std::string();
    notes.push_back(fmt::format(
        "vmxkit: pciPassthru{}{} is written as Dynamic DirectPath {}: a class names no host "
        "device, so vSphere picks one at power-on, and the plan's PCIe path verdicts hold only "
        "if it picks the same (placement by vSphere)",
        d.index, host, ids));
  }
  std::vector<Setting> kept;
  for (std::size_t i = 0; i < out.settings.size(); ++i) {
    if (i >= drop.size() || !drop[i]) kept.push_back(std::move(out.settings[i]));
  }
  out.settings = std::move(kept);
  return out;
}

void check_devices(const vsphere::ConfigSpec& spec) {
  if (!spec.device_groups.empty()) {
    refuse(
        "VM Operator reads no device groups from a class (vmxkit found no use of "
        "deviceGroups in vm-operator); use --format configspec-xml, vi-json or powercli");
  }
  for (const vsphere::DeviceChange& dc : spec.device_change) {
    if (dc.type == vsphere::DeviceType::sriov_ethernet) {
      refuse(
          "a VM class carries no SR-IOV network adapter: VM Operator gives a VM the networks "
          "of its spec.network; pass the NIC whole, or use another format");
    }
    if (dc.dvx) refuse("a VM class carries no DVX device");
  }
}

// metadata.name: a DNS-1123 subdomain (lowercase letters, digits, `-` and `.`).
std::string class_name(const WriteOptions& options, const vsphere::ConfigSpec& spec) {
  if (!options.name.empty()) return options.name;
  std::string name;
  for (const char c : spec.name.value_or("")) {
    const char l = ascii_lower(c);
    const bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '-' || l == '.';
    name.push_back(ok ? l : '-');
  }
  while (!name.empty() && (name.front() == '-' || name.front() == '.')) name.erase(0, 1);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  if (name.size() > 253) name.resize(253);
  return name.empty() ? "vmxkit-gpu" : name;
}

std::string comment(std::string_view text) {
  std::string clean;
  for (const char c : text) clean.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
  while (!clean.empty() && clean.back() == ' ') clean.pop_back();
  return clean.empty() ? "#\n" : "# " + clean + "\n";
}

Value class_document(const vsphere::ConfigSpec& spec, const WriteOptions& options) {
  Value doc = Value::object();
  doc.add("apiVersion", Value::string(std::string(kWriteApiVersion)));
  doc.add("kind", Value::string("VirtualMachineClass"));
  doc.add("metadata", Value::object()).add("name", Value::string(class_name(options, spec)));
  Value& s = doc.add("spec", Value::object());
  if (spec.num_cpus || spec.memory_mb) {
    Value& hw = s.add("hardware", Value::object());
    if (spec.num_cpus) hw.add("cpus", Value::number(std::to_string(*spec.num_cpus)));
    if (spec.memory_mb) hw.add("memory", Value::string(fmt::format("{}Mi", *spec.memory_mb)));
  }
  // VM Operator takes the reservation from policies.resources when it is set; a locked
  // reservation is all of the memory.
  std::optional<std::int64_t> reservation = spec.memory_reservation_mb;
  if (spec.memory_reservation_locked_to_max.value_or(false) && spec.memory_mb) {
    reservation = spec.memory_mb;
  }
  if (reservation) {
    s.add("policies", Value::object())
        .add("resources", Value::object())
        .add("requests", Value::object())
        .add("memory", Value::string(fmt::format("{}Mi", *reservation)));
  }
  const SourceFile json("configSpec", vsphere::write_vi_json(spec));
  s.add("configSpec", vsphere::json::parse(json));
  return doc;
}

}  // namespace

std::string write_vmclass(const VmConfig& config, const std::vector<std::string>& comments,
                          const WriteOptions& options) {
  std::vector<std::string> notes;
  const VmConfig class_config = with_class_devices(config, notes);
  const vsphere::ConfigSpec spec = vsphere::from_vm_config(class_config);
  check_devices(spec);
  for (const std::string& key : spec.not_sent) {
    notes.push_back(fmt::format("vmxkit: {} is not written: vSphere sets it", key));
  }
  if (!spec.num_cpus) {
    notes.emplace_back("vmxkit: the plan sets no vCPU count: add spec.hardware.cpus");
  }
  if (spec.firmware) {
    notes.push_back(fmt::format(
        "vmxkit: VM Operator gives a VM the firmware of its spec.bootOptions, else of its "
        "image, over the class's firmware = {}: use an image (or VM) with that firmware",
        vsphere::quote_for_message(*spec.firmware)));
  }
  std::string out;
  for (const std::string& c : comments) out += comment(c);
  for (const std::string& n : notes) out += comment(n);
  out += comment(fmt::format(
      "vmxkit: {} is served by VM Operator from vCenter 8.0 U3 on; with a configSpec, VM "
      "Operator takes the devices from configSpec.deviceChange only",
      kWriteApiVersion));
  return out + yaml::write(class_document(spec, options));
}

}  // namespace vmxkit::vmclass

namespace vmxkit::vmclass {

std::string output_vmclass(const formats::WriteRequest& request) {
  return write_vmclass(request.config, request.comments);
}

}  // namespace vmxkit::vmclass
