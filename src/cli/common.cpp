// SPDX-License-Identifier: Apache-2.0
#include "cli/common.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>

#include "vmxkit/core/io.h"

namespace vmxkit::cli {

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string read_input(const std::string& path, Context& ctx) {
  return path == "-" ? read_stream(ctx.in, "<stdin>") : read_file_bytes(path);
}

VmxDocument read_vmx_document(const std::string& path, Context& ctx) {
  return VmxDocument::parse(read_input(path, ctx), display_name(path));
}

void warn_malformed(const VmxDocument& doc, Context& ctx) {
  const LineIndex index(doc.bytes());
  for (Diagnostic d : doc.diagnostics()) {
    d.severity = Severity::warning;
    d.message += " (line kept as it is)";
    ctx.err << render_diagnostic(doc.path(), doc.bytes(), index, d, ctx.color_err);
  }
}

void add_host_options(CLI::App& sub, HostOptions& options) {
  sub.add_option("--host", options.hosts,
                 "Host capture: lspci -vvv / -tv, esxcli hardware pci list / pcipassthru list, "
                 "numactl --hardware, esxcli hardware memory get, nvidia-smi topo -m (with "
                 "lspci), dmesg, vSphere HostSystem properties (XML), a sysfs directory, or live "
                 "(repeat to merge several)");
  sub.add_option("--catalog", options.catalogs,
                 "Device catalogue file adding or overriding entries");
}

void add_host_inputs(CLI::App& sub, HostInputs& inputs, const std::string& positional_help) {
  sub.add_option("HOST", inputs.positional, positional_help);
  add_host_options(sub, inputs.flagged);
}

std::vector<HostSource> host_sources(const HostInputs& inputs, Context& ctx) {
  std::vector<HostSource> sources;
  for (const auto* list : {&inputs.positional, &inputs.flagged.hosts}) {
    for (const std::string& source : *list) {
      if (source == "-") {
        sources.push_back(HostSource::from_text("<stdin>", read_stream(ctx.in, "<stdin>")));
      } else {
        sources.emplace_back(source);
      }
    }
  }
  return sources;
}

Host read_host_inputs(const HostInputs& inputs, Context& ctx) {
  const Catalog catalog = load_catalog(inputs.flagged.catalogs);
  Host host = load_host(host_sources(inputs, ctx), catalog);
  for (const std::string& w : host.warnings()) ctx.err << "vmxkit: warning: " << w << '\n';
  return host;
}

HostAndCatalog read_host_options(const HostOptions& options, Context& ctx) {
  HostAndCatalog loaded{load_catalog(options.catalogs), std::nullopt};
  if (!options.hosts.empty()) {
    loaded.host = load_host({options.hosts.begin(), options.hosts.end()}, loaded.catalog);
    if (const std::optional<std::string> smi_only = nvidia_smi_only_input(*loaded.host)) {
      throw Error(fmt::format(
          "--host {}: nvidia-smi topo -m names no PCI address, so a VM's pciPassthruN.id cannot "
          "be placed on it; give it together with the host's lspci -vvv (or lspci -tv), whose "
          "NVIDIA GPUs its GPU0, GPU1... are in PCI address order",
          *smi_only));
    }
    for (const std::string& w : nvidia_smi_warnings(*loaded.host))
      ctx.err << "vmxkit: warning: " << w << '\n';
  }
  return loaded;
}

void add_write_options(CLI::App& sub, WriteOptions& options) {
  sub.add_flag("-i,--in-place", options.in_place, "Write the result over FILE (atomically)");
  sub.add_flag("--force", options.force, "Write even when the VM holds its lock (FILE.lck)");
}

namespace {

LockOptions lock_options(bool force) { return LockOptions{force, "pass --force"}; }

}  // namespace

void check_vm_lock(const std::string& path) { refuse_if_vm_locked(path, lock_options(false)); }

void check_in_place(const std::string& path, const WriteOptions& options) {
  if (!options.in_place) return;
  if (path == "-") throw Error("-i needs a file, not stdin");
  if (!options.force) check_vm_lock(path);
}

Output::Output(const std::string& path, bool force) {
  if (!path.empty() && path != "-") lock_.emplace(path, lock_options(force));
}

void Output::write(std::string_view text, Context& ctx) {
  if (lock_) {
    lock_->replace(text);
  } else {
    ctx.out << text;
  }
}

void write_output(const std::string& path, std::string_view text, Context& ctx, bool force) {
  Output(path, force).write(text, ctx);
}

void edit_input(const std::string& path, const WriteOptions& options, Context& ctx,
                const EditFunction& edit) {
  if (!options.in_place) {
    const std::string bytes =
        path == "-" ? read_stream(ctx.in, display_name(path)) : read_file(path);
    ctx.out << edit(bytes);
    return;
  }
  check_in_place(path, options);
  // The VM's lock is checked again under the file's lock and before the rename: the VM may
  // have started since the check before the work.
  edit_file_atomic(path, edit, lock_options(options.force));
}

}  // namespace vmxkit::cli
