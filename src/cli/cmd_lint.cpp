// SPDX-License-Identifier: Apache-2.0
// vmxkit lint FILE... and vmxkit fix FILE: run the rule catalogue, report or fix.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/diff.h"
#include "cli/live.h"
#include "cli/rule_selection.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {
namespace {

const std::map<std::string, Severity> kSeverityNames = {{"error", Severity::error},
                                                        {"warning", Severity::warning},
                                                        {"info", Severity::info},
                                                        {"style", Severity::style}};

struct LintOptions {
  std::vector<std::string> inputs;
  HostOptions host;
  std::string format = "text";
  std::string fail_on = "warning";
  unsigned jobs = 0;
  std::string stdin_filename;  ///< --stdin-filename: the name `-` is shown and read as
  RuleSelection rules;         ///< --select, --ignore and their extend- forms
  LiveLintOptions live;        ///< --server with --vm NAME... or --all-vms
};

// Files named on the command line as they are; directories searched for `*.vmx`, sorted.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input != "-" && std::filesystem::is_directory(input, ec)) {
      std::vector<std::string> found;
      for (auto it = std::filesystem::recursive_directory_iterator(
               input, std::filesystem::directory_options::skip_permission_denied, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".vmx") {
          found.push_back(it->path().string());
        }
      }
      if (ec) throw Error(input, "cannot list the directory: " + ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(input);
    }
  }
  return files;
}

// The sources of lint_files(): each file by its path, `-` as the bytes read from stdin (read
// here, up front: not from a worker thread), named by --stdin-filename or <stdin>.
std::vector<DocumentSource> lint_sources(const std::vector<std::string>& files,
                                         const std::string& stdin_filename, Context& ctx) {
  std::vector<DocumentSource> sources;
  sources.reserve(files.size());
  std::optional<std::string> stdin_bytes;
  for (const std::string& file : files) {
    if (file != "-") {
      sources.emplace_back(file);
      continue;
    }
    if (!stdin_bytes) stdin_bytes = read_input("-", ctx);
    sources.push_back(DocumentSource::from_bytes(
        stdin_filename.empty() ? display_name("-") : stdin_filename, *stdin_bytes));
  }
  return sources;
}

int run_lint(LintOptions o, Context& ctx) {
  o.rules.validate();
  const bool live = !o.live.server.server.empty() || !o.live.request.vms.empty() ||
                    o.live.request.all_vms || !o.live.request.uuid.empty();
  if (live) {
    if (!o.inputs.empty())
      throw Error("lint: give FILE... or --server with --vm/--all-vms, not both");
    if (!o.host.hosts.empty()) {
      throw Error("lint --server: each VM is linted against the host it runs on; drop --host");
    }
    o.live.format = o.format;
    o.live.fail_on = kSeverityNames.at(o.fail_on);
    o.live.catalogs = o.host.catalogs;
    o.live.rules = o.rules;
    return run_lint_live(o.live, ctx);
  }
  if (o.inputs.empty()) throw Error("lint: give FILE... (or --server URL --vm NAME | --all-vms)");
  const std::vector<std::string> files = expand_inputs(o.inputs);
  if (files.empty()) throw Error("no .vmx files found in the given directories");
  const HostAndCatalog host = read_host_options(o.host, ctx);
  LintFilesOptions options;
  options.lint.host = host.host ? &*host.host : nullptr;
  options.lint.catalog = &host.catalog;
  options.rules = o.rules;
  options.jobs = o.jobs;
  std::vector<DocumentSource> sources = lint_sources(files, o.stdin_filename, ctx);

  const Severity threshold = kSeverityNames.at(o.fail_on);
  LintReportWriter writer(
      o.format, [&ctx](std::string_view text) { ctx.out << text; }, ctx.color_out);
  bool input_error = false;
  bool findings = false;
  lint_files(std::move(sources), options, [&](LintFileResult file) {
    if (!file.report) {
      ctx.err << "vmxkit: error: " << file.error << '\n';
      writer.add_unread();
      input_error = true;
      return;
    }
    findings = findings || file.report->count_at_least(threshold) > 0;
    writer.add(*file.report);
  });
  writer.finish();
  if (input_error) return kExitInput;
  return findings ? kExitFindings : kExitClean;
}

struct FixOptions {
  std::string file;
  HostOptions host;
  bool unsafe = false;
  bool diff = false;
  WriteOptions write;
};

// What fix says after the fixes: the findings that remain (with --diff at their places in the
// file, which stays as it was), how many it fixed, and that only a .vmx is edited.
void report_fix(const FixResult& fixed, const std::string& name, const std::string* original,
                Context& ctx) {
  if (original != nullptr) {
    std::vector<Diagnostic> remaining;
    remaining.reserve(fixed.remaining.diagnostics.size());
    for (const Diagnostic& d : fixed.remaining.diagnostics) {
      remaining.push_back(in_original(fixed, *original, d));
    }
    ctx.err << render_diagnostics(name, *original, LineIndex(*original), remaining, ctx.color_err);
  } else {
    ctx.err << render_diagnostics(name, fixed.remaining.bytes, fixed.remaining.lines,
                                  fixed.remaining.diagnostics, ctx.color_err);
  }
  ctx.err << fmt::format("Fixed {} problem{}", fixed.fixes_applied,
                         fixed.fixes_applied == 1 ? "" : "s");
  if (!fixed.fixed_rules.empty())
    ctx.err << " (" << fmt::format("{}", fmt::join(fixed.fixed_rules, ", ")) << ")";
  ctx.err << fmt::format(", {} remain.\n", fixed.remaining.diagnostics.size());
  if (fixed.remaining.format != "vmx") {
    ctx.err << "vmxkit: note: fix edits .vmx files only; for a vSphere document, `vmxkit convert "
               "--to vmx`, fix that, and convert back\n";
  }
}

int run_fix(const FixOptions& o, Context& ctx) {
  if (o.diff && o.write.in_place) throw Error("--diff and -i exclude each other");
  check_in_place(o.file, o.write);
  const HostAndCatalog host = read_host_options(o.host, ctx);
  vmxkit::FixOptions options;
  options.lint.host = host.host ? &*host.host : nullptr;
  options.lint.catalog = &host.catalog;
  options.unsafe = o.unsafe;
  const std::string name = display_name(o.file);
  std::optional<FixResult> result;
  if (o.diff) {
    // The file on disk stays the original: the remaining findings are shown at their places in it.
    const std::string original = read_input(o.file, ctx);
    result = fix(name, original, options);
    ctx.out << unified_diff(original, result->bytes, "a/" + name, "b/" + name);
    report_fix(*result, name, &original, ctx);
  } else {
    // With -i, the read, the fixes and the write happen under the file's lock (edit_input).
    edit_input(o.file, o.write, ctx, [&](const std::string& bytes) {
      result = fix(name, bytes, options);
      return result->bytes;
    });
    report_fix(*result, name, nullptr, ctx);
  }
  return result->remaining.count_at_least(Severity::warning) > 0 ? kExitFindings : kExitClean;
}

}  // namespace

void setup_lint(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LintOptions>();
  auto* sub = app.add_subcommand(
      "lint", "Check .vmx files (and directories of them) for passthrough, P2P and MMIO mistakes");
  // FILE is required unless the VMs come from a server: a required positional also keeps the
  // many-valued --host from taking the file (`--host HOST vm.vmx`).
  CLI::Option* file =
      sub->add_option("FILE", o->inputs, "Files, directories (searched for *.vmx), or - for stdin")
          ->required();
  add_host_options(*sub, o->host);
  add_server_options(*sub, o->live.server, false);
  const auto live = [file](const std::string&) { file->required(false); };
  sub->get_option("--server")->each(live)->trigger_on_parse();
  sub->add_option("--vm", o->live.request.vms,
                  "With --server: lint this VM's live config (repeatable)")
      ->each(live)
      ->trigger_on_parse();
  sub->add_flag("--all-vms", o->live.request.all_vms,
                "With --server: lint every VM (under --folder or --cluster when given)")
      ->each(live)
      ->trigger_on_parse();
  sub->add_option("--folder", o->live.request.folder,
                  "With --all-vms: only VMs under this folder (a name or an inventory path, "
                  "/DC0/vm/prod)");
  sub->add_option("--cluster", o->live.request.cluster, "With --all-vms: only VMs in this cluster");
  sub->add_option("--datacenter", o->live.request.datacenter,
                  "With --server: only VMs of this datacenter (--folder then may be one of its "
                  "folders: gpu or vm/gpu)");
  sub->add_option("--uuid", o->live.request.uuid,
                  "With --server: lint the VM of this BIOS UUID (config.uuid), instead of --vm")
      ->each(live)
      ->trigger_on_parse();
  sub->add_option_function<std::string>(
         "--instance-uuid",
         [o](const std::string& v) {
           o->live.request.uuid = v;
           o->live.request.instance_uuid = true;
         },
         "With --server: lint the VM of this vCenter instance UUID (config.instanceUuid)")
      ->each(live)
      ->trigger_on_parse();
  sub->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  sub->add_option("--fail-on", o->fail_on, "Exit 1 on findings at or above this severity")
      ->check(CLI::IsMember({"error", "warning", "info", "style"}));
  sub->add_option("-j,--jobs", o->jobs, "Files linted in parallel (default: all cores)");
  sub->add_option("--stdin-filename", o->stdin_filename,
                  "The name of the input read from stdin (-): shown in every output format, and "
                  "its extension tells the format, as for a file");
  add_rule_selection(*sub, o->rules);
  sub->callback([o, &ctx] { ctx.exit_code = run_lint(*o, ctx); });
}

void setup_fix(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<FixOptions>();
  auto* sub = app.add_subcommand(
      "fix", "Apply the fixes of lint findings: safe ones, and unsafe ones with --unsafe-fixes");
  sub->add_option("FILE", o->file, "A .vmx file, or - for stdin")->required();
  add_host_options(*sub, o->host);
  sub->add_flag("--unsafe-fixes", o->unsafe, "Also apply fixes that change behaviour");
  sub->add_flag("--diff", o->diff, "Print a unified diff instead of the fixed file");
  add_write_options(*sub, o->write);
  sub->callback([o, &ctx] { ctx.exit_code = run_fix(*o, ctx); });
}

}  // namespace vmxkit::cli
