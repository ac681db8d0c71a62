// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace CLI {
class App;
}

namespace vmxkit::cli {

struct Context;

// One function per subcommand file: adds the subcommand, its options and a callback that runs
// it and stores the exit code in the context.
void setup_get(CLI::App& app, Context& ctx);
void setup_set(CLI::App& app, Context& ctx);
void setup_unset(CLI::App& app, Context& ctx);
void setup_fmt(CLI::App& app, Context& ctx);
void setup_generate(CLI::App& app, Context& ctx);
void setup_lint(CLI::App& app, Context& ctx);
void setup_fix(CLI::App& app, Context& ctx);
void setup_rules(CLI::App& app, Context& ctx);
void setup_rule(CLI::App& app, Context& ctx);
void setup_formats(CLI::App& app, Context& ctx);
void setup_topo(CLI::App& app, Context& ctx);
void setup_mmio(CLI::App& app, Context& ctx);
void setup_host_check(CLI::App& app, Context& ctx);
void setup_convert(CLI::App& app, Context& ctx);
void setup_guest_check(CLI::App& app, Context& ctx);
void setup_nccl_topo(CLI::App& app, Context& ctx);
void setup_apply(CLI::App& app, Context& ctx);

}  // namespace vmxkit::cli
