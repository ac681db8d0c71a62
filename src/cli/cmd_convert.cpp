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
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct ConvertCli {
  std::string input;
  std::string to;
  std::string output;
  std::string vm;
  std::string system;
  bool envelope = false;
  bool force = false;
};

// The output format --to names; --envelope makes configspec-xml its SOAP request.
std::string pick_format(const ConvertCli& o) {
  if (!o.envelope) return o.to;
  if (o.to != "configspec-xml" && o.to != "soap") {
    throw Error("--envelope applies to --to configspec-xml only");
  }
  return "soap";
}

int run_convert(const ConvertCli& o, Context& ctx) {
  const std::string format = pick_format(o);
  const std::string name = display_name(o.input);
  // Locked before the input is read, which may be the output.
  Output output(o.output, o.force);
  std::string bytes = read_input(o.input, ctx);
  ConvertOptions options;
  options.system = o.system;
  options.vm = o.vm;
  options.color = ctx.color_err;
  options.message = [&](std::string_view message) { ctx.err << message; };
  output.write(convert(name, std::move(bytes), format, options), ctx);
  return kExitClean;
}

}  // namespace

void setup_convert(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ConvertCli>();
  auto* sub = app.add_subcommand(
      "convert",
      "Write a VM configuration (.vmx, ConfigSpec XML or SOAP, VI/JSON, OVF; detected from the "
      "content) in another format");
  sub->add_option("IN", o->input, "Input file, or - for stdin")->required();
  std::vector<std::string> outputs;
  for (const FormatInfo& f : format_table()) {
    if (f.output) outputs.push_back(f.name);
  }
  sub->add_option("--to", o->to, "Output format: " + fmt::format("{}", fmt::join(outputs, ", ")))
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
