// SPDX-License-Identifier: Apache-2.0
#include "cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/core/error.h"

namespace vmxkit::cli {
namespace {

constexpr const char* kVersion = "vmxkit 0.1.0";

bool stderr_is_terminal(const std::ostream& err) {
  return &err == &std::cerr && ::isatty(STDERR_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  Context ctx{in, out, err};
  ctx.color = stderr_is_terminal(err);

  CLI::App app{"vmxkit: generate, lint and convert VMware VM configurations for GPU and NIC "
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
  setup_topo(app, ctx);
  setup_mmio(app, ctx);
  setup_host_check(app, ctx);
  setup_convert(app, ctx);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitClean : kExitInput;
  } catch (const Error& e) {
    err << "vmxkit: error: " << e.what() << '\n';
    return kExitInput;
  } catch (const std::exception& e) {
    err << "vmxkit: internal error: " << e.what() << '\n';
    return kExitInternal;
  }
  out.flush();
  return ctx.exit_code;
}

}  // namespace vmxkit::cli
