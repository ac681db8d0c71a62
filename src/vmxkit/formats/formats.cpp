// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/formats.h"

#include <fmt/format.h>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/core/text.h"
#include "vmxkit/core/wide_encoding.h"
#include "vmxkit/formats/terraform.h"
#include "vmxkit/formats/vmclass.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::formats {
namespace {

// What each form carries, from its writer's and reader's documentation (docs/vsphere-outputs.md,
// docs/terraform-and-vmclass.md).
constexpr Carries kVmx{
    .host_address = true, .dynamic_directpath = true, .vgpu = true, .sriov = true, .dvx = true};
constexpr Carries kConfigSpec{.host_address = true,
                              .dynamic_directpath = true,
                              .vgpu = true,
                              .sriov = true,
                              .device_groups = true,
                              .dvx = true};
constexpr Carries kGovc{.host_address = true, .vgpu = true};
constexpr Carries kTerraform{.host_address = true, .vgpu = true, .sriov = true};
constexpr Carries kVmClass{.dynamic_directpath = true, .vgpu = true};

bool recognise_terraform(std::string_view bytes, std::size_t start) {
  return terraform::looks_like_terraform_json(bytes.substr(start));
}

bool recognise_vmclass(std::string_view bytes, std::size_t start) {
  return vmclass::looks_like_vmclass_yaml(bytes.substr(start));
}

// A host or guest capture: an input of its subject's loader, which tells them apart itself.
Format capture(std::string_view name, Subject subject, std::string_view summary) {
  Format f;
  f.name = name;
  f.subject = subject;
  f.summary = summary;
  f.input = true;
  return f;
}

// VM inputs in the order they are recognised: the narrow JSON forms before VI/JSON, the
// Envelopes before other XML, the YAML before the `.vmx` it would otherwise read as.
std::vector<Format> make_table() {
  using S = Subject;
  return {
      {"govc-json", S::vm, "govc's `vm.info -json` or `object.collect -json` output", true, false,
       vsphere::recognise_govc_json, vsphere::read_govc_input, nullptr, kConfigSpec},
      {"terraform-json", S::vm,
       "`terraform show -json` of a plan or state: each vsphere_virtual_machine and "
       "vsphere_virtual_machine_class",
       true, false, recognise_terraform, terraform::read_terraform_input, nullptr, kTerraform},
      {"vi-json", S::vm, "vSphere VI/JSON: a ConfigSpec, a ReconfigVM_Task body or a ConfigInfo",
       true, true, vsphere::recognise_vi_json, vsphere::read_vi_json_input, vsphere::output_vi_json,
       kConfigSpec},
      {"ovf", S::vm, "an OVF descriptor", true, false, vsphere::recognise_ovf,
       vsphere::read_ovf_input, nullptr, kConfigSpec},
      {"soap", S::vm,
       "SOAP: a ReconfigVM_Task request (written with --vm MOREF), a RetrievePropertiesEx, "
       "RetrieveProperties or Fetch response",
       true, true, vsphere::recognise_soap, vsphere::read_vim25_input, vsphere::output_soap,
       kConfigSpec},
      {"configspec-xml", S::vm, "a vim25 VirtualMachineConfigSpec or VirtualMachineConfigInfo",
       true, true, vsphere::recognise_xml, vsphere::read_vim25_input,
       vsphere::output_configspec_xml, kConfigSpec},
      {"vmclass", S::vm, "a VM Operator VirtualMachineClass (YAML; one or many documents)", true,
       true, recognise_vmclass, vmclass::read_vmclass_input, vmclass::output_vmclass, kVmClass},
      {"vmx", S::vm, "a `.vmx` file", true, true, nullptr, vsphere::read_vmx_input,
       vsphere::output_vmx, kVmx},
      {"govc", S::vm, "a POSIX shell script of govc commands that checks before it changes", false,
       true, nullptr, nullptr, vsphere::output_govc, kGovc},
      {"powercli", S::vm, "a PowerShell script for VMware PowerCLI", false, true, nullptr, nullptr,
       vsphere::output_powercli, kConfigSpec},
      {"terraform", S::vm,
       "HCL arguments of Terraform's vsphere_virtual_machine (vsphere_virtual_machine_class for "
       "vGPUs)",
       false, true, nullptr, nullptr, terraform::output_terraform, kTerraform},
      // Host captures (HOST arguments), told apart by pci::detect_format.
      capture("lspci-vvv", S::host, "`lspci -vvv` (with or without -nn, -D)"),
      capture("lspci-tv", S::host, "`lspci -tv`"),
      capture("esxcli-pci", S::host, "`esxcli hardware pci list`"),
      capture("esxcli-passthru", S::host, "`esxcli hardware pci pcipassthru list`"),
      capture("esxcli-memory", S::host, "`esxcli hardware memory get`"),
      capture("numactl", S::host, "`numactl --hardware`"),
      capture("vsphere-properties", S::host,
              "a HostSystem's vSphere API properties (RetrievePropertiesEx)"),
      capture("sysfs", S::host, "a directory laid out like /sys/bus/pci/devices, or `live`"),
      capture("nvidia-smi-topo", S::host,
              "`nvidia-smi topo -m`: path classes, NVLink, affinity (docs/host-inputs.md)"),
      capture("dmesg", S::host,
              "the kernel log (`dmesg`, `journalctl -k`): ids, BAR sizes, BARs without space"),
      // Guest captures (GUEST arguments), told apart by guest::detect.
      capture("guest-capture", S::guest,
              "command outputs from inside the VM: lspci, nvidia-smi, lsmod, ibv_devinfo, NCCL's "
              "log and topology dump... "
              "(docs/guest-check.md)"),
  };
}

}  // namespace

std::string_view to_string(Subject subject) {
  switch (subject) {
    case Subject::vm:
      return "vm";
    case Subject::host:
      return "host";
    case Subject::guest:
      return "guest";
  }
  return "vm";
}

const std::vector<Format>& all() {
  static const std::vector<Format> kTable = make_table();
  return kTable;
}

const Format* find(std::string_view name) {
  for (const Format& f : all()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const Format& recognise_vm_input(std::string_view bytes) {
  // How much of wide text is looked at: UTF-16 and UTF-32 text is told by its ASCII characters,
  // and the reader then refuses it.
  constexpr std::size_t kNarrowedUnits = 4096;
  const WideEncoding wide = detect_wide_encoding(bytes);
  const std::string narrowed =
      wide == WideEncoding::none ? std::string() : narrow_ascii(bytes, wide, kNarrowedUnits);
  const std::string_view b = wide == WideEncoding::none ? bytes : std::string_view(narrowed);
  const std::size_t start = vsphere::content_start(b);
  const Format* fallback = nullptr;
  for (const Format& f : all()) {
    if (f.subject != Subject::vm || f.read == nullptr) continue;
    if (f.recognise == nullptr) {
      fallback = &f;
    } else if (start < b.size() && f.recognise(b, start)) {
      return f;
    }
  }
  return *fallback;
}

std::vector<const Format*> inputs(Subject subject) {
  std::vector<const Format*> out;
  for (const Format& f : all()) {
    if (f.subject == subject && f.input) out.push_back(&f);
  }
  return out;
}

std::vector<const Format*> outputs() {
  std::vector<const Format*> out;
  for (const Format& f : all()) {
    if (f.output) out.push_back(&f);
  }
  return out;
}

const Format& output_format(std::string_view name) {
  const Format* f = find(name);
  if (f == nullptr || !f->output) {
    throw Error(
        fmt::format("'{}' is not an output format; the outputs are: {}", name, names(outputs())));
  }
  return *f;
}

std::string names(const std::vector<const Format*>& formats) {
  std::string out;
  for (const Format* f : formats) out += (out.empty() ? "" : ", ") + std::string(f->name);
  return out;
}

void throw_located(const vsphere::UncarriedText& refused, const VmConfig& config,
                   const std::string& path, std::string_view bytes, const LineIndex& index) {
  for (const Setting& s : config.settings) {
    for (const auto& [text, span] : {std::pair{&s.key, s.key_span}, {&s.value, s.value_span}}) {
      if (*text != refused.text() || span.end > bytes.size() || span.begin > span.end) continue;
      const std::string_view raw = bytes.substr(span.begin, span.end - span.begin);
      const std::size_t bad = find_invalid_utf8(raw);
      const Location at = index.location(span.begin + (bad == std::string_view::npos ? 0 : bad));
      throw Error(path, at.line, at.column, refused.what());
    }
  }
  throw refused;
}

}  // namespace vmxkit::formats
