// SPDX-License-Identifier: Apache-2.0
// The facade's plan reports (vmxkit/vmxkit.h): render_plan_json() over report/plan_json.h, and
// vendor_device_groups(), the vendor device groups of a host's QueryConfigTarget answer
// (formats/vsphere/config_target.h) as the plan's device_group names them.
#include <sstream>
#include <string>
#include <utility>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/config_target.h"
#include "vmxkit/report/json.h"
#include "vmxkit/report/plan_json.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

std::string render_plan_json(const Plan& plan, const PlanJsonOptions& options) {
  std::ostringstream out;
  report::write_json_document(
      out,
      report::plan_json(plan, report::PlanOutput{options.format, options.path}, options.warnings));
  return std::move(out).str();
}

std::vector<VendorDeviceGroup> vendor_device_groups(std::string_view config_target,
                                                    const std::string& name) {
  std::vector<VendorDeviceGroup> out;
  for (vsphere::VendorDeviceGroup& g :
       vsphere::read_vendor_device_groups(SourceFile(name, std::string(config_target)))) {
    VendorDeviceGroup group;
    group.pairs_vgpu_with_nic = g.pairs_vgpu_with_nic();
    group.name = std::move(g.device_group_name);
    group.description = std::move(g.description);
    for (vsphere::DeviceGroupComponent& c : g.components) {
      group.components.push_back(VendorDeviceGroupComponent{
          std::move(c.type), std::move(c.vendor_name), std::move(c.device_name)});
    }
    out.push_back(std::move(group));
  }
  return out;
}

}  // namespace vmxkit
