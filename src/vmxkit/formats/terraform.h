// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/form_note.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/model/vm_config.h"

namespace vmxkit::pci {
class Host;
}  // namespace vmxkit::pci
namespace vmxkit::vsphere {
struct Loaded;
}  // namespace vmxkit::vsphere

/// Terraform's vSphere provider (vmware/terraform-provider-vsphere): the VMs of a
/// `terraform show -json` document (plan or state) as VmConfig, and a plan written as HCL
/// arguments of a `vsphere_virtual_machine` (or a `vsphere_virtual_machine_class` for vGPUs).
/// Argument names, versions and sources: docs/terraform-and-vmclass.md.
namespace vmxkit::terraform {

enum class ResourceType {
  virtual_machine,        ///< `vsphere_virtual_machine`
  virtual_machine_class,  ///< `vsphere_virtual_machine_class` (a VM Service class, provider 2.8.0)
};

/// "vsphere_virtual_machine", "vsphere_virtual_machine_class".
std::string_view to_string(ResourceType type);

using vmxkit::UnknownValue;

/// One `vsphere_virtual_machine` or `vsphere_virtual_machine_class` of the document.
struct TerraformVm {
  /// The resource address, module path and index included:
  /// `module.trainer.vsphere_virtual_machine.gpu[0]`.
  std::string address;
  ResourceType type = ResourceType::virtual_machine;
  std::string provider;              ///< `registry.terraform.io/vmware/vsphere`
  std::vector<std::string> actions;  ///< plan: the change's actions (`create`); state: empty
  /// The VM as the provider would configure it: `.vmx` keys as the other vSphere forms give them
  /// (`memsize`, `sched.mem.min`, `pciPassthruN.*`, the extraConfig keys...), with spans at the
  /// attribute values. A `pci_device_id` is a host address only: `pciPassthruN.id` without
  /// `deviceId`, and `vendorId` only where a `data.vsphere_host_pci_device` of the same host
  /// and id says it.
  VmConfig config;
  SourceSpan whole;  ///< the resource change (plan) or resource (state) object
  std::vector<UnknownValue> unknown;
  /// The `.vmx` keys whose values Terraform marks sensitive (`after_sensitive`,
  /// `sensitive_values`): the values are in the document, and a report must not repeat them.
  std::vector<std::string> sensitive;
  std::vector<FormNote> notes;
};

enum class DocumentKind { plan, state };

struct TerraformJson {
  DocumentKind kind = DocumentKind::plan;
  std::string format_version;     ///< `1.2`
  std::string terraform_version;  ///< `1.9.8`
  /// In document order. A plan gives the resources of `resource_changes` whose change leaves
  /// an object (`after`): created, updated, replaced and unchanged ones, not deleted or deposed
  /// ones; a plan without `resource_changes` gives those of `planned_values`. A state gives
  /// those of `values`. Child modules are included. Empty when there are none.
  std::vector<TerraformVm> vms;
};

/// Reads `terraform show -json` output: a plan (`terraform show -json PLANFILE`) or a state
/// (`terraform show -json`), of any `format_version` of major version 0 or 1 (Terraform 0.12
/// to 1.x). Throws vmxkit::Error with file:line:col for malformed JSON (a document over
/// 16 MiB too), a document that is not Terraform's (no `format_version`), a major version
/// other than 0 or 1, and values of the wrong type in the parts vmxkit reads.
TerraformJson read_terraform_json(const SourceFile& source);

/// Gives each DirectPath device of `vm` (a `pci_device_id`, a host address and nothing more)
/// the vendor and device id of the host device at that address, as the provider takes the
/// vendor id from the host (`HostPciDevice.vendorId`) and vSphere knows the device: for
/// `lint --host`, whose checks tell a GPU from a NIC by its ids. The settings are placed at the
/// `pci_device_id` element; each device gets a note naming the host device. A device the host
/// does not have is left as it is (the checks report it: TOPO001), and so is a vendor id a data
/// source gave that differs from the host's.
void add_host_ids(TerraformVm& vm, const pci::Host& host);
/// The same for a VM of the format table's reader (vsphere::LoadedVm): its config and notes.
void add_host_ids(VmConfig& config, std::vector<FormNote>& notes, const pci::Host& host);

/// Whether `bytes` look like `terraform show -json` output: a JSON object whose top-level
/// members include `format_version` and one of `terraform_version`, `planned_values`,
/// `resource_changes` or `values`. Reads no further than the top-level member names.
bool looks_like_terraform_json(std::string_view bytes);

/// Writes `config` as HCL: `comments` first, as `#` lines, then one resource block holding the
/// arguments to merge into the user's resource.
/// - Without vGPUs, a `vsphere_virtual_machine`: `pci_device_id` (hex host addresses) with
///   `host_system_id` (a placeholder to fill in), `extra_config` (quoted keys, string values),
///   `memory`, `memory_reservation`, `memory_reservation_locked_to_max`, `firmware`,
///   `num_cpus`, `num_cores_per_socket`, `name`, `guest_id`, `nested_hv_enabled` and
///   `memory_limit` where the plan sets them, and each SR-IOV VF as a `network_interface` block
///   (`adapter_type = "sriov"`, `physical_function`, `network_id`).
/// - With vGPUs only, a `vsphere_virtual_machine_class` (`vgpu_devices`, `cpus`, `memory`,
///   `memory_reservation` in percent): the provider's VM resource has no vGPU argument in any
///   release. VM Operator adds 64-bit MMIO of 512 GB to a VM of a class with devices, and the
///   class resource carries no extraConfig, so a plan that needs more, or other extraConfig
///   keys, is refused.
/// Throws vmxkit::Error for what the provider cannot express: Dynamic DirectPath devices, DVX
/// devices, device groups, a vGPU with a DirectPath or SR-IOV device, and for a device
/// address or value it cannot convert (a placeholder host address among them).
std::string write_terraform(const VmConfig& config, const std::vector<std::string>& comments);

/// The format table's reader and writer (formats/formats.h): each VM of the document as one VM
/// of the input, named by its resource address, with the form's notes; the writer above.
void read_terraform_input(vsphere::Loaded& into);
std::string output_terraform(const formats::WriteRequest& request);

}  // namespace vmxkit::terraform
