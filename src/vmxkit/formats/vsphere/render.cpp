// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/render.h"

#include <string>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/vi_json.h"

namespace vmxkit::vsphere {
namespace {

std::string with_firmware_comment(std::string xml) {
  const std::size_t at = xml.find("<firmware>");
  if (at == std::string::npos) return xml;
  const std::size_t line = xml.rfind('\n', at) + 1;
  const std::string indent = xml.substr(line, at - line);
  xml.insert(line, indent +
                       "<!-- vmxkit: on an existing VM, switching an installed guest from BIOS to "
                       "EFI makes it unbootable: its disk has no EFI system partition (rule "
                       "MMIO005). Send this to a VM with no guest installed yet, or convert the "
                       "guest's disk to GPT with an EFI system partition first. -->\n");
  return xml;
}

}  // namespace

ConfigSpec output_spec(const VmConfig& config, const RenderOptions& options) {
  ConfigSpec spec = from_vm_config(config);
  for (DeviceChange& dc : spec.device_change) {
    if (dc.type != DeviceType::sriov_ethernet || !dc.physical_function) continue;
    DeviceBacking& b = *dc.physical_function;
    const auto address = parse_bdf(b.id);
    if (!address) continue;
    for (const PhysicalFunction& pf : options.physical_functions) {
      if (pf.address != *address) continue;
      // As vhpc-toolkit's add_sriov_adapter: the PF's deviceId in hex, its vendorId as the
      // xsd:short HostPciDevice holds, and the systemId of QueryConfigTarget().sriov.
      b.device_id = format_api_hex_id(pf.device_id);
      b.vendor_id = to_signed_short(pf.vendor_id);
      if (!pf.system_id.empty()) b.system_id = pf.system_id;
      break;
    }
  }
  for (DeviceChange& dc : spec.device_change) {
    if (!dc.group) continue;
    for (const GroupTemplate& t : options.group_templates) {
      if (t.group_instance_key != dc.group->group_instance_key ||
          t.sequence_id != dc.group->sequence_id) {
        continue;
      }
      DeviceChange device = t.device;
      device.operation = "add";
      device.key = dc.key;
      device.group = dc.group;
      if (device.type == DeviceType::sriov_ethernet && device.backing_type == BackingType::none) {
        device.backing_type = dc.backing_type;
        device.network_name = dc.network_name;
        device.switch_uuid = dc.switch_uuid;
        device.portgroup_key = dc.portgroup_key;
      }
      dc = std::move(device);
      break;
    }
  }
  return spec;
}

std::string render(const VmConfig& config, std::string_view format, const RenderOptions& options) {
  const std::vector<std::string> no_comments;
  return formats::output_format(format).write({config, no_comments, options});
}

std::string output_vmx(const formats::WriteRequest& r) { return render_vmx(r.config); }

std::string output_configspec_xml(const formats::WriteRequest& r) {
  return with_firmware_comment(write_configspec_xml(output_spec(r.config, r.options)));
}

std::string output_soap(const formats::WriteRequest& r) {
  if (r.options.vm.empty()) throw Error("the SOAP envelope needs the VM's moref (--vm vm-123)");
  return with_firmware_comment(write_soap_envelope(output_spec(r.config, r.options), r.options.vm));
}

std::string output_vi_json(const formats::WriteRequest& r) {
  return write_vi_json(output_spec(r.config, r.options));
}

std::string output_govc(const formats::WriteRequest& r) { return render_govc(r.config, r.options); }

std::string output_powercli(const formats::WriteRequest& r) {
  return render_powercli(r.config, r.options);
}

std::string device_label(const DeviceChange& dc, std::size_t i) {
  return "pciPassthru" + std::to_string(-dc.key - 100 >= 0 ? -dc.key - 100 : static_cast<int>(i));
}

}  // namespace vmxkit::vsphere
