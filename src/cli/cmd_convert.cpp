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

// The output format --to names; --envelope makes configspec-xml its SOAP request.
const formats::Format& pick_format(const ConvertOptions& o) {
  const formats::Format* format = &formats::output_format(o.to);
  if (o.envelope) {
    if (format->name != "configspec-xml" && format->name != "soap") {
      throw Error("--envelope applies to --to configspec-xml only");
    }
    format = formats::find("soap");
  }
  return *format;
}

// What the steps of one conversion share: the input's name, what was read from it, and where
// messages go.
struct Converting {
  const std::string& name;
  const vsphere::Loaded& loaded;
  Context& ctx;

  // A diagnostic about the input, at its place in it.
  void print(const Diagnostic& d) const {
    print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d, ctx.color_err);
  }
};

// Lines VMware cannot read have no settings to convert: refuse, as fmt does, rather than write
// a configuration without them.
[[noreturn]] void refuse_malformed(const Converting& c) {
  for (Diagnostic d : checks::line_diagnostics(c.loaded.malformed)) {
    d.severity = Severity::error;
    c.print(d);
  }
  const std::size_t n = c.loaded.malformed.size();
  throw Error(c.name, fmt::format("not converted: {} line{} VMware cannot read (fix {}; nothing "
                                  "was written)",
                                  n, n == 1 ? "" : "s", n == 1 ? "it" : "them"));
}

// The VM to convert: the one --system names, or the input's only one.
const vsphere::LoadedVm& pick_vm(const Converting& c, const std::string& system) {
  const vsphere::Loaded& loaded = c.loaded;
  const vsphere::LoadedVm* vm = nullptr;
  if (!system.empty()) {
    for (const vsphere::LoadedVm& v : loaded.vms) {
      if (v.name == system || (!v.moref.empty() && v.moref == system)) vm = &v;
    }
    if (vm == nullptr) throw Error(c.name, "no VirtualSystem or VM '" + system + "'");
  } else if (loaded.vms.size() == 1) {
    vm = &loaded.vms.front();
  } else {
    std::string names;
    for (const vsphere::LoadedVm& v : loaded.vms) names += (names.empty() ? "" : ", ") + v.name;
    throw Error(c.name, "holds " + std::to_string(loaded.vms.size()) +
                            (loaded.format->name == "ovf" ? " virtual systems" : " VMs") +
                            "; pick one with --system (" + names + ")");
  }
  return *vm;
}

// What the input holds that the output will not: warnings (and notes) at their place.
void warn_not_converted(const Converting& c, const vsphere::LoadedVm& vm) {
  // What the OVF reader did not read is not in the output either: say so (as a warning).
  for (Diagnostic d : checks::unread_diagnostics(vm.unread)) {
    d.severity = Severity::warning;
    d.message += " (not converted)";
    c.print(d);
  }

  // Terraform and VM classes: what the form leaves to vSphere, and plan values known only after
  // apply, which the output cannot hold either.
  for (const Diagnostic& d : checks::form_note_diagnostics(vm.notes)) c.print(d);
  std::vector<Diagnostic> unknown;
  checks::defer_unknown(unknown, vm.unknown);
  for (Diagnostic& d : unknown) {
    d.severity = Severity::warning;
    d.message += " (not converted)";
    c.print(d);
  }
}

// Device groups (vSphere 8) where the output has no form of them: say which are left out.
void warn_device_groups(const Converting& c, const vsphere::LoadedVm& vm,
                        const formats::Format& format) {
  if (format.carries.device_groups) return;
  std::vector<const formats::Format*> carrying;
  for (const formats::Format* f : formats::outputs()) {
    if (f->carries.device_groups) carrying.push_back(f);
  }
  for (const DeviceGroup& g : vm.config.device_groups) {
    const Location at = c.loaded.source.location(g.whole.begin);
    c.ctx.err << "vmxkit: warning: " << c.name << ":" << at.line << ":" << at.column
              << ": device group '" << g.name.value_or(g.label) << "' (groupInstanceKey " << g.key
              << ", " << g.members.size() << " member" << (g.members.size() == 1 ? "" : "s")
              << ") is not converted: the " << format.name
              << " output holds no device groups; convert to " << formats::names(carrying)
              << " to keep it\n";
  }
}

// An empty value between .vmx and extraConfig changes meaning: vSphere removes a key sent with
// an empty value. Named before anything is written.
void note_empty_values(const Converting& c, const vsphere::LoadedVm& vm,
                       const formats::Format& format) {
  const bool from_vmx = c.loaded.format->name == "vmx";
  const bool to_vmx = format.name == "vmx";
  std::vector<std::string> emptied;  // an empty extraConfig value makes vSphere remove the key
  if (!to_vmx) {
    for (const auto& option : vsphere::from_vm_config(vm.config, c.loaded.source).extra_config) {
      if (option.value.empty()) emptied.push_back(option.key);
    }
  } else if (!from_vmx) {
    for (const Setting& s : vm.config.settings) {
      if (s.value.empty()) emptied.push_back(s.key);
    }
  }
  if (from_vmx != to_vmx && !emptied.empty()) {
    c.ctx.err << "vmxkit: note: "
              << (from_vmx ? "sent as extraConfig with an empty value, which makes vSphere remove "
                             "the key: "
                           : "written as key = \"\" from an empty extraConfig value, with which "
                             "vSphere removes the key: ")
              << fmt::format("{}", fmt::join(emptied, ", ")) << '\n';
  }
}

// The VM in the output format; text the format cannot carry is refused at its place.
std::string render(const Converting& c, const vsphere::LoadedVm& vm, const formats::Format& format,
                   const std::string& moref) {
  vsphere::RenderOptions options;
  options.vm = moref.empty() ? c.loaded.vm : moref;
  const std::vector<std::string> no_comments;
  std::string text;
  try {
    text = format.write({vm.config, no_comments, options});
  } catch (const vsphere::UncarriedText& refused) {
    formats::throw_located(refused, vm.config, c.name, c.loaded.source.bytes(),
                           c.loaded.source.lines());
  }
  return text;
}

int run_convert(const ConvertOptions& o, Context& ctx) {
  const formats::Format& format = pick_format(o);
  const std::string name = display_name(o.input);
  // Locked before the input is read, which may be the output.
  Output output(o.output, o.force);
  std::string bytes = o.input == "-" ? read_stream(ctx.in, name) : read_file(o.input);
  const vsphere::Loaded loaded = vsphere::load(name, std::move(bytes));
  const Converting c{name, loaded, ctx};
  if (!loaded.malformed.empty()) refuse_malformed(c);
  for (Diagnostic d : checks::schema_diagnostics(loaded.schema_problems)) {
    d.severity = Severity::warning;
    c.print(d);
  }

  const vsphere::LoadedVm& vm = pick_vm(c, o.system);
  warn_not_converted(c, vm);
  warn_device_groups(c, vm, format);
  note_empty_values(c, vm, format);
  const std::string text = render(c, vm, format, o.vm);
  if (format.name != "vmx") {
    const auto not_sent = vsphere::from_vm_config(vm.config, name).not_sent;
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
