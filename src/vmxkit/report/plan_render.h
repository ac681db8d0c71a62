// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/analysis/plan.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/render.h"

namespace vmxkit::generate {

/// A scenario template: a `.vmx` fragment with `{{name}}` placeholders. Lines starting with `#:`
/// describe the template and are not written.
struct Template {
  std::string name;
  std::string text;
  std::string description() const;  ///< the `#:` lines, joined
};

/// The templates compiled into vmxkit (templates/*.vmx), sorted by name.
std::vector<Template> builtin_templates();
/// A built-in template by name, or a user's template file when `name_or_path` names a file.
/// Throws vmxkit::Error when there is neither.
Template load_template(const std::string& name_or_path);
/// The template a plan gets when none is named.
std::string default_template(const Plan& plan);

/// The `pciPassthruN` entries of the plan's devices: GPUs then NICs, numbered from
/// `first_index` (or by `indices`, one per device, when given).
std::string render_devices(const Plan& plan, const std::vector<unsigned>& indices);

/// Fills a template. Placeholders: `explanation` (the comment block), `memory_mb`, `devices`,
/// `mmio` (the 64-bit MMIO keys, or a comment when not needed), `mmio_size_gb`, `system_id`.
/// An unknown placeholder is an error naming the template, line and column.
std::string render_template(const Template& tpl, const Plan& plan,
                            const std::vector<unsigned>& indices = {});

/// Merges the plan into an existing `.vmx`: every key the plan sets is set with text edits
/// (existing keys keep their place, new ones join their family), nothing else changes. Devices
/// already passed by address keep their index; new ones are numbered after the highest index.
std::string merge_into(const vmx::Document& base, const Template& tpl, const Plan& plan);

/// The `pciPassthruN` index of each of the plan's devices (GPUs, then NICs) in what the
/// templates write: 0, 1, ... or, merged into `base`, the indices merge_into() gives them.
std::vector<unsigned> device_indices(const Plan& plan, const vmx::Document* base);

/// The plan's device group (Plan::device_group) in `config`, the plan rendered and read back:
/// one VmConfig::device_groups entry per instance, after those `config` has, its members by the
/// `indices` of their devices (device_indices()); the members the host's templates fix go to
/// `options.group_templates`.
void add_device_group(const Plan& plan, const std::vector<unsigned>& indices, VmConfig& config,
                      vsphere::RenderOptions& options);

/// How render_plan() writes: the template of the `.vmx` (a built-in name or a file; empty: the
/// plan's default), the VM moref a SOAP request targets.
struct PlanRenderOptions {
  std::string template_name;
  std::string vm;
};

/// Writes a plan in an output format of the format table: the `.vmx` fills the template (merged
/// into `base` with text edits when there is one); every other format writes the VmConfig that
/// `.vmx` reads as, with the plan's explanation as its comments, the SR-IOV PF backings and the
/// device group's members. Throws vmxkit::Error for what the format cannot carry (a device group
/// where the table says the form has none: the formats that carry one are named).
std::string render_plan(const Plan& plan, const vmx::Document* base, const formats::Format& format,
                        const PlanRenderOptions& options);

/// The PFs of the plan's SR-IOV VF entries with the ids the host capture gives them and the
/// plan's systemId (a placeholder when `--system-id` was not given), for the ConfigSpec
/// outputs' physical function backings (see vsphere::PhysicalFunction). The `.vmx` entries keep
/// the form ESXi writes (`deviceId = "0"`, `vendorId = "0"`, `systemId = "BYPASS"`).
std::vector<vsphere::PhysicalFunction> physical_functions(const Plan& plan);

}  // namespace vmxkit::generate
