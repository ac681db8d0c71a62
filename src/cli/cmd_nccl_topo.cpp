// SPDX-License-Identifier: Apache-2.0
// vmxkit nccl-topo --host HOST... --vm VM.vmx --guest GUEST... [--map GUEST_BDF=HOST_BDF]...
// [-o FILE] : an NCCL topology file (NCCL_TOPO_FILE) for the VM, with the host's real PCIe tree.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct NcclTopoCliOptions {
  HostOptions host;
  std::string vm;
  std::vector<std::string> guests;
  std::vector<std::string> maps;
  std::string output;
  bool force = false;
};

int run_nccl_topo(const NcclTopoCliOptions& o, Context& ctx) {
  if (o.host.hosts.empty()) throw Error("nccl-topo: give the host's capture with --host HOST");
  if (o.guests.empty()) throw Error("nccl-topo: give the guest's lspci with --guest GUEST");
  HostInputs inputs;
  inputs.flagged = o.host;
  const Host host = read_host_inputs(inputs, ctx);
  const VmxDocument vm = read_vmx_document(o.vm, ctx);
  warn_malformed(vm, ctx);
  std::vector<DocumentSource> guest;
  for (const std::string& path : o.guests) {
    if (path == "-") {
      guest.push_back(DocumentSource::from_bytes(display_name(path), read_input(path, ctx)));
    } else {
      guest.emplace_back(path);
    }
  }
  const NcclTopoFile topo = nccl_topo(host, vm, guest, o.maps);
  for (const std::string& note : topo.notes) ctx.err << "note: " << note << '\n';
  write_output(o.output, topo.xml, ctx, o.force);
  return kExitClean;
}

}  // namespace

void setup_nccl_topo(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<NcclTopoCliOptions>();
  auto* sub = app.add_subcommand(
      "nccl-topo",
      "Write an NCCL topology file (NCCL_TOPO_FILE) for a VM: the tree NCCL's own sysfs walk "
      "builds on the host above each passthrough GPU and NIC, with the guest's bus ids, so NCCL "
      "in the guest computes the path types the host has");
  add_host_options(*sub, o->host);
  sub->add_option("--vm", o->vm,
                  "The VM's .vmx (its pciPassthruN.id entries name the host "
                  "devices; `-` for stdin)")
      ->required();
  sub->add_option("--guest", o->guests,
                  "Captures made in the guest: lspci -vvv (and -tv), as for guest-check")
      ->required();
  sub->add_option("--map", o->maps,
                  "GUEST_BDF=HOST_BDF: which host device a guest device is, where several "
                  "share one vendor:device id (repeatable)");
  sub->add_option("-o,--output", o->output, "Write the XML to FILE (atomically) instead of stdout");
  sub->add_flag("--force", o->force,
                "Write -o even when it is a VM that holds its lock (FILE.lck)");
  sub->callback([o, &ctx] { ctx.exit_code = run_nccl_topo(*o, ctx); });
}

}  // namespace vmxkit::cli
