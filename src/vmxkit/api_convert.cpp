// SPDX-License-Identifier: Apache-2.0
// The facade's `vmxkit convert` (vmxkit/vmxkit.h): convert() over the vSphere loader and the
// format table's writers, saying what the input holds that the output will not.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <utility>
#include <vector>

#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

namespace {

// What the steps of one conversion share: the input's name, what was read from it, and where
// messages go.
struct Converting {
  const std::string& name;
  const vsphere::Loaded& loaded;
  const ConvertOptions& options;

  // A message for the user, when they want them.
  void say(const std::string& text) const {
    if (options.message) options.message(text);
  }
  // A diagnostic about the input, at its place in it.
  void print(const Diagnostic& d) const {
    if (!options.message) return;
    say(render_diagnostic(name, loaded.source.bytes(), loaded.source.lines(), d, options.color));
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
    c.say(fmt::format(
        "vmxkit: warning: {}:{}:{}: device group '{}' (groupInstanceKey {}, {} member{}) is not "
        "converted: the {} output holds no device groups; convert to {} to keep it\n",
        c.name, at.line, at.column, g.name.value_or(g.label), g.key, g.members.size(),
        g.members.size() == 1 ? "" : "s", format.name, formats::names(carrying)));
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
    c.say(fmt::format("vmxkit: note: {}{}\n",
                      from_vmx ? "sent as extraConfig with an empty value, which makes vSphere "
                                 "remove the key: "
                               : "written as key = \"\" from an empty extraConfig value, with "
                                 "which vSphere removes the key: ",
                      fmt::join(emptied, ", ")));
  }
}

// The VM in the output format; text the format cannot carry is refused at its place.
std::string render_converted(const Converting& c, const vsphere::LoadedVm& vm,
                             const formats::Format& format, const std::string& moref) {
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

}  // namespace

std::string convert(const std::string& path, std::string bytes, std::string_view format,
                    const ConvertOptions& options) {
  const formats::Format& to = formats::output_format(format);
  const vsphere::Loaded loaded = vsphere::load(path, std::move(bytes));
  const Converting c{path, loaded, options};
  if (!loaded.malformed.empty()) refuse_malformed(c);
  for (Diagnostic d : checks::schema_diagnostics(loaded.schema_problems)) {
    d.severity = Severity::warning;
    c.print(d);
  }
  const vsphere::LoadedVm& vm = pick_vm(c, options.system);
  warn_not_converted(c, vm);
  warn_device_groups(c, vm, to);
  note_empty_values(c, vm, to);
  std::string text = render_converted(c, vm, to, options.vm);
  if (to.name != "vmx") {
    const auto not_sent = vsphere::from_vm_config(vm.config, path).not_sent;
    if (!not_sent.empty()) {
      c.say(fmt::format("vmxkit: note: not sent as extraConfig (vSphere sets these itself): {}\n",
                        fmt::join(not_sent, ", ")));
    }
  }
  return text;
}

}  // namespace vmxkit
