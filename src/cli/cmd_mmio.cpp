// SPDX-License-Identifier: Apache-2.0
// vmxkit mmio [HOST...] --device BDF|vvvv:dddd|alias... : pciPassthru.64bitMMIOSizeGB with its
// arithmetic.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/live.h"
#include "vmxkit/analysis/mmio.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/report/json.h"

namespace vmxkit::cli {

using report::Json, report::json_text, report::write_json_document;

namespace {

struct MmioOptions {
  HostInputs hosts;
  std::vector<std::string> devices;
  std::string format = "text";
  ServerOptions server;
};

int run_mmio(const MmioOptions& o, Context& ctx) {
  std::optional<pci::Host> host;
  if (server_host_wanted(o.server)) {
    host = load_server_host(o.server, o.hosts, ctx);
  } else if (!o.hosts.empty()) {
    host = load_host_inputs(o.hosts, ctx);
  }
  const pci::Catalog catalog = host ? host->catalog() : pci::catalog_with(o.hosts.flagged.catalogs);
  std::vector<pci::MmioDevice> list;
  for (const std::string& spec : o.devices) {
    if (const auto bdf = parse_bdf(spec)) {
      if (!host)
        throw vmxkit::Error(
            fmt::format("mmio: --device {} is an address; give the HOST it is on", spec));
      const auto i = host->index_of(*bdf);
      if (!i) throw vmxkit::Error(fmt::format("mmio: no device {} on the host", bdf->to_string()));
      list.push_back(pci::MmioDevice{&host->at(*i), host->at(*i).model, host->describe(*i)});
      continue;
    }
    const pci::CatalogEntry* e = (host ? host->catalog() : catalog).find_alias(spec);
    if (e == nullptr) {
      throw vmxkit::Error(
          fmt::format("mmio: --device {}: not a BDF (0000:3b:00.0), a catalogue id "
                      "(10de:2331) or a model alias (h100-pcie)",
                      spec));
    }
    list.push_back(pci::MmioDevice{nullptr, e, fmt::format("{} ({})", e->id_string(), e->model)});
  }
  const pci::MmioResult r = pci::size_64bit_mmio(list);
  if (o.format == "json") {
    Json bars = Json::array();
    for (const pci::MmioBar& b : r.bars) {
      bars.push_back({{"device", json_text(b.device)},
                      {"bar", json_text(b.bar)},
                      {"size", b.size},
                      {"offset", b.offset},
                      {"source", json_text(b.source)}});
    }
    auto texts = [](const std::vector<std::string>& strings) {
      Json array = Json::array();
      for (const std::string& s : strings) array.push_back(json_text(s));
      return array;
    };
    write_json_document(ctx.out, {{"size_gb", r.size_gb},
                                  {"kb323402_gb", r.kb_gb ? Json(*r.kb_gb) : Json(nullptr)},
                                  {"estimated", r.estimated},
                                  {"total_bytes", r.total_bytes},
                                  {"bars", std::move(bars)},
                                  {"unknown", texts(r.unknown)},
                                  {"unknown_gpus", texts(r.unknown_gpus)},
                                  {"below_4g", texts(r.below_4g)},
                                  {"unassigned", texts(r.unassigned)},
                                  {"lines", texts(r.lines)}});
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
