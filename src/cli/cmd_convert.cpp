// SPDX-License-Identifier: Apache-2.0
// vmxkit convert IN --to FORMAT [-o OUT]: the same VM configuration in another format.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/report/diagnostic_text.h"

namespace vmxkit::cli {

using report::print_diagnostic;

namespace {

struct ConvertOptions {
  std::string input;
  std::string to;
  std::string output;
  std::string vm;
  std::string system;
  bool envelope = false;
  bool force = false;
};

int run_convert(const ConvertOptions& o, Context& ctx) {
  const formats::Format* format = &formats::output_format(o.to);
  if (o.envelope) {
    if (format->name != "configspec-xml" && format->name != "soap") {
      throw Error("--envelope applies to --to configspec-xml only");
    }
    format = formats::find("soap");
  }
  const std::string name = display_name(o.input);
  // Locked before the input is read, which may be the output.
  Output output(o.output, o.force);
  std::string bytes = o.input == "-" ? read_stream(ctx.in, name) : read_file(o.input);
  const vsphere::Loaded loaded = vsphere::load(name, std::move(bytes));
  if (!loaded.malformed.empty()) {
    // Lines VMware cannot read have no settings to convert: refuse, as fmt does, rather than
    // write a configuration without them.
    for (Diagnostic d : checks::line_diagnostics(loaded.malformed)) {
      d.severity = Severity::error;
      print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d,
                       ctx.color_err);
    }
    const std::size_t n = loaded.malformed.size();
    throw Error(name, fmt::format("not converted: {} line{} VMware cannot read (fix {}; nothing "
                                  "was written)",
                                  n, n == 1 ? "" : "s", n == 1 ? "it" : "them"));
  }
  for (Diagnostic d : checks::schema_diagnostics(loaded.schema_problems)) {
    d.severity = Severity::warning;
    print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d, ctx.color_err);
  }

  const vsphere::LoadedVm* vm = nullptr;
  if (!o.system.empty()) {
    for (const vsphere::LoadedVm& v : loaded.vms) {
      if (v.name == o.system || (!v.moref.empty() && v.moref == o.system)) vm = &v;
    }
    if (vm == nullptr) throw Error(name, "no VirtualSystem or VM '" + o.system + "'");
  } else if (loaded.vms.size() == 1) {
    vm = &loaded.vms.front();
  } else {
    std::string names;
    for (const vsphere::LoadedVm& v : loaded.vms) names += (names.empty() ? "" : ", ") + v.name;
    throw Error(name, "holds " + std::to_string(loaded.vms.size()) +
                          (loaded.format->name == "ovf" ? " virtual systems" : " VMs") +
                          "; pick one with --system (" + names + ")");
  }

  // What the OVF reader did not read is not in the output either: say so (as a warning).
  for (Diagnostic d : checks::unread_diagnostics(vm->unread)) {
    d.severity = Severity::warning;
    d.message += " (not converted)";
    print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d, ctx.color_err);
  }

  // Terraform and VM classes: what the form leaves to vSphere, and plan values known only after
  // apply, which the output cannot hold either.
  for (const Diagnostic& d : checks::form_note_diagnostics(vm->notes)) {
    print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d, ctx.color_err);
  }
  std::vector<Diagnostic> unknown;
  checks::defer_unknown(unknown, vm->unknown);
  for (Diagnostic& d : unknown) {
    d.severity = Severity::warning;
    d.message += " (not converted)";
    print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d, ctx.color_err);
  }

  // Device groups (vSphere 8) where the output has no form of them: say which are left out.
  if (!format->carries.device_groups) {
    std::vector<const formats::Format*> carrying;
    for (const formats::Format* f : formats::outputs()) {
      if (f->carries.device_groups) carrying.push_back(f);
    }
    for (const DeviceGroup& g : vm->config.device_groups) {
      const Location at = loaded.source.location(g.whole.begin);
      ctx.err << "vmxkit: warning: " << name << ":" << at.line << ":" << at.column
              << ": device group '" << g.name.value_or(g.label) << "' (groupInstanceKey " << g.key
              << ", " << g.members.size() << " member" << (g.members.size() == 1 ? "" : "s")
              << ") is not converted: the " << format->name
              << " output holds no device groups; convert to " << formats::names(carrying)
              << " to keep it\n";
    }
  }

  // Values that do not convert are named at their place in the input, before anything is written.
  const bool from_vmx = loaded.format->name == "vmx";
  const bool to_vmx = format->name == "vmx";
  std::vector<std::string> emptied;  // an empty extraConfig value makes vSphere remove the key
  if (!to_vmx) {
    for (const auto& option : vsphere::from_vm_config(vm->config, loaded.source).extra_config) {
      if (option.value.empty()) emptied.push_back(option.key);
    }
  } else if (!from_vmx) {
    for (const Setting& s : vm->config.settings) {
      if (s.value.empty()) emptied.push_back(s.key);
    }
  }
  if (from_vmx != to_vmx && !emptied.empty()) {
    ctx.err << "vmxkit: note: "
            << (from_vmx ? "sent as extraConfig with an empty value, which makes vSphere remove "
                           "the key: "
                         : "written as key = \"\" from an empty extraConfig value, with which "
                           "vSphere removes the key: ")
            << fmt::format("{}", fmt::join(emptied, ", ")) << '\n';
  }

  vsphere::RenderOptions options;
  options.vm = o.vm.empty() ? loaded.vm : o.vm;
  const std::vector<std::string> no_comments;
  std::string text;
  try {
    text = format->write({vm->config, no_comments, options});
  } catch (const vsphere::UncarriedText& refused) {
    formats::throw_located(refused, vm->config, name, loaded.source.bytes(), loaded.source.lines());
  }
  if (!to_vmx) {
    const auto not_sent = vsphere::from_vm_config(vm->config, name).not_sent;
    if (!not_sent.empty()) {
      ctx.err << "vmxkit: note: not sent as extraConfig (vSphere sets these itself): "
              << fmt::format("{}", fmt::join(not_sent, ", ")) << '\n';
    }
  }
  output.write(text, ctx);
  return kExitClean;
}

}  // namespace

void setup_convert(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ConvertOptions>();
  auto* sub = app.add_subcommand(
      "convert",
      "Write a VM configuration (.vmx, ConfigSpec XML or SOAP, VI/JSON, OVF; detected from the "
      "content) in another format");
  sub->add_option("IN", o->input, "Input file, or - for stdin")->required();
  std::vector<std::string> outputs;
  for (const formats::Format* f : formats::outputs()) outputs.emplace_back(f->name);
  sub->add_option("--to", o->to, "Output format: " + formats::names(formats::outputs()))
      ->required()
      ->check(CLI::IsMember(outputs));
  sub->add_option("-o,--output", o->output, "Write to this file (atomically) instead of stdout");
  sub->add_flag("--force", o->force, "Write -o even when the VM holds its lock (OUT.lck)");
  sub->add_flag("--envelope", o->envelope,
                "With --to configspec-xml: wrap the spec in a SOAP ReconfigVM_Task request");
  sub->add_option("--vm", o->vm, "The VirtualMachine moref for the SOAP request (vm-123)");
  sub->add_option("--system", o->system,
                  "The OVF VirtualSystem (by ovf:id) or the VM (by name or moref) to convert");
  sub->callback([o, &ctx] { ctx.exit_code = run_convert(*o, ctx); });
}

}  // namespace vmxkit::cli
