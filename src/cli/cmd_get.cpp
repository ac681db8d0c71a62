// SPDX-License-Identifier: Apache-2.0
// vmxkit get FILE KEY... : print the values of keys as VMware reads them.
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {
namespace {

struct GetOptions {
  std::string file;
  std::vector<std::string> keys;
  bool raw = false;
};

int run_get(const GetOptions& o, Context& ctx) {
  const VmxDocument doc = read_vmx_document(o.file, ctx);
  warn_malformed(doc, ctx);
  int code = kExitClean;
  for (const std::string& key : o.keys) {
    const std::optional<std::string> value = o.raw ? doc.get_raw(key) : doc.get(key);
    if (!value) {
      ctx.err << "vmxkit: " << doc.path() << ": no key '" << key << "'\n";
      code = kExitFindings;
      continue;
    }
    ctx.out << *value << '\n';
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
