// SPDX-License-Identifier: Apache-2.0
#include "cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/color.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output_stream.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"

namespace vmxkit::cli {
namespace {

constexpr const char* kVersion = "vmxkit " VMXKIT_VERSION;  // project(VERSION) in CMakeLists.txt

constexpr const char* kColorHelp =
    "Colour diagnostics: auto (where FORCE_COLOR is set and not empty, or the stream written is "
    "a terminal and NO_COLOR is unset or empty), always, or never";

ColorChoice color_choice(const std::string& name) {
  if (name == "always") return ColorChoice::always;
  if (name == "never") return ColorChoice::never;
  return ColorChoice::automatic;
}

// A repeatable flag (`--host`, `--catalog`, `--vm`, `--select`...) takes one value each time it
// is given: CLI11 lets a vector-valued option take every argument up to the next flag, so
// `lint --host H vm.vmx --format sarif` read vm.vmx as a second host and then missed FILE.
// Applied to every flag of every subcommand, so a flag added later cannot bring it back.
void one_value_per_flag(CLI::App& app) {
  const auto repeatable = [](CLI::Option* o) {
    return o->nonpositional() && o->get_expected_max() > 1;
  };
  for (CLI::Option* o : app.get_options(repeatable)) o->allow_extra_args(false);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options(repeatable)) o->allow_extra_args(false);
  }
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  Context ctx{in, out, err};

  CLI::App app{
      "vmxkit: generate, lint and convert VMware VM configurations for GPU and NIC "
      "passthrough with peer-to-peer DMA (GPUDirect RDMA)",
      "vmxkit"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);
  setup_generate(app, ctx);
  setup_lint(app, ctx);
  setup_fix(app, ctx);
  setup_get(app, ctx);
  setup_set(app, ctx);
  setup_unset(app, ctx);
  setup_fmt(app, ctx);
  setup_rules(app, ctx);
  setup_rule(app, ctx);
  setup_formats(app, ctx);
  setup_topo(app, ctx);
  setup_mmio(app, ctx);
  setup_host_check(app, ctx);
  setup_convert(app, ctx);
  setup_guest_check(app, ctx);
  setup_nccl_topo(app, ctx);
  setup_apply(app, ctx);

  // --color before or after the subcommand; colour is decided per stream once all options are
  // parsed, before the subcommand runs.
  std::string color = "auto";
  const auto color_names = CLI::IsMember({"auto", "always", "never"});
  app.add_option("--color", color, kColorHelp)->check(color_names);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->add_option("--color", color, kColorHelp)->check(color_names);
  }
  one_value_per_flag(app);
  app.parse_complete_callback([&] {
    const ColorChoice choice = color_choice(color);
    const char* no_color = std::getenv("NO_COLOR");
    const char* force_color = std::getenv("FORCE_COLOR");
    ctx.color_out = use_color(choice, is_terminal(out), no_color, force_color);
    ctx.color_err = use_color(choice, is_terminal(err), no_color, force_color);
  });

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  int code = kExitClean;
  try {
    app.parse(reversed);
    code = ctx.exit_code;
  } catch (const CLI::ParseError& e) {
    code = app.exit(e, out, err) == 0 ? kExitClean : kExitInput;
  } catch (const Error& e) {
    err << "vmxkit: error: " << e.what() << '\n';
    code = kExitInput;
  } catch (const std::exception& e) {
    err << "vmxkit: internal error: " << e.what() << '\n';
    code = kExitInternal;
  }
  // Every command's output is checked here, once: a result that did not reach stdout whole
  // is an error (exit 2), whatever the command found.
  if (const std::string failure = output_failure(out); !failure.empty()) {
    err << "vmxkit: error: " << failure << '\n';
    return code == kExitInternal ? code : kExitInput;
  }
  return code;
}

namespace {

struct sigaction g_previous_bus {};

void write_stderr(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// Async-signal-safe throughout: write, strlen, unlink (remove_temporary_files), _exit, raise.
extern "C" void on_sigbus(int sig, siginfo_t* info, void* context) {
  if (const char* path = mapped_input_at(info->si_addr)) {
    write_stderr("vmxkit: error: ");
    write_stderr(path);
    write_stderr(": ");
    write_stderr(kTruncatedInput);
    write_stderr("\n");
    remove_temporary_files();
    ::_exit(kExitInput);
  }
  // Not the mapped input: what would have happened without this handler.
  if ((g_previous_bus.sa_flags & SA_SIGINFO) != 0 && g_previous_bus.sa_sigaction != nullptr) {
    g_previous_bus.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous_bus.sa_handler != SIG_DFL && g_previous_bus.sa_handler != SIG_IGN &&
      g_previous_bus.sa_handler != nullptr) {
    g_previous_bus.sa_handler(sig);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);
}

}  // namespace

void install_mapped_input_guard() {
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGBUS, &action, &g_previous_bus) == 0) allow_mapped_inputs();
}

}  // namespace vmxkit::cli
