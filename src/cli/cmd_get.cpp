// SPDX-License-Identifier: Apache-2.0
// vmxkit get FILE KEY... : print the values of keys as VMware reads them.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace vmxkit::cli {
namespace {

struct GetOptions {
  std::string file;
  std::vector<std::string> keys;
  bool raw = false;
};

int run_get(const GetOptions& o, Context& ctx) {
  const vmx::Document doc = load_vmx(o.file, ctx);
  warn_malformed(doc, ctx);
  int code = kExitClean;
  for (const std::string& key : o.keys) {
    const vmx::Line* line = doc.find(key);
    if (line == nullptr) {
      ctx.err << "vmxkit: " << doc.path() << ": no key '" << key << "'\n";
      code = kExitFindings;
      continue;
    }
    if (o.raw) {
      ctx.out << doc.raw_value(*line) << '\n';
    } else {
      ctx.out << doc.value(*line) << '\n';
    }
  }
  return code;
}

}  // namespace

void setup_get(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<GetOptions>();
  auto* sub = app.add_subcommand(
      "get",
      "Print the values of KEYs (matched ignoring case, escapes decoded), one per line; "
      "exit 1 when a key is absent");
  sub->add_option("FILE", o->file, "A .vmx file, or - for stdin")->required();
  sub->add_option("KEY", o->keys, "Keys to print")->required();
  sub->add_flag("--raw", o->raw, "Print values as written, |XX escapes not decoded");
  sub->callback([o, &ctx] { ctx.exit_code = run_get(*o, ctx); });
}

}  // namespace vmxkit::cli
