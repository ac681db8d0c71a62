// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/io.h"
#include "vmxkit/vmxkit.h"

namespace CLI {
class App;
}

namespace vmxkit::cli {

/// What every subcommand gets: the streams and a slot for its exit code.
struct Context {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool color_out = false;  ///< colour what goes to `out` (--color; auto: stdout is a terminal)
  bool color_err = false;  ///< colour what goes to `err` (--color; auto: stderr is a terminal)
  int exit_code = 0;
};

/// The name a path is shown under: `<stdin>` for `-`.
std::string display_name(const std::string& path);

/// Reads FILE, or stdin for `-` (read whole, named `<stdin>` in messages).
std::string read_input(const std::string& path, Context& ctx);

/// Reads FILE (or stdin for `-`) as a `.vmx` document, named as display_name() names it.
VmxDocument read_vmx_document(const std::string& path, Context& ctx);

/// Prints the document's malformed-line diagnostics as warnings: editing keeps those lines as
/// they are, but VMware will still reject the file.
void warn_malformed(const VmxDocument& doc, Context& ctx);

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

/// HOST inputs as load_host() takes them: positional first, then --host; `-` is stdin, read
/// here.
std::vector<HostSource> host_sources(const HostInputs& inputs, Context& ctx);

/// Loads HOST inputs (positional first, then --host; `-` = stdin) with the catalogue and user
/// overrides, and prints the input warnings to stderr.
Host read_host_inputs(const HostInputs& inputs, Context& ctx);

/// The catalogue (built-in plus --catalog files) and the host, when --host was given.
struct HostAndCatalog {
  Catalog catalog;
  std::optional<Host> host;  ///< when --host was given
};
/// Loads --host and --catalog for lint, fix and generate. Refuses a host known only from
/// `nvidia-smi topo -m` (no PCI address to place a VM's devices on) and warns on stderr where
/// that matrix and the PCI inputs disagree (nvidia_smi_warnings()).
HostAndCatalog read_host_options(const HostOptions& options, Context& ctx);

/// Options shared by the subcommands that write a document.
struct WriteOptions {
  bool in_place = false;
  bool force = false;
};
void add_write_options(CLI::App& sub, WriteOptions& options);

/// An edit of a file's bytes: returns the new bytes (the same bytes for no change).
using EditFunction = std::function<std::string(const std::string& bytes)>;

/// Runs an edit of FILE (`-` = stdin): passes its bytes to `edit` and writes the result to
/// stdout, or with -i over FILE. With -i, reading, editing and the atomic write all happen under
/// the file's FileEditLock, so concurrent edits of one file wait for each other instead of
/// losing each other's changes, and the write fails (exit 2) when another program changed the
/// file since it was read. Refuses -i while the VM holds its lock unless --force. An unchanged
/// file is not rewritten.
void edit_input(const std::string& path, const WriteOptions& options, Context& ctx,
                const EditFunction& edit);

/// Writes a command's result to `-o PATH` atomically, or to stdout for an empty path or `-`.
/// Refuses (vmxkit::Error) when PATH is a VM that holds its lock (PATH.lck), unless `force`.
void write_output(const std::string& path, std::string_view text, Context& ctx, bool force = false);

/// A command's `-o PATH` (stdout for an empty path or `-`), locked when it is made: a command
/// makes it before it reads its inputs, so that an input that is also the output (`convert F
/// -o F`, `generate --base F -o F`) is read and replaced under the output's lock, and no other
/// vmxkit writer's edit of the file falls between. Refuses while the VM holds its lock
/// (PATH.lck, or the lock beside the file a link names), unless `force`.
class Output {
 public:
  Output(const std::string& path, bool force);
  /// Writes `text` to the file (atomically) or to stdout.
  void write(std::string_view text, Context& ctx);

 private:
  std::optional<OutputLock> lock_;
};

/// Checks before any work that `-i` can be honoured, so nothing is half-done.
void check_in_place(const std::string& path, const WriteOptions& options);

/// Throws vmxkit::Error naming the lock when the VM at `path` holds it (`path`.lck).
void check_vm_lock(const std::string& path);

}  // namespace vmxkit::cli
