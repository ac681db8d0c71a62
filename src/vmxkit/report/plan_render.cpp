// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/plan_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "vmxkit/core/embedded.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/core/pci_address.h"
#include "vmxkit/formats/vmx/edit.h"
#include "vmxkit/formats/vmx/escape.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/model/vm_config.h"

namespace vmxkit {
extern const EmbeddedFile kGenTemplates[];
extern const std::size_t kGenTemplates_count;
}  // namespace vmxkit

namespace vmxkit::generate {
namespace {

constexpr std::string_view kMetaPrefix = "#:";

std::string entry(unsigned index, std::string_view field, std::string_view value) {
  return vmx::format_entry(fmt::format("pciPassthru{}.{}", index, field), value) + "\n";
}

std::string explanation_block(const Plan& plan) {
  std::string out;
  for (const std::string& line : plan.explanation) {
    // One comment line per line of text; control bytes would break the line structure.
    std::string clean;
    for (const char c : line) clean.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
    out += "# " + clean + "\n";
  }
  return out;
}

std::string mmio_block(const Plan& plan) {
  if (!plan.needs_64bit_mmio) {
    return fmt::format("# pciPassthru.use64bitMMIO not needed: the BARs fit in {} GiB\n",
                       plan.mmio.size_gb);
  }
  return vmx::format_entry("pciPassthru.use64bitMMIO", "TRUE") + "\n" +
         vmx::format_entry("pciPassthru.64bitMMIOSizeGB", std::to_string(plan.mmio.size_gb)) + "\n";
}

std::string address_or_placeholder(const Choice& c) {
  if (c.address) return c.address->to_vmx();
  return placeholder(
      fmt::format("host address of the {} in .vmx form SSSSS:BBB:DD.F "
                  "(vmxkit generate --host writes it)",
                  c.model ? c.model->model : c.label));
}

std::string system_id_or_placeholder(const Plan& plan) {
  return plan.system_id.empty() ? placeholder("the host's system UUID, esxcli system uuid get")
                                : plan.system_id;
}

// Devices in the order they are numbered: GPUs, then NICs.
std::vector<const Choice*> ordered_devices(const Plan& plan) {
  std::vector<const Choice*> out;
  for (const Choice& c : plan.gpus) out.push_back(&c);
  for (const Choice& c : plan.nics) out.push_back(&c);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::string Template::description() const {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, eol - pos);
    if (line.starts_with(kMetaPrefix) && line.find("Placeholders:") == std::string_view::npos) {
      if (!out.empty()) out.push_back(' ');
      out += std::string(trim(line.substr(kMetaPrefix.size())));
    }
    pos = eol + 1;
  }
  return out;
}

std::vector<Template> builtin_templates() {
  std::vector<Template> out;
  for (std::size_t i = 0; i < kGenTemplates_count; ++i) {
    std::string name(kGenTemplates[i].name);
    if (name.ends_with(".vmx")) name.resize(name.size() - 4);
    out.push_back({name, std::string(kGenTemplates[i].data)});
  }
  std::sort(out.begin(), out.end(),
            [](const Template& a, const Template& b) { return a.name < b.name; });
  return out;
}

Template load_template(const std::string& name_or_path) {
  for (Template& t : builtin_templates()) {
    if (t.name == name_or_path) return t;
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) {
    return {name_or_path, read_file(name_or_path)};
  }
  std::string names;
  for (const Template& t : builtin_templates()) names += (names.empty() ? "" : ", ") + t.name;
  throw Error(fmt::format("--template {}: neither a built-in template ({}) nor a file",
                          name_or_path, names));
}

std::string default_template(const Plan& plan) {
  if (plan.vgpu) return "vgpu-sriov";
  if (plan.gpus.size() >= 2) return "multi-gpu-p2p";
  if (!plan.nics.empty()) return "gpudirect-rdma";
  return "single-gpu";
}

std::string render_devices(const Plan& plan, const std::vector<unsigned>& indices) {
  std::string out;
  const auto devices = ordered_devices(plan);
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const Choice& c = *devices[k];
    const unsigned n = k < indices.size() ? indices[k] : static_cast<unsigned>(k);
    out += entry(n, "present", "TRUE");
    if (c.role == DeviceRole::gpu && plan.vgpu) {
      out += entry(n, "vgpu", *plan.vgpu);
    } else if (c.sriov_vf) {
      // The form ESXi writes for a VF (docs/vsphere-outputs.md); the PF's own ids and the
      // host's systemId go to the ConfigSpec outputs (physical_functions()).
      const std::string pf = address_or_placeholder(c);
      out += entry(n, "id", pf);
      out += entry(n, "pfId", pf);
      out += entry(n, "deviceId", "0");
      out += entry(n, "vendorId", "0");
      out += entry(n, "systemId", "BYPASS");
      out += entry(n, "networkName", plan.network);
    } else {
      out += entry(n, "id", address_or_placeholder(c));
      out += entry(n, "deviceId", fmt::format("0x{:04x}", c.device_id));
      out += entry(n, "vendorId", fmt::format("0x{:04x}", c.vendor_id));
      out += entry(n, "systemId", system_id_or_placeholder(plan));
    }
  }
  return out;
}

std::vector<vsphere::PhysicalFunction> physical_functions(const Plan& plan) {
  std::vector<vsphere::PhysicalFunction> out;
  for (const Choice& c : plan.nics) {
    if (!c.sriov_vf || !c.address || (c.vendor_id == 0 && c.device_id == 0)) continue;
    out.push_back({*c.address, c.vendor_id, c.device_id, system_id_or_placeholder(plan)});
  }
  return out;
}

std::string render_template(const Template& tpl, const Plan& plan,
                            const std::vector<unsigned>& indices) {
  const std::map<std::string, std::string, std::less<>> blocks = {
      {"explanation", explanation_block(plan)},
      {"devices", render_devices(plan, indices)},
      {"mmio", mmio_block(plan)},
  };
  const std::map<std::string, std::string, std::less<>> values = {
      {"memory_mb", std::to_string(plan.memory_mb)},
      {"mmio_size_gb", std::to_string(plan.mmio.size_gb)},
      {"system_id", system_id_or_placeholder(plan)},
  };
  std::string out;
  std::size_t pos = 0;
  std::uint32_t line_number = 0;
  while (pos < tpl.text.size()) {
    ++line_number;
    const std::size_t eol = std::min(tpl.text.find('\n', pos), tpl.text.size());
    const std::string_view line(tpl.text.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.starts_with(kMetaPrefix)) continue;
    const std::string_view bare = trim(line);
    if (bare.starts_with("{{") && bare.ends_with("}}") &&
        bare.find("{{", 2) == std::string_view::npos) {
      const std::string_view name = bare.substr(2, bare.size() - 4);
      if (const auto it = blocks.find(name); it != blocks.end()) {
        out += it->second;
        continue;
      }
    }
    std::size_t i = 0;
    while (i < line.size()) {
      const std::size_t open = line.find("{{", i);
      if (open == std::string_view::npos) {
        out.append(line.substr(i));
        break;
      }
      out.append(line.substr(i, open - i));
      const std::size_t close = line.find("}}", open + 2);
      const std::string_view name = close == std::string_view::npos
                                        ? std::string_view()
                                        : line.substr(open + 2, close - open - 2);
      const auto it = values.find(name);
      if (it == values.end()) {
        throw Error(
            tpl.name, line_number, static_cast<std::uint32_t>(open + 1),
            blocks.count(name) != 0
                ? fmt::format("placeholder {{{{{}}}}} must stand on a line of its own", name)
                : fmt::format(
                      "unknown placeholder '{}' (known: explanation, devices, mmio, "
                      "memory_mb, mmio_size_gb, system_id)",
                      line.substr(open, close == std::string_view::npos ? line.size() - open
                                                                        : close + 2 - open)));
      }
      out += it->second;
      i = close + 2;
    }
    out.push_back('\n');
  }
  return out;
}

std::vector<unsigned> device_indices(const Plan& plan, const vmx::Document* base) {
  std::vector<unsigned> indices;
  if (base == nullptr) {
    for (std::size_t k = 0; k < plan.gpus.size() + plan.nics.size(); ++k) {
      indices.push_back(static_cast<unsigned>(k));
    }
    return indices;
  }
  // Number the plan's devices around what the base already passes.
  const VmConfig existing = vmx::to_vm_config(*base);
  const auto base_devices = existing.passthrough_devices();
  unsigned next = 0;
  std::map<Bdf, unsigned> by_address;
  for (const PassthroughDevice& d : base_devices) {
    next = std::max(next, d.index + 1);
    if (d.kind() != PassthroughKind::directpath || !d.id) continue;
    if (const auto bdf = parse_vmx_bdf(*d.id)) by_address.emplace(*bdf, d.index);
  }
  for (const Choice* c : ordered_devices(plan)) {
    const bool full = !(c->role == DeviceRole::gpu && plan.vgpu) && !c->sriov_vf;
    const auto it = c->address && full ? by_address.find(*c->address) : by_address.end();
    indices.push_back(it != by_address.end() ? it->second : next++);
  }
  return indices;
}

void add_device_group(const Plan& plan, const std::vector<unsigned>& indices, VmConfig& config,
                      vsphere::RenderOptions& options) {
  if (!plan.device_group) return;
  for (const std::vector<GroupMember>& instance : plan.device_group->instances) {
    // from_vm_config() gives the group at position g the temporary key -(1 + g).
    const auto key = -1 - static_cast<std::int32_t>(config.device_groups.size());
    DeviceGroup group;
    group.name = plan.device_group->name;
    for (const GroupMember& m : instance) {
      group.members.push_back({indices.at(m.device), m.sequence_id, {}});
      if (m.template_device) {
        options.group_templates.push_back({key, m.sequence_id, *m.template_device});
      }
    }
    config.device_groups.push_back(std::move(group));
  }
}

std::string merge_into(const vmx::Document& base, const Template& tpl, const Plan& plan) {
  const std::vector<unsigned> indices = device_indices(plan, &base);
  const vmx::Document fragment = vmx::Document::parse(render_template(tpl, plan, indices));
  std::vector<std::pair<std::string, std::string>> entries;
  for (const vmx::Line& line : fragment.lines()) {
    if (line.is_entry()) entries.emplace_back(fragment.key(line), fragment.value(line));
  }
  // All at once: one set() after the other parsed the whole base again for each entry.
  return vmx::set_entries(base, entries);
}

std::string render_plan(const Plan& plan, const vmx::Document* base, const formats::Format& format,
                        const PlanRenderOptions& options) {
  if (plan.device_group && !format.carries.device_groups) {
    std::vector<const formats::Format*> carrying;
    for (const formats::Format* f : formats::outputs()) {
      if (f->carries.device_groups) carrying.push_back(f);
    }
    throw Error(
        fmt::format("--device-group {}: the {} output cannot carry a device group; use "
                    "--format {}",
                    vsphere::quote_for_message(plan.device_group->name), format.name,
                    formats::names(carrying)));
  }
  const Template tpl =
      load_template(options.template_name.empty() ? default_template(plan) : options.template_name);
  std::string vmx_text = base ? merge_into(*base, tpl, plan) : render_template(tpl, plan);
  if (format.name == "vmx") return vmx_text;
  const vmx::Document doc = vmx::Document::parse(std::move(vmx_text), base ? base->path() : "plan");
  vsphere::RenderOptions o;
  o.vm = options.vm;
  o.physical_functions = physical_functions(plan);  // SR-IOV PF backings
  VmConfig config = vmx::to_vm_config(doc);
  if (plan.device_group) add_device_group(plan, device_indices(plan, base), config, o);
  try {
    return format.write({config, plan.explanation, o});
  } catch (const vsphere::UncarriedText& refused) {
    // The plan's own values are the program's; a refused one came from the base: named there.
    if (base == nullptr) throw;
    formats::throw_located(refused, vmx::to_vm_config(*base), base->path(), base->bytes(),
                           base->line_index());
  }
}

}  // namespace vmxkit::generate
