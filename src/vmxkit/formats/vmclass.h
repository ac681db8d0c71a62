// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/form_note.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/model/vm_config.h"

/// VM Operator's `VirtualMachineClass` (vmware-tanzu/vm-operator, API group
/// vmoperator.vmware.com, on vSphere with Kubernetes / VCF): the classes of a YAML (or JSON)
/// document as VmConfig, and a plan written as a class. Field names, versions and sources:
/// docs/terraform-and-vmclass.md.
namespace vmxkit::vsphere {
struct Loaded;
}  // namespace vmxkit::vsphere

namespace vmxkit::vmclass {

/// One VirtualMachineClass: a document of the file, or an item of a `kind: List` document
/// (what `kubectl get vmclass -o yaml` prints).
struct VmClass {
  std::string name;            ///< metadata.name
  std::string namespace_name;  ///< metadata.namespace (empty when not given)
  std::string api_version;     ///< `vmoperator.vmware.com/v1alpha5`
  /// The VM a class gives, as VM Operator builds its ConfigSpec: `spec.configSpec` read as
  /// vSphere VI/JSON, then `hardware.cpus` and `hardware.memory` over its CPUs and memory, and
  /// `policies.resources` over its memory reservation and limit; the devices of
  /// `hardware.devices` only when there is no configSpec. Devices are named by vendor and device
  /// id (Dynamic DirectPath, `pciPassthruN.allowedDevices`) or by vGPU profile: vSphere picks
  /// the host device at power-on. Spans point at the YAML values.
  VmConfig config;
  SourceSpan whole;  ///< the document or List item
  std::vector<FormNote> notes;
};

/// Reads every VirtualMachineClass of a YAML file: one or many documents (`---`), each a class
/// or a `kind: List` of them; documents of other kinds are skipped. apiVersion
/// vmoperator.vmware.com/v1alpha1 to v1alpha6 (one VirtualMachineClassSpec in all). Plain
/// scalars are typed as kubectl's YAML-to-JSON conversion types them (go-yaml v2, YAML 1.1:
/// `yes`, `on` and `TRUE` are booleans, `0x10de` an integer). Throws vmxkit::Error with
/// file:line:col for malformed YAML, a key given twice, a field the class does not have (as
/// the API server's strict field validation does), values of the wrong type, an apiVersion of
/// another group or version, a configSpec that vmxkit's VI/JSON reader refuses, and a file with
/// no VirtualMachineClass.
std::vector<VmClass> read_vmclass_yaml(const SourceFile& source);

/// Whether `bytes` look like a VirtualMachineClass document: a `kind: VirtualMachineClass`
/// (or `"kind": "VirtualMachineClass"`) and a `vmoperator.vmware.com/` apiVersion in the first
/// 64 KiB.
bool looks_like_vmclass_yaml(std::string_view bytes);

struct WriteOptions {
  /// metadata.name; empty: the plan's displayName made a DNS-1123 name, else `vmxkit-gpu`.
  std::string name;
};

/// The apiVersion write_vmclass() writes: served by every VM Operator release from vCenter
/// 8.0 U3 (release/vc-8.0.3) to the newest, with the same fields as the later versions.
inline constexpr std::string_view kWriteApiVersion = "vmoperator.vmware.com/v1alpha2";

/// Writes `config` as a VirtualMachineClass YAML document: `comments` first, as `#` lines, then
/// vmxkit's own notes on what the class form changes, then the class. `spec.hardware` holds
/// the CPUs and memory, `spec.policies.resources.requests.memory` the reservation, and
/// `spec.configSpec` (VI/JSON as YAML) the CPUs, memory, devices, memory reservation and its
/// lock, firmware and extraConfig: with a configSpec VM Operator takes the devices from it
/// alone. A DirectPath device is written as Dynamic DirectPath by its vendor and device id: a
/// class names no host device. Throws vmxkit::Error for what a class cannot carry: a DirectPath
/// device without vendor and device id, SR-IOV network adapters (a VM's networks come from the
/// VM's spec.network), DVX devices and device groups; and for values that cannot be converted.
std::string write_vmclass(const VmConfig& config, const std::vector<std::string>& comments,
                          const WriteOptions& options = {});

/// What VM Operator adds to the ConfigSpec of a VM whose class adds a PCI passthrough device
/// (vGPU, Dynamic DirectPath, DirectPath), when the class does not set them itself (the class's
/// keys win): `pciPassthru.use64bitMMIO = "TRUE"` and `pciPassthru.64bitMMIOSizeGB = "512"`
/// (vm-operator `PCIPassthruMMIOSizeDefault`, release/vc-8.0.2.0 to main; the VM's annotation
/// `vmoperator.vmware.com/pci-passthru-64bit-mmio-size` changes the size, `0` turns it off).
/// Adds the missing ones to `config`, placed at the first device, and a note for each.
void add_vm_operator_defaults(VmConfig& config, std::vector<FormNote>& notes);

/// The format table's reader and writer (formats/formats.h): each VirtualMachineClass of the
/// document as one VM of the input, named `namespace/name`, with what VM Operator adds and the
/// form's notes; the writer above with its default options.
void read_vmclass_input(vsphere::Loaded& into);
std::string output_vmclass(const formats::WriteRequest& request);

}  // namespace vmxkit::vmclass
