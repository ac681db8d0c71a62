// SPDX-License-Identifier: Apache-2.0
// vmxkit topo HOST... : the GPU/NIC matrix like `nvidia-smi topo -m`, with P2P verdicts.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/pci/host_check.h"
#include "vmxkit/pci/topology.h"

namespace vmxkit::cli {

namespace {

struct TopoOptions {
  HostInputs hosts;
  std::string format = "text";
  bool all_nics = false;
  std::string cmdline;
};

int run_topo(const TopoOptions& o, Context& ctx) {
  if (o.hosts.empty()) throw vmxkit::Error("topo: give at least one HOST (file, sysfs directory or live)");
  const pci::Host host = load_host_inputs(o.hosts, ctx);
  pci::AnalysisOptions options;
  options.all_nics = o.all_nics;
  if (!o.cmdline.empty()) {
    options.iommu_translating =
        pci::iommu_translating(host, pci::parse_kernel_cmdline(read_file(o.cmdline), o.cmdline));
  }
  const pci::Topology topo = pci::analyze(host, options);
  if (o.format == "json") {
    ctx.out << pci::render_topology_json(host, topo);
  } else {
    if (topo.size() == 0) ctx.err << "vmxkit: no GPUs or RDMA NICs on the host\n";
    ctx.out << pci::render_topology_text(host, topo);
  }
  return kExitClean;
}

}  // namespace

void setup_topo(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<TopoOptions>();
  auto* sub = app.add_subcommand(
      "topo", "Print the GPU/NIC matrix like `nvidia-smi topo -m` (PIX/PXB/PHB/NODE/SYS) with a "
              "P2P verdict and its reasons for every pair, and the best NIC for each GPU");
  add_host_inputs(*sub, o->hosts,
                  "lspci -vvv, lspci -tv, esxcli hardware pci list, esxcli hardware pci "
                  "pcipassthru list, numactl --hardware or esxcli hardware memory get output, a "
                  "sysfs directory, or live; several are merged");
  sub->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  sub->add_flag("--all-nics", o->all_nics, "List every NIC, not only RDMA-capable ones");
  sub->add_option("--cmdline", o->cmdline, "/proc/cmdline or /etc/default/grub (IOMMU mode)");
  sub->callback([o, &ctx] { ctx.exit_code = run_topo(*o, ctx); });
}

}  // namespace vmxkit::cli
