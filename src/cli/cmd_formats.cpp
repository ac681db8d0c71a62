// SPDX-License-Identifier: Apache-2.0
// vmxkit formats: the format table, every form vmxkit reads or writes and what it can carry.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

// "host-address, vgpu, sriov" for a VM format; "-" for none or a capture.
std::string carries_text(const FormatInfo& f) {
  std::string out;
  auto add = [&](bool on, const char* what) {
    if (on) out += (out.empty() ? "" : ", ") + std::string(what);
  };
  add(f.host_address, "host-address");
  add(f.dynamic_directpath, "dynamic-directpath");
  add(f.vgpu, "vgpu");
  add(f.sriov, "sriov");
  add(f.device_groups, "device-groups");
  add(f.dvx, "dvx");
  return out.empty() ? "-" : out;
}

void list_formats(const std::string& format, Context& ctx) {
  if (format == "json") {
    ctx.out << render_formats_json(format_table());
    return;
  }
  ctx.out << fmt::format("{:<19} {:<6} {:<7} {}\n", "NAME", "FOR", "IN/OUT", "CARRIES");
  for (const FormatInfo& f : format_table()) {
    const std::string io = std::string(f.input ? "in" : "") + (f.input && f.output ? "/" : "") +
                           (f.output ? "out" : "");
    ctx.out << fmt::format("{:<19} {:<6} {:<7} {}\n", f.name, f.subject, io, carries_text(f));
  }
}

}  // namespace

void setup_formats(CLI::App& app, Context& ctx) {
  auto format = std::make_shared<std::string>("text");
  auto* sub = app.add_subcommand(
      "formats", "List every format vmxkit reads or writes, and what each can carry");
  sub->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}));
  sub->callback([format, &ctx] { list_formats(*format, ctx); });
}

}  // namespace vmxkit::cli
