// SPDX-License-Identifier: Apache-2.0
// vmxkit lint FILE... and vmxkit fix FILE: run the rule catalogue, report or fix.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/diff.h"
#include "cli/live.h"
#include "cli/rule_selection.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/diagnostic_text.h"
#include "vmxkit/report/lint_report.h"

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

bool at_or_above(Severity s, Severity threshold) {
  return static_cast<int>(s) <= static_cast<int>(threshold);
}

bool has_findings(const checks::LintResult& r, Severity threshold) {
  for (const Diagnostic& d : r.diagnostics) {
    if (at_or_above(d.severity, threshold)) return true;
  }
  return false;
}

// Files linted on `jobs` threads (the caller's and jobs - 1 workers), their results handed to
// the caller in file order: at most `window` results are ever held (the next one to hand over
// and those linted ahead of it), so the memory does not grow with the number of files. The
// caller lints too while the next result is not ready, instead of sleeping.
class OrderedLint {
 public:
  struct Item {
    std::optional<checks::LintResult> result;
    std::string error;             ///< a vmxkit::Error: the file could not be read or parsed
    std::exception_ptr exception;  ///< anything else: a bug, rethrown by take()
  };

  OrderedLint(const std::vector<std::string>& files, const std::string& stdin_bytes,
              const std::string& stdin_name, const checks::LintOptions& options, unsigned jobs)
      : files_(files),
        stdin_bytes_(stdin_bytes),
        stdin_name_(stdin_name),
        options_(options),
        slots_(4 * jobs + 4) {
    for (unsigned t = 1; t < jobs; ++t) threads_.emplace_back([this] { work(); });
  }

  ~OrderedLint() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    space_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  OrderedLint(const OrderedLint&) = delete;
  OrderedLint& operator=(const OrderedLint&) = delete;

  /// The item of the next file in order; call once per file.
  Item take() {
    std::unique_lock lock(mutex_);
    Slot& slot = slots_[taken_ % slots_.size()];
    while (!slot.done) {
      if (can_start()) {
        const std::size_t i = next_++;
        lock.unlock();
        Item item = lint_one(i);
        lock.lock();
        store(i, std::move(item));
      } else {
        ready_.wait(lock, [&] { return slot.done; });
      }
    }
    Item item = std::move(slot.item);
    slot = Slot{};
    ++taken_;
    const bool wake = waiting_ > 0;
    lock.unlock();
    if (wake) space_.notify_all();
    if (item.exception) std::rethrow_exception(item.exception);
    return item;
  }

 private:
  struct Slot {
    Item item;
    bool done = false;
  };

  // With the lock held: a file is left and its result has a slot.
  bool can_start() const { return next_ < files_.size() && next_ < taken_ + slots_.size(); }

  Item lint_one(std::size_t i) const {
    Item item;
    try {
      std::string bytes = files_[i] == "-" ? stdin_bytes_ : read_file(files_[i]);
      item.result = checks::lint(files_[i] == "-" ? stdin_name_ : display_name(files_[i]),
                                 std::move(bytes), options_);
    } catch (const Error& e) {
      item.error = e.what();
    } catch (...) {
      item.exception = std::current_exception();
    }
    return item;
  }

  // With the lock held.
  void store(std::size_t i, Item item) {
    Slot& slot = slots_[i % slots_.size()];
    slot.item = std::move(item);
    slot.done = true;
  }

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++waiting_;
      space_.wait(lock, [&] { return stop_ || next_ >= files_.size() || can_start(); });
      --waiting_;
      if (stop_ || next_ >= files_.size()) return;
      const std::size_t i = next_++;
      lock.unlock();
      Item item = lint_one(i);
      lock.lock();
      const bool wanted = i == taken_;
      store(i, std::move(item));
      if (wanted) ready_.notify_one();
    }
  }

  const std::vector<std::string>& files_;
  const std::string& stdin_bytes_;
  const std::string& stdin_name_;  ///< --stdin-filename, or <stdin>
  const checks::LintOptions& options_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable ready_;  // the slot of the next file to hand over was filled
  std::condition_variable space_;  // a slot was emptied
  std::size_t next_ = 0;           // the next file to lint
  std::size_t taken_ = 0;          // the next file take() hands over
  std::size_t waiting_ = 0;        // workers waiting for a slot
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

int run_lint(LintOptions o, Context& ctx) {
  o.rules.validate();
  const bool live = !o.live.server.server.empty() || !o.live.vms.empty() || o.live.all_vms ||
                    !o.live.uuid.empty();
  if (live) {
    if (!o.inputs.empty())
      throw Error("lint: give FILE... or --server with --vm/--all-vms, not both");
    if (!o.host.hosts.empty()) {
      throw Error("lint --server: each VM is linted against the host it runs on; drop --host");
    }
    o.live.format = o.format;
    o.live.fail_on = o.fail_on;
    o.live.catalogs = o.host.catalogs;
    o.live.rules = o.rules;
    return run_lint_live(o.live, ctx);
  }
  if (o.inputs.empty()) throw Error("lint: give FILE... (or --server URL --vm NAME | --all-vms)");
  const std::vector<std::string> files = expand_inputs(o.inputs);
  if (files.empty()) throw Error("no .vmx files found in the given directories");
  const LoadedHost host = load_host_options(o.host, ctx);
  checks::LintOptions options;
  options.host = host.host.get();
  options.catalog = &host.catalog;

  // Read stdin up front (it cannot be read from a worker thread).
  std::string stdin_bytes;
  if (std::find(files.begin(), files.end(), "-") != files.end()) {
    stdin_bytes = read_stream(ctx.in, "<stdin>");
  }
  const unsigned jobs =
      std::max(1u, std::min<unsigned>(o.jobs != 0 ? o.jobs : std::thread::hardware_concurrency(),
                                      static_cast<unsigned>(files.size())));
  const Severity threshold = kSeverityNames.at(o.fail_on);
  const auto writer = report::make_report_writer(o.format, ctx.out, ctx.color_out);
  bool input_error = false;
  bool findings = false;
  {
    const std::string stdin_name = o.stdin_filename.empty() ? display_name("-") : o.stdin_filename;
    OrderedLint lint(files, stdin_bytes, stdin_name, options, jobs);
    for (std::size_t i = 0; i < files.size(); ++i) {
      OrderedLint::Item item = lint.take();
      if (!item.error.empty()) {
        ctx.err << "vmxkit: error: " << item.error << '\n';
        writer->add_unread();
        input_error = true;
        continue;
      }
      o.rules.apply(*item.result);
      findings = findings || has_findings(*item.result, threshold);
      writer->add(*item.result);
    }
  }
  writer->finish();
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

int run_fix(const FixOptions& o, Context& ctx) {
  if (o.diff && o.write.in_place) throw Error("--diff and -i exclude each other");
  check_in_place(o.file, o.write);
  const LoadedHost host = load_host_options(o.host, ctx);
  checks::LintOptions options;
  options.host = host.host.get();
  options.catalog = &host.catalog;
  const std::string name = display_name(o.file);
  std::optional<checks::FixResult> result;
  std::string original;  // with --diff: the file as it stays, where findings are reported
  if (o.diff) {
    original = o.file == "-" ? read_stream(ctx.in, name) : read_file(o.file);
    result = checks::fix(name, original, options, o.unsafe);
    ctx.out << unified_diff(original, result->bytes, "a/" + name, "b/" + name);
  } else {
    // With -i, the read, the fixes and the write happen under the file's lock (edit_input).
    edit_input(o.file, o.write, ctx, [&](const std::string& bytes) {
      result = checks::fix(name, bytes, options, o.unsafe);
      return result->bytes;
    });
  }
  const checks::FixResult& fixed = *result;
  if (o.diff) {
    // The file on disk is the original: the remaining findings are shown at their places in it.
    const LineIndex lines(original);
    report::DiagnosticPrinter printer(name, original, lines, ctx.color_err);
    std::string out;
    for (const Diagnostic& d : fixed.remaining.diagnostics) {
      printer.print(out, checks::in_original(fixed, original, d));
    }
    ctx.err << out;
  } else {
    report::DiagnosticPrinter printer(name, fixed.remaining.bytes, fixed.remaining.lines,
                                      ctx.color_err);
    std::string out;
    for (const Diagnostic& d : fixed.remaining.diagnostics) printer.print(out, d);
    ctx.err << out;
  }
  ctx.err << fmt::format("Fixed {} problem{}", fixed.fixes_applied,
                         fixed.fixes_applied == 1 ? "" : "s");
  if (!fixed.fixed_rules.empty())
    ctx.err << " (" << fmt::format("{}", fmt::join(fixed.fixed_rules, ", ")) << ")";
  ctx.err << fmt::format(", {} remain.\n", fixed.remaining.diagnostics.size());
  if (fixed.remaining.format->name != "vmx") {
    ctx.err << "vmxkit: note: fix edits .vmx files only; for a vSphere document, `vmxkit convert "
               "--to vmx`, fix that, and convert back\n";
  }
  return has_findings(fixed.remaining, Severity::warning) ? kExitFindings : kExitClean;
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
  sub->add_option("--vm", o->live.vms, "With --server: lint this VM's live config (repeatable)")
      ->each(live)
      ->trigger_on_parse();
  sub->add_flag("--all-vms", o->live.all_vms,
                "With --server: lint every VM (under --folder or --cluster when given)")
      ->each(live)
      ->trigger_on_parse();
  sub->add_option("--folder", o->live.folder,
                  "With --all-vms: only VMs under this folder (a name or an inventory path, "
                  "/DC0/vm/prod)");
  sub->add_option("--cluster", o->live.cluster, "With --all-vms: only VMs in this cluster");
  sub->add_option("--datacenter", o->live.datacenter,
                  "With --server: only VMs of this datacenter (--folder then may be one of its "
                  "folders: gpu or vm/gpu)");
  sub->add_option("--uuid", o->live.uuid,
                  "With --server: lint the VM of this BIOS UUID (config.uuid), instead of --vm")
      ->each(live)
      ->trigger_on_parse();
  sub->add_option_function<std::string>(
         "--instance-uuid",
         [o](const std::string& v) {
           o->live.uuid = v;
           o->live.instance_uuid = true;
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
