// SPDX-License-Identifier: Apache-2.0
// A host's vendor device group (vSphere API 8.0.0.1, ConfigTarget.vendorDeviceGroupInfo) applied
// to a plan: its vGPUs and NICs become instances of the group, which vCenter places as a unit.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "vmxkit/analysis/plan.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/text_checks.h"

namespace vmxkit::generate {
namespace {

using vsphere::BackingType;
using vsphere::DeviceChange;
using vsphere::DeviceGroupComponent;
using vsphere::DeviceType;
using vsphere::quote_for_message;

std::string describe(const DeviceGroupComponent& c) {
  return fmt::format("{} {} {}", c.type, c.vendor_name, c.device_name);
}

// The template is an SR-IOV network adapter: as read, else by its type name, else by the
// component's type (a `sriovNic` with no template is one).
bool template_is_sriov(const DeviceGroupComponent& c) {
  if (c.device) return c.device->type == DeviceType::sriov_ethernet;
  if (!c.device_type.empty()) return c.device_type == "VirtualSriovEthernetCard";
  return c.type == "sriovNic";
}

// The template says how the device is backed, so the ConfigSpec writes it as the template.
bool template_fixes_backing(const DeviceChange& d) {
  return d.dvx || d.physical_function || d.backing_type == BackingType::device ||
         d.backing_type == BackingType::dynamic;
}

// A component's deviceName ("GH100 [H100 PCIe]", as HostPciDevice names it) is the catalogue
// model: one of its pci.ids names, or a name holding the model's.
bool names_model(std::string_view device_name, const pci::CatalogEntry& model) {
  std::string_view names = model.lspci_name;
  while (!names.empty()) {
    const std::size_t bar = names.find(" | ");
    if (iequals(names.substr(0, bar), device_name)) return true;
    names = bar == std::string_view::npos ? std::string_view() : names.substr(bar + 3);
  }
  return !model.model.empty() && icontains(device_name, model.model);
}

[[noreturn]] void refuse(const std::string& group, const std::string& why) {
  throw Error(fmt::format("--device-group {}: {}", group, why));
}

// The group's components, vGPUs and NICs apart; anything else is refused.
struct Components {
  std::vector<const DeviceGroupComponent*> vgpus;
  std::vector<const DeviceGroupComponent*> nics;
};

Components split_components(const std::string& name, const vsphere::VendorDeviceGroup& group) {
  Components out;
  for (const DeviceGroupComponent& c : group.components) {
    if (c.is_vgpu()) {
      out.vgpus.push_back(&c);
    } else if (c.is_nic()) {
      out.nics.push_back(&c);
    } else {
      refuse(name,
             fmt::format("holds {}: vmxkit writes groups of vGPUs and NICs only", describe(c)));
    }
  }
  if (out.vgpus.empty() || out.nics.empty()) {
    refuse(name, fmt::format("pairs no vGPU with a NIC ({} component{}); vmxkit writes groups "
                             "for GPUDirect RDMA from a vGPU",
                             group.components.size(), group.components.size() == 1 ? "" : "s"));
  }
  std::set<std::int32_t> sequence_ids;
  for (const DeviceGroupComponent& c : group.components) {
    if (!c.sequence_id) {
      refuse(name, fmt::format("the host's template of {} has no deviceGroupInfo.sequenceId, "
                               "which each member of the group takes from it",
                               describe(c)));
    }
    if (!sequence_ids.insert(*c.sequence_id).second) {
      refuse(name, fmt::format("two components have sequenceId {}", *c.sequence_id));
    }
  }
  return out;
}

// How many instances of the group the plan's GPUs and NICs make; refused unless whole ones.
std::size_t instance_count(const std::string& name, const Plan& plan, const Components& c) {
  if (!plan.vgpu) refuse(name, "the group's GPU is a vGPU: generate with --vgpu PROFILE");
  const std::size_t per_gpus = c.vgpus.size();
  const std::size_t per_nics = c.nics.size();
  if (plan.gpus.size() % per_gpus != 0) {
    refuse(name, fmt::format("an instance holds {} vGPUs; the plan's {} make no whole instances",
                             per_gpus, plan.gpus.size()));
  }
  const std::size_t count = plan.gpus.size() / per_gpus;
  if (plan.nics.size() != count * per_nics) {
    refuse(name,
           fmt::format("an instance holds {} vGPU{} and {} NIC{}: the plan's {} vGPU{} need {} "
                       "NIC{}, it has {}",
                       per_gpus, per_gpus == 1 ? "" : "s", per_nics, per_nics == 1 ? "" : "s",
                       plan.gpus.size(), plan.gpus.size() == 1 ? "" : "s", count * per_nics,
                       count * per_nics == 1 ? "" : "s", plan.nics.size()));
  }
  return count;
}

// A vGPU profile the group fixes, and the NICs' kinds: an SR-IOV adapter where the group has
// one, a passthrough device where not.
void check_templates(const std::string& name, const Plan& plan, const Components& components,
                     PlannedGroup& out) {
  for (const DeviceGroupComponent* c : components.vgpus) {
    if (!c->device || c->device->backing_type != BackingType::vmiop || c->device->vgpu.empty() ||
        c->device->vgpu == *plan.vgpu) {
      continue;
    }
    if (!c->configurable) {
      refuse(name, fmt::format("its vGPU is profile {} (isConfigurable false), not --vgpu {}",
                               c->device->vgpu, *plan.vgpu));
    }
    out.replaced_vgpus.push_back(c->device->vgpu);
  }
  for (const DeviceGroupComponent* c : components.nics) {
    const bool sriov = template_is_sriov(*c);
    if (c->type == "dvx" && !(c->device && c->device->dvx)) {
      refuse(name, fmt::format("the host's template of {} names no DVX device class, without which "
                               "vmxkit cannot write the device",
                               describe(*c)));
    }
    if (c->device && c->device->backing_type == BackingType::vmiop) {
      refuse(name, fmt::format("the host's template of {} is a vGPU, not a NIC", describe(*c)));
    }
    for (const Choice& n : plan.nics) {
      if (n.sriov_vf == sriov) continue;
      refuse(name, fmt::format("its {} is {}: {}", describe(*c),
                               sriov ? "an SR-IOV network adapter" : "a passthrough device",
                               sriov ? "add --sriov" : "leave out --sriov"));
    }
  }
}

// The NICs of instance `gpus`: those the plan paired with its GPUs, else the next per_nics.
std::vector<std::size_t> instance_nics(const std::string& name, const Plan& plan,
                                       const std::vector<std::size_t>& gpus, std::size_t instance,
                                       std::size_t per_nics) {
  const bool paired = std::any_of(plan.pairs.begin(), plan.pairs.end(),
                                  [](const Pairing& p) { return !p.peer_is_gpu; });
  std::vector<std::size_t> nics;
  if (paired) {
    for (const Pairing& p : plan.pairs) {
      if (p.peer_is_gpu || std::find(gpus.begin(), gpus.end(), p.gpu) == gpus.end()) continue;
      if (std::find(nics.begin(), nics.end(), p.peer) == nics.end()) nics.push_back(p.peer);
    }
    std::sort(nics.begin(), nics.end());
  } else {
    for (std::size_t k = 0; k < per_nics; ++k) nics.push_back(instance * per_nics + k);
  }
  if (nics.size() != per_nics) {
    refuse(name, fmt::format("GPU{} {} paired with {} NIC{} ({}); an instance needs {} of its own",
                             fmt::join(gpus, " GPU"), gpus.size() == 1 ? "is" : "are", nics.size(),
                             nics.size() == 1 ? "" : "s",
                             nics.empty() ? std::string("none")
                                          : fmt::format("NIC{}", fmt::join(nics, ", NIC")),
                             per_nics));
  }
  return nics;
}

// One instance's members, in device order as the VM lists them; `parts` says what each is.
std::vector<GroupMember> instance_members(const Plan& plan, const Components& components,
                                          const std::vector<std::size_t>& gpus,
                                          const std::vector<std::size_t>& nics) {
  std::vector<GroupMember> members;
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    const Choice& gpu = plan.gpus[gpus[k]];
    const DeviceGroupComponent& c = *components.vgpus[k];
    GroupMember& m = members.emplace_back();
    m.device = gpus[k];
    m.sequence_id = *c.sequence_id;
    if (gpu.model != nullptr && !c.device_name.empty() && !names_model(c.device_name, *gpu.model)) {
      m.other_gpu = c.device_name;
    }
  }
  for (std::size_t k = 0; k < nics.size(); ++k) {
    const DeviceGroupComponent& c = *components.nics[k];
    GroupMember& m = members.emplace_back();
    m.device = plan.gpus.size() + nics[k];
    m.sequence_id = *c.sequence_id;
    if (c.device && template_fixes_backing(*c.device)) m.template_device = *c.device;
  }
  std::sort(members.begin(), members.end(),
            [](const GroupMember& a, const GroupMember& b) { return a.device < b.device; });
  return members;
}

}  // namespace

PlannedGroup plan_device_group(const Plan& plan, const vsphere::VendorDeviceGroup& group) {
  const std::string name = quote_for_message(group.device_group_name);
  const Components components = split_components(name, group);
  const std::size_t count = instance_count(name, plan, components);
  const std::size_t per_gpus = components.vgpus.size();
  PlannedGroup out;
  out.name = group.device_group_name;
  check_templates(name, plan, components, out);
  std::set<std::size_t> used_nics;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::size_t> gpus;
    for (std::size_t k = 0; k < per_gpus; ++k) gpus.push_back(i * per_gpus + k);
    const std::vector<std::size_t> nics =
        instance_nics(name, plan, gpus, i, components.nics.size());
    for (const std::size_t n : nics) {
      if (!used_nics.insert(n).second) {
        refuse(name, fmt::format("NIC{} is paired with GPUs of two instances; an instance needs "
                                 "NICs of its own",
                                 n));
      }
    }
    out.instances.push_back(instance_members(plan, components, gpus, nics));
  }
  return out;
}

}  // namespace vmxkit::generate
