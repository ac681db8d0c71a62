// SPDX-License-Identifier: Apache-2.0
// vmxkit fmt FILE [--check | -i] : rewrite in VMware's canonical writer form.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/vmx/format.h"

namespace vmxkit::cli {
namespace {

struct FmtOptions {
  std::string file;
  bool check = false;
  WriteOptions write;
};

int run_fmt(const FmtOptions& o, Context& ctx) {
  if (o.check && o.write.in_place) throw Error("--check and -i exclude each other");
  const std::string name = display_name(o.file);
  // One pass over the bytes, no Document: the peak is the input and its canonical form.
  if (o.check) {
    const std::string bytes = o.file == "-" ? read_stream(ctx.in, name) : read_file(o.file);
    if (vmx::canonical_form(bytes, name) == bytes) return kExitClean;
    ctx.err << name << ": not in canonical form (run `vmxkit fmt -i " << o.file << "`)\n";
    return kExitFindings;
  }
  edit_input(o.file, o.write, ctx,
             [&](const std::string& bytes) { return vmx::canonical_form(bytes, name); });
  return kExitClean;
}

}  // namespace

void setup_fmt(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<FmtOptions>();
  auto* sub = app.add_subcommand(
      "fmt",
      "Rewrite in VMware's canonical writer form: key = \"value\", VMware's escapes, one "
      "line ending; comments and order kept");
  sub->add_option("FILE", o->file, "A .vmx file, or - for stdin")->required();
  sub->add_flag("--check", o->check, "Change nothing; exit 1 when FILE is not canonical");
  add_write_options(*sub, o->write);
  sub->callback([o, &ctx] { ctx.exit_code = run_fmt(*o, ctx); });
}

}  // namespace vmxkit::cli
