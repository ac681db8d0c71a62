// SPDX-License-Identifier: Apache-2.0
// vmxkit guest-check GUEST... : inside the VM, the GPUDirect RDMA kernel path, what NCCL does at
// its defaults, and the guest's view of the passthrough GPUs and NICs.
#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct GuestCheckCli {
  std::vector<std::string> inputs;
  std::string nccl_topo;
  std::string format = "text";
  std::string fail_on = "warning";
};

const std::map<std::string, Severity> kFailOn = {
    {"error", Severity::error}, {"warning", Severity::warning}, {"info", Severity::info}};

int run_guest_check(const GuestCheckCli& o, Context& ctx) {
  if (o.inputs.empty()) throw Error("guest-check: give at least one GUEST capture");
  // Each `-` is stdin, read in the order the captures are read (the --nccl-topo file last).
  auto source = [&](const std::string& path) {
    return path == "-" ? DocumentSource::from_bytes(display_name(path), read_input(path, ctx))
                       : DocumentSource(path);
  };
  std::vector<DocumentSource> captures;
  for (const std::string& path : o.inputs) captures.push_back(source(path));
  GuestCheckOptions options;
  if (!o.nccl_topo.empty()) options.nccl_topo = source(o.nccl_topo);
  const GuestCheck check = check_guest(captures, options);
  ctx.out << render_guest_check(check, o.format);
  const Severity threshold = kFailOn.at(o.fail_on);
  for (const CheckFinding& f : check.findings()) {
    if (f.severity <= threshold) return kExitFindings;
  }
  return kExitClean;
}

}  // namespace

void setup_guest_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<GuestCheckCli>();
  auto* sub = app.add_subcommand(
      "guest-check",
      "Inside the VM: check the GPUDirect RDMA kernel path (nvidia_peermem or DMA-BUF), what "
      "NCCL does at its defaults for each GPU and its nearest NIC, BAR1, ATS, ACS and links in "
      "the guest's lspci, and the drivers; inputs are detected by content");
  sub->add_option("GUEST", o->inputs,
                  "Captures made in the guest (`-` for stdin): lspci -vvv / -tv, lsmod or "
                  "/proc/modules, /proc/cmdline, nvidia-smi (-q, topo -m), ibv_devinfo, uname "
                  "-r, `grep . /sys/module/*/version`, /proc/driver/nvidia/version, modinfo, "
                  "ofed_info -s, NCCL's log (NCCL_DEBUG=INFO) and topology dump "
                  "(NCCL_TOPO_DUMP_FILE); one file may hold several, each after its shell prompt "
                  "line");
  sub->add_option("--nccl-topo", o->nccl_topo,
                  "The NCCL topology file (NCCL_TOPO_FILE) the guest runs NCCL with: its GPU "
                  "and NIC bus ids must be the guest's and its pairs come out as on the host "
                  "(GUEST015); NCCL's view below is then the one with the file");
  sub->add_option("--format", o->format, "text, json or sarif")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  sub->add_option("--fail-on", o->fail_on, "Exit 1 on findings at or above this severity")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  sub->callback([o, &ctx] { ctx.exit_code = run_guest_check(*o, ctx); });
}

}  // namespace vmxkit::cli
