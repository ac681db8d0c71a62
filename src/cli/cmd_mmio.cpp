// SPDX-License-Identifier: Apache-2.0
// vmxkit mmio [HOST...] --device BDF|vvvv:dddd|alias... : pciPassthru.64bitMMIOSizeGB with its
// arithmetic.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

struct MmioOptions {
  HostInputs hosts;
  std::vector<std::string> devices;
  std::string format = "text";
  ServerOptions server;
};

// Each --device names a device of the host or a catalogue model: refused here, with the
// command's own words, before size_mmio() reads them.
void check_devices(const MmioOptions& o, const Host* host, const Catalog& catalog) {
  for (const std::string& spec : o.devices) {
    if (const auto bdf = parse_bdf(spec)) {
      if (host == nullptr) {
        throw vmxkit::Error(
            fmt::format("mmio: --device {} is an address; give the HOST it is on", spec));
      }
      if (host->find(*bdf) == nullptr) {
        throw vmxkit::Error(fmt::format("mmio: no device {} on the host", bdf->to_string()));
      }
    } else if (!catalog.find(spec)) {
      throw vmxkit::Error(
          fmt::format("mmio: --device {}: not a BDF (0000:3b:00.0), a catalogue id "
                      "(10de:2331) or a model alias (h100-pcie)",
                      spec));
    }
  }
}

int run_mmio(const MmioOptions& o, Context& ctx) {
  std::optional<Host> host;
  if (server_host_wanted(o.server)) {
    host = read_server_host(o.server, o.hosts, ctx);
  } else if (!o.hosts.empty()) {
    host = read_host_inputs(o.hosts, ctx);
  }
  const Catalog catalog = host ? host->catalog() : load_catalog(o.hosts.flagged.catalogs);
  const Host* on = host ? &*host : nullptr;
  check_devices(o, on, catalog);
  const MmioSize r = size_mmio(on, o.devices, catalog);
  if (o.format == "json") {
    ctx.out << render_mmio_json(r);
  } else {
    for (const std::string& line : r.lines) ctx.out << line << '\n';
    ctx.out << fmt::format("pciPassthru.64bitMMIOSizeGB = \"{}\"\n", r.size_gb);
  }
  return r.unknown.empty() ? kExitClean : kExitFindings;
}

}  // namespace

void setup_mmio(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<MmioOptions>();
  auto* sub = app.add_subcommand(
      "mmio",
      "Compute pciPassthru.64bitMMIOSizeGB for passthrough devices from their BARs, with "
      "the arithmetic and Broadcom KB 323402's figure; exit 1 when a device's BARs are unknown");
  add_host_inputs(*sub, o->hosts,
                  "Host inputs as for topo (needed for --device BDF); a kernel log (dmesg) gives "
                  "BAR sizes from its ranges and the BARs the kernel found no space for");
  sub->add_option("--device", o->devices,
                  "A host BDF (0000:3b:00.0), a vendor:device id (10de:2331) or a model alias "
                  "(h100-pcie); repeatable")
      ->required();
  sub->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  add_server_options(*sub, o->server, true);
  sub->callback([o, &ctx] { ctx.exit_code = run_mmio(*o, ctx); });
}

}  // namespace vmxkit::cli
