// SPDX-License-Identifier: Apache-2.0
#include "cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>

#include "cli/color.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output_stream.h"
#include "vmxkit/vmxkit.h"

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

struct Command {
  std::string_view name;
  void (*setup)(CLI::App&, Context&);
};

// Every subcommand, in the order `vmxkit --help` lists them.
constexpr std::array kCommands{Command{"generate", setup_generate},
                               Command{"lint", setup_lint},
                               Command{"fix", setup_fix},
                               Command{"get", setup_get},
                               Command{"set", setup_set},
                               Command{"unset", setup_unset},
                               Command{"fmt", setup_fmt},
                               Command{"rules", setup_rules},
                               Command{"rule", setup_rule},
                               Command{"formats", setup_formats},
                               Command{"topo", setup_topo},
                               Command{"mmio", setup_mmio},
                               Command{"host-check", setup_host_check},
                               Command{"convert", setup_convert},
                               Command{"guest-check", setup_guest_check},
                               Command{"nccl-topo", setup_nccl_topo},
                               Command{"apply", setup_apply}};

// The command `args` name before anything else (only --color, with its value, may come before
// it), `--version` (none), or every command (a request for the overview, or a usage error,
// whose message should be the one the whole command line gives).
std::vector<const Command*> commands_named_by(const std::vector<std::string>& args) {
  std::size_t i = 0;
  while (i < args.size() && (args[i] == "--color" || args[i].starts_with("--color="))) {
    i += args[i] == "--color" ? 2 : 1;
  }
  if (i < args.size() && args[i] == "--version") return {};
  for (const Command& c : kCommands) {
    if (i < args.size() && args[i] == c.name) return {&c};
  }
  std::vector<const Command*> all;
  all.reserve(kCommands.size());
  for (const Command& c : kCommands) all.push_back(&c);
  return all;
}

}  // namespace

std::vector<std::string> commands_set_up_for(const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (const Command* c : commands_named_by(args)) names.emplace_back(c->name);
  return names;
}

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
  // Only the command that runs is built: building all of them (about 300 options, each with
  // its strings and callbacks) was half of the start-up of every run (3.0 of 5.6 million
  // instructions of `vmxkit --version`, callgrind).
  for (const Command* c : commands_named_by(args)) c->setup(app, ctx);

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
