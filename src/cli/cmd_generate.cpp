// SPDX-License-Identifier: Apache-2.0
// vmxkit generate: VM settings for GPU/NIC passthrough with P2P from a host capture.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "cli/plan_options.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {
namespace {

struct GenerateOptions {
  HostOptions host;
  PlanOptions plan;  ///< what to plan: --gpu, --nic, --vgpu...
  std::string base;
  std::string template_name;
  std::string format = "vmx";
  std::string vm;
  std::string output;
  std::string plan_json;      ///< --plan-json: the plan as a JSON document (`-`: stdout)
  std::string config_target;  ///< --config-target: the host's QueryConfigTarget answer
  std::string device_group;   ///< --device-group: one of its vendor device groups
  bool force = false;
  bool list_templates = false;
  bool list_models = false;
  ServerOptions server;  ///< --server, --esx-host: the host from the vSphere API
};

int list_templates(Context& ctx) {
  for (const TemplateInfo& t : templates()) {
    ctx.out << fmt::format("{:<16} {}\n", t.name, t.description);
  }
  ctx.out << "A template file of your own can be given with --template FILE.\n";
  return kExitClean;
}

// The catalogue's nvlink column as it is written: "no", "bridge", "bridge:2", "baseboard", or
// "-" when not sourced (and for a NIC).
std::string nvlink_column(const CatalogModel& m) {
  if (m.role != DeviceRole::gpu || m.nvlink == NvlinkSupport::unknown) return "-";
  if (m.nvlink_bridge_gpus) return fmt::format("{}:{}", to_string(m.nvlink), *m.nvlink_bridge_gpus);
  return std::string(to_string(m.nvlink));
}

int list_models(const Catalog& catalog, Context& ctx) {
  constexpr std::string_view kRow = "{:<14} {:<10} {:<9} {:<9} {}\n";
  ctx.out << fmt::format(kRow, "ALIAS", "ID", "ROLE", "NVLINK", "MODEL");
  for (const CatalogModel& m : catalog.models()) {
    if (m.alias.empty() || (m.role != DeviceRole::gpu && m.role != DeviceRole::rdma_nic)) continue;
    ctx.out << fmt::format(kRow, m.alias, m.id(), to_string(m.role), nvlink_column(m), m.model);
  }
  return kExitClean;
}

// The outputs other than a new .vmx change an existing VM; say what that risks (the scripts
// ask or check before changing anything, the ConfigSpec XML holds it as a comment).
void note_for_existing_vm(const Plan& plan, std::string_view format, Context& ctx) {
  const bool from_bios = plan.base() && (!plan.base()->config().firmware() ||
                                         *plan.base()->config().firmware() != "efi");
  if (format != "vmx" || from_bios) {
    ctx.err << "vmxkit: note: this sets firmware = \"efi\"; on an existing VM whose guest was "
               "installed with BIOS that makes the guest unbootable (MMIO005): convert its disk to "
               "GPT/EFI first, or apply it to a VM with no guest installed yet\n";
  }
  if (format != "govc") return;
  bool sriov = false;
  for (const PlannedDevice& n : plan.nics()) sriov = sriov || n.sriov_vf;
  if (sriov) {
    ctx.err << "vmxkit: note: govc cannot add SR-IOV network adapters: the script exits 1 "
               "without changing anything; use --format powercli, configspec-xml, soap or "
               "vi-json\n";
  } else if (plan.vgpu()) {
    ctx.err << "vmxkit: note: the script adds vGPUs with govc gpu.vm.add (govc 0.49.0 and "
               "later) and exits 1 without changing anything on an older govc\n";
  }
}

// The host's vendor device groups that pair a vGPU with a NIC, which vCenter places as a unit
// (rule P2P005), when the plan uses none: where the host offers some, name them and the flag
// that writes the plan's devices as instances of one. `name` names the ConfigTarget in
// messages; `asked`: --config-target was given (else the answer came with the host from the
// server, and a plan without a vGPU needs no word about it).
void note_device_groups(const Plan& plan, const std::string& name, const std::string& bytes,
                        bool asked, Context& ctx) {
  const std::vector<VendorDeviceGroup> groups = vendor_device_groups(bytes, name);
  if (!plan.vgpu() || plan.nics().empty()) {
    if (asked) {
      ctx.err << "vmxkit: note: " << name
              << ": device groups matter for a vGPU with a NIC, which this plan is not\n";
    }
    return;
  }
  std::vector<std::string> offered;
  for (const VendorDeviceGroup& g : groups) {
    if (!g.pairs_vgpu_with_nic) continue;
    std::vector<std::string> parts;
    for (const VendorDeviceGroupComponent& c : g.components) {
      parts.push_back(fmt::format("{} {} {}", c.type, c.vendor_name, c.device_name));
    }
    offered.push_back(fmt::format("'{}'{} ({})", g.name,
                                  g.description.empty() ? "" : ": " + g.description,
                                  fmt::join(parts, ", ")));
  }
  if (offered.empty()) {
    ctx.err << "vmxkit: note: " << name << ": the host offers no vendor device group of a vGPU "
            << "and a NIC (" << groups.size() << " group" << (groups.size() == 1 ? "" : "s")
            << " in all): ESXi places the vGPU at power-on by its placement policy (P2P005)\n";
    return;
  }
  ctx.err << "vmxkit: note: " << name << ": vendor device groups of a vGPU and a NIC on this "
          << "host, which vCenter places as a unit: " << fmt::format("{}", fmt::join(offered, "; "))
          << ". This plan holds no group: --device-group NAME writes its vGPUs and NICs as "
             "instances of one (in the vSphere outputs but govc), or add one in vCenter (Add New "
             "Device, PCI Device) in place of the plan's vGPU and NIC (P2P005)\n";
}

// The host (--host captures, or the server's --esx-host merged with them) and the warnings the
// run printed about it, which --plan-json repeats.
struct GenerateHost {
  std::optional<Host> host;
  std::string server_label;           ///< "esx01 (vSphere API)", with --esx-host
  std::string server_target;          ///< the host's QueryConfigTarget answer, from the server
  std::vector<std::string> warnings;  ///< as printed, without "vmxkit: warning: "
};

GenerateHost load_generate_host(GenerateOptions& o, const Catalog& catalog, Context& ctx) {
  GenerateHost g;
  if (server_host_wanted(o.server)) {
    // The host from the vSphere API (merged with any --host capture), its UUID the systemId.
    std::string uuid;
    HostInputs inputs;
    inputs.flagged = o.host;
    g.host = read_server_host(o.server, inputs, ctx, &uuid,
                              o.config_target.empty() ? &g.server_target : nullptr, &g.warnings);
    if (o.plan.request.system_id.empty()) o.plan.request.system_id = uuid;
    g.server_label = o.server.esx_host + " (vSphere API)";
  } else if (!o.host.hosts.empty()) {
    g.host = load_host(std::vector<HostSource>(o.host.hosts.begin(), o.host.hosts.end()), catalog);
    // What the loaders skipped or could not tell, as the other commands that read a host say it
    // (and as the Python package's Host.warnings has it).
    for (const std::string& w : g.host->warnings()) {
      ctx.err << "vmxkit: warning: " << w << '\n';
      g.warnings.push_back(w);
    }
  }
  return g;
}

FormatInfo output_format(const std::string& name) {
  const std::optional<FormatInfo> format = find_format(name);
  if (format && format->output) return *format;
  std::vector<std::string> outputs;
  for (const FormatInfo& f : format_table()) {
    if (f.output) outputs.push_back(f.name);
  }
  throw Error(fmt::format("--format {}: not an output format; the outputs are: {}", name,
                          fmt::join(outputs, ", ")));
}

bool is_stdout(const std::string& path) { return path.empty() || path == "-"; }

// --plan-json `-` is stdout, which must then not carry the rendering too; and the document
// never replaces -o's file.
void check_plan_json(const GenerateOptions& o) {
  if (o.plan_json.empty()) return;
  if (o.plan_json == "-") {
    if (is_stdout(o.output)) {
      throw Error(
          "--plan-json -: stdout carries the plan's output; give -o FILE for it, or a file "
          "for --plan-json");
    }
    return;
  }
  std::error_code ec;
  if (o.plan_json == o.output ||
      (!is_stdout(o.output) && std::filesystem::equivalent(o.plan_json, o.output, ec))) {
    throw Error(fmt::format("--plan-json {}: the same file as -o", o.plan_json));
  }
}

// The chain is the public API's (vmxkit/vmxkit.h): load_host, plan, render.
int run_generate(GenerateOptions& o, Context& ctx) {
  const Catalog catalog = load_catalog(o.host.catalogs);
  GenerateHost g = load_generate_host(o, catalog, ctx);
  if (o.list_templates) return list_templates(ctx);
  if (o.list_models) return list_models(catalog, ctx);
  const FormatInfo format = output_format(o.format);
  check_plan_json(o);
  if (!o.output.empty() && !o.force) check_in_place(o.output, {true, false});

  PlanRequest r = o.plan.to_request();
  r.host_label = fmt::format("{}", fmt::join(o.host.hosts, " + "));
  if (!g.server_label.empty()) {
    r.host_label = r.host_label.empty() ? g.server_label : g.server_label + " + " + r.host_label;
  }
  r.catalog = catalog;
  // The host's ConfigTarget: --config-target, else what the server answered for the host.
  bool target_asked = false;
  if (!o.config_target.empty()) {
    r.config_target_name = display_name(o.config_target);
    r.config_target = read_input(o.config_target, ctx);
    target_asked = true;
  } else if (!g.server_target.empty()) {
    r.config_target_name = g.server_label + " QueryConfigTarget";
    r.config_target = std::move(g.server_target);
  }
  r.device_group = o.device_group;
  // Locked before --base is read, which may be the output.
  Output out(o.output, o.force);
  std::optional<Output> plan_out;
  if (!o.plan_json.empty()) plan_out.emplace(o.plan_json, o.force);
  if (!o.base.empty()) {
    r.base =
        o.base == "-" ? load(display_name(o.base), read_input(o.base, ctx)) : load_file(o.base);
  }
  const Plan plan = vmxkit::plan(g.host ? &*g.host : nullptr, r);
  RenderOptions options;
  options.template_name = o.template_name;
  options.vm = o.vm;
  const std::string output = render(plan, format.name, options);
  // The comment block goes into a new .vmx; everywhere else it goes to stderr.
  if (format.name != "vmx" || plan.base()) {
    for (const std::string& line : plan.explanation()) ctx.err << "vmxkit: " << line << '\n';
  }
  note_for_existing_vm(plan, format.name, ctx);
  if (!r.config_target.empty() && r.device_group.empty()) {
    note_device_groups(plan, r.config_target_name, r.config_target, target_asked, ctx);
  }
  out.write(output, ctx);
  if (plan_out) {
    PlanJsonOptions where;
    where.format = format.name;
    if (!is_stdout(o.output)) where.path = o.output;
    where.warnings = std::move(g.warnings);
    plan_out->write(render_plan_json(plan, where), ctx);
  }
  return kExitClean;
}

}  // namespace

void setup_generate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<GenerateOptions>();
  auto* sub = app.add_subcommand(
      "generate",
      "Write the VM settings for GPUDirect RDMA / GPU P2P: picks GPU/NIC pairs from a host "
      "capture, sizes 64bitMMIOSizeGB from the BARs, writes every prerequisite");
  add_host_options(*sub, o->host);
  add_plan_options(*sub, o->plan, true);
  sub->add_option("--base", o->base, "Merge into this .vmx, keeping everything else byte for byte");
  sub->add_option("--template", o->template_name, "Template name (--list-templates) or file");
  std::string outputs;
  for (const FormatInfo& f : format_table()) {
    if (f.output) outputs += (outputs.empty() ? "" : ", ") + f.name;
  }
  sub->add_option("--format", o->format, "Output format: " + outputs)->capture_default_str();
  sub->add_option("--vm", o->vm, "VM moref for --format soap (vm-123)");
  sub->add_option("--config-target", o->config_target,
                  "The host's QueryConfigTarget answer (JSON of govc 0.32 or later's "
                  "vm.target.info -host H -json, or the SOAP response): name the vendor device "
                  "groups of a vGPU and a NIC it offers");
  sub->add_option("--device-group", o->device_group,
                  "A vendor device group the host offers (--config-target, or the server's): "
                  "the plan's vGPUs and NICs become instances of it, placed as a unit "
                  "(configspec-xml, soap, vi-json, powercli)");
  sub->add_option("-o,--output", o->output, "Write here (atomically) instead of stdout");
  sub->add_option("--plan-json", o->plan_json,
                  "Also write the plan as a JSON document here (atomically): devices, pairs and "
                  "their verdicts, memory, the MMIO window, the explanation and the warnings; "
                  "- is stdout, with -o FILE");
  sub->add_flag("--force", o->force, "Write -o even when the VM holds its lock");
  sub->add_flag("--list-templates", o->list_templates, "List the built-in templates");
  sub->add_flag("--list-models", o->list_models, "List the GPU and NIC models of the catalogue");
  add_server_options(*sub, o->server, true);
  sub->callback([o, &ctx] { ctx.exit_code = run_generate(*o, ctx); });
}

}  // namespace vmxkit::cli
