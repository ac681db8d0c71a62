// SPDX-License-Identifier: Apache-2.0
// vmxkit convert IN --to FORMAT [-o OUT]: the same VM configuration in another format.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/vsphere/load.h"
#include "vmxkit/vsphere/configspec.h"
#include "vmxkit/vsphere/render.h"

namespace vmxkit::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string to;
  std::string output;
  std::string vm;
  std::string system;
  bool envelope = false;
};

int run_convert(const ConvertOptions& o, Context& ctx) {
  auto format = vsphere::parse_output_format(o.to);
  if (!format) throw Error("unknown --to format '" + o.to + "'");
  if (o.envelope) {
    if (*format != vsphere::OutputFormat::configspec_xml && *format != vsphere::OutputFormat::soap) {
      throw Error("--envelope applies to --to configspec-xml only");
    }
    format = vsphere::OutputFormat::soap;
  }
  const std::string name = display_name(o.input);
  std::string bytes = o.input == "-" ? read_stream(ctx.in, name) : read_file(o.input);
  const vsphere::Loaded loaded = vsphere::load(name, std::move(bytes));
  for (Diagnostic d : loaded.diagnostics) {
    d.severity = Severity::warning;
    print_diagnostic(ctx.err, name, loaded.source.bytes(), loaded.source.lines(), d, ctx.color);
  }

  const vsphere::LoadedVm* vm = nullptr;
  if (!o.system.empty()) {
    for (const vsphere::LoadedVm& v : loaded.vms) {
      if (v.name == o.system) vm = &v;
    }
    if (vm == nullptr) throw Error(name, "no VirtualSystem '" + o.system + "'");
  } else if (loaded.vms.size() == 1) {
    vm = &loaded.vms.front();
  } else {
    std::string names;
    for (const vsphere::LoadedVm& v : loaded.vms) names += (names.empty() ? "" : ", ") + v.name;
    throw Error(name, "holds " + std::to_string(loaded.vms.size()) +
                          " virtual systems; pick one with --system (" + names + ")");
  }

  vsphere::RenderOptions options;
  options.vm = o.vm.empty() ? loaded.vm : o.vm;
  const std::string text = vsphere::render(vm->config, *format, options);
  if (*format != vsphere::OutputFormat::vmx) {
    const auto not_sent = vsphere::from_vm_config(vm->config, name).not_sent;
    if (!not_sent.empty()) {
      ctx.err << "vmxkit: note: not sent as extraConfig (vSphere sets these itself): "
              << fmt::format("{}", fmt::join(not_sent, ", ")) << '\n';
    }
  }
  write_output(o.output, text, ctx);
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
  sub->add_option("--to", o->to, "Output format")
      ->required()
      ->check(CLI::IsMember({"vmx", "configspec-xml", "vi-json", "soap", "govc", "powercli"}));
  sub->add_option("-o,--output", o->output, "Write to this file (atomically) instead of stdout");
  sub->add_flag("--envelope", o->envelope,
                "With --to configspec-xml: wrap the spec in a SOAP ReconfigVM_Task request");
  sub->add_option("--vm", o->vm, "The VirtualMachine moref for the SOAP request (vm-123)");
  sub->add_option("--system", o->system, "The OVF VirtualSystem to convert, by ovf:id");
  sub->callback([o, &ctx] { ctx.exit_code = run_convert(*o, ctx); });
}

}  // namespace vmxkit::cli
