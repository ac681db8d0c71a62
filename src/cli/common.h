// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/pci/catalog.h"
#include "vmxkit/pci/host.h"
#include "vmxkit/vmx/document.h"

namespace CLI {
class App;
}

namespace vmxkit::cli {

/// What every subcommand gets: the streams and a slot for its exit code.
struct Context {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool color = false;  ///< colour diagnostics (stderr is a terminal)
  int exit_code = 0;
};

/// The name a path is shown under: `<stdin>` for `-`.
std::string display_name(const std::string& path);

/// Reads FILE (or stdin for `-`) and parses it as a `.vmx` document.
vmx::Document load_vmx(const std::string& path, Context& ctx);

/// Prints the document's malformed-line diagnostics as warnings: editing keeps those lines as
/// they are, but VMware will still reject the file.
void warn_malformed(const vmx::Document& doc, Context& ctx);

/// `--host HOST` (repeatable) and `--catalog FILE`, shared by lint, fix and generate.
struct HostOptions {
  std::vector<std::string> hosts;
  std::vector<std::string> catalogs;
};
void add_host_options(CLI::App& sub, HostOptions& options);

/// HOST inputs of topo, mmio and host-check: positional arguments plus the HostOptions. The
/// positional and `--host` values are kept apart because two CLI11 options bound to one vector
/// replace each other's values instead of adding to them.
struct HostInputs {
  std::vector<std::string> positional;
  HostOptions flagged;  ///< --host and --catalog
  bool empty() const { return positional.empty() && flagged.hosts.empty(); }
};
void add_host_inputs(CLI::App& sub, HostInputs& inputs, const std::string& positional_help);

/// Loads HOST inputs (positional first, then --host; `-` = stdin) with the catalogue and user
/// overrides, and prints the input warnings to stderr.
pci::Host load_host_inputs(const HostInputs& inputs, Context& ctx);

/// The catalogue (built-in plus --catalog files) and the host, when --host was given.
struct LoadedHost {
  pci::Catalog catalog;
  std::unique_ptr<pci::Host> host;
};
LoadedHost load_host_options(const HostOptions& options);

/// Options shared by the subcommands that write a document.
struct WriteOptions {
  bool in_place = false;
  bool force = false;
};
void add_write_options(CLI::App& sub, WriteOptions& options);

/// Writes the result of an edit: to stdout, or (`-i`) atomically over the file, refusing when the
/// VM holds its lock unless --force. An unchanged file is not rewritten.
void output_document(const vmx::Document& original, const std::string& result,
                     const WriteOptions& options, Context& ctx);

/// Writes a command's result to `-o PATH` atomically, or to stdout for an empty path or `-`.
void write_output(const std::string& path, std::string_view text, Context& ctx);

/// Checks before any work that `-i` can be honoured, so nothing is half-done.
void check_in_place(const std::string& path, const WriteOptions& options);

}  // namespace vmxkit::cli
