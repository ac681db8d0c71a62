// SPDX-License-Identifier: Apache-2.0
// vmxkit fmt FILE [--check | -i] : rewrite in VMware's canonical writer form.
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {
namespace {

struct FmtOptions {
  std::string file;
  bool check = false;
  WriteOptions write;
};

/// Whether `fd` is /dev/null: what is written there is never read.
bool output_discarded(int fd) {
  struct stat out {};
  struct stat null {};
  return ::fstat(fd, &out) == 0 && S_ISCHR(out.st_mode) && ::stat("/dev/null", &null) == 0 &&
         S_ISCHR(null.st_mode) && out.st_rdev == null.st_rdev;
}

int run_fmt(const FmtOptions& o, Context& ctx) {
  if (o.check && o.write.in_place) throw Error("--check and -i exclude each other");
  const std::string name = display_name(o.file);
  if (o.write.in_place) {
    edit_input(o.file, o.write, ctx,
               [&](const std::string& bytes) { return vmx_canonical(bytes, name); });
    return kExitClean;
  }
  // One pass over the bytes, no VmxDocument, no copy of the lines already canonical: the output
  // (or the comparison) refers to them in the input; the peak is the input and the rebuilt
  // lines. Nothing is written before the whole input has been read and checked.
  // Output to /dev/null never reads the pieces it is given (GNU tar skips reading what it would
  // archive there, for the same reason): a mapped input is then scanned through pread() into a
  // small buffer and its mapping is never touched. Any other output reads every piece from the
  // mapping, whose pages are then better touched first by the two threads that scan them than
  // one by one by writev(2).
  const bool discarded = !o.check && &ctx.out == &std::cout && output_discarded(STDOUT_FILENO);
  const CanonicalVmx canonical = o.file == "-" ? CanonicalVmx(read_input(o.file, ctx), name)
                                               : CanonicalVmx::read(o.file, discarded);
  if (o.check) {
    if (canonical.unchanged()) return kExitClean;
    ctx.err << name << ": not in canonical form (run `vmxkit fmt -i " << o.file << "`)\n";
    return kExitFindings;
  }
  if (&ctx.out == &std::cout) {
    // The process's stdout: the pieces in a few writev(2) calls, not one write per piece.
    std::cout.flush();
    canonical.write_to(STDOUT_FILENO, "<stdout>");
  } else {
    for (const std::string_view piece : canonical.pieces()) {
      ctx.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    }
  }
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
