// SPDX-License-Identifier: Apache-2.0
// vmxkit lint FILE... and vmxkit fix FILE: run the rule catalogue, report or fix.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/diff.h"
#include "cli/lint_output.h"
#include "cli/report.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/pci/host.h"
#include "vmxkit/rules/engine.h"

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

bool at_or_above(Severity s, Severity threshold) {
  return static_cast<int>(s) <= static_cast<int>(threshold);
}

bool has_findings(const std::vector<rules::LintResult>& results, Severity threshold) {
  for (const auto& r : results) {
    for (const Diagnostic& d : r.diagnostics) {
      if (at_or_above(d.severity, threshold)) return true;
    }
  }
  return false;
}

int run_lint(const LintOptions& o, Context& ctx) {
  const std::vector<std::string> files = expand_inputs(o.inputs);
  if (files.empty()) throw Error("no .vmx files found in the given directories");
  const LoadedHost host = load_host_options(o.host);
  rules::LintOptions options;
  options.host = host.host.get();
  options.catalog = &host.catalog;

  // Read stdin up front (it cannot be read from a worker thread).
  std::string stdin_bytes;
  if (std::find(files.begin(), files.end(), "-") != files.end()) {
    stdin_bytes = read_stream(ctx.in, "<stdin>");
  }
  std::vector<rules::LintResult> results(files.size());
  std::vector<std::string> errors(files.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        std::string bytes = files[i] == "-" ? stdin_bytes : read_file(files[i]);
        results[i] = rules::lint(display_name(files[i]), std::move(bytes), options);
      } catch (const Error& e) {
        errors[i] = e.what();
      }
    }
  };
  const unsigned jobs = std::max(1u, std::min<unsigned>(o.jobs != 0 ? o.jobs
                                                        : std::thread::hardware_concurrency(),
                                                        static_cast<unsigned>(files.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();

  bool input_error = false;
  std::vector<rules::LintResult> done;
  done.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!errors[i].empty()) {
      ctx.err << "vmxkit: error: " << errors[i] << '\n';
      input_error = true;
    } else {
      done.push_back(std::move(results[i]));
    }
  }
  if (o.format == "json") {
    write_json(ctx.out, done);
  } else if (o.format == "sarif") {
    write_sarif(ctx.out, done);
  } else {
    write_text(ctx.out, done, ctx.color_out);
  }
  if (input_error) return kExitInput;
  return has_findings(done, kSeverityNames.at(o.fail_on)) ? kExitFindings : kExitClean;
}

struct FixOptions {
  std::string file;
  HostOptions host;
  bool unsafe = false;
  bool diff = false;
  WriteOptions write;
};

int run_fix(const FixOptions& o, Context& ctx) {
  if (o.diff && o.write.in_place) throw Error("--diff and -i exclude each other");
  check_in_place(o.file, o.write);
  const LoadedHost host = load_host_options(o.host);
  rules::LintOptions options;
  options.host = host.host.get();
  options.catalog = &host.catalog;
  const std::string name = display_name(o.file);
  std::optional<rules::FixResult> result;
  if (o.diff) {
    const std::string original = o.file == "-" ? read_stream(ctx.in, name) : read_file(o.file);
    result = rules::fix(name, original, options, o.unsafe);
    ctx.out << unified_diff(original, result->bytes, "a/" + name, "b/" + name);
  } else {
    // With -i, the read, the fixes and the write happen under the file's lock (edit_input).
    edit_input(o.file, o.write, ctx, [&](const std::string& bytes) {
      result = rules::fix(name, bytes, options, o.unsafe);
      return result->bytes;
    });
  }
  const rules::FixResult& fixed = *result;
  for (const Diagnostic& d : fixed.remaining.diagnostics) {
    print_diagnostic(ctx.err, name, fixed.remaining.bytes, fixed.remaining.lines, d, ctx.color_err);
  }
  ctx.err << fmt::format("Fixed {} problem{}", fixed.fixes_applied,
                         fixed.fixes_applied == 1 ? "" : "s");
  if (!fixed.fixed_rules.empty()) ctx.err << " (" << fmt::format("{}", fmt::join(fixed.fixed_rules, ", ")) << ")";
  ctx.err << fmt::format(", {} remain.\n", fixed.remaining.diagnostics.size());
  if (fixed.remaining.format == rules::InputFormat::configspec) {
    ctx.err << "vmxkit: note: fix edits .vmx files only; for a vSphere document, `vmxkit convert "
               "--to vmx`, fix that, and convert back\n";
  }
  return has_findings({fixed.remaining}, Severity::warning) ? kExitFindings : kExitClean;
}

}  // namespace

void setup_lint(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LintOptions>();
  auto* sub = app.add_subcommand(
      "lint", "Check .vmx files (and directories of them) for passthrough, P2P and MMIO mistakes");
  sub->add_option("FILE", o->inputs, "Files, directories (searched for *.vmx), or - for stdin")
      ->required();
  add_host_options(*sub, o->host);
  sub->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  sub->add_option("--fail-on", o->fail_on, "Exit 1 on findings at or above this severity")
      ->check(CLI::IsMember({"error", "warning", "info", "style"}));
  sub->add_option("-j,--jobs", o->jobs, "Files linted in parallel (default: all cores)");
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
