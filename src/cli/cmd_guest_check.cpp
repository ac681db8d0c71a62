// SPDX-License-Identifier: Apache-2.0
// vmxkit guest-check GUEST... : inside the VM, the GPUDirect RDMA kernel path, what NCCL does at
// its defaults, and the guest's view of the passthrough GPUs and NICs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/json_output.h"
#include "cli/lint_output.h"
#include "vmxkit/checks/guest_checks.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/report/nccl_topo_xml.h"

namespace vmxkit::cli {

namespace {

struct GuestCheckOptions {
  std::vector<std::string> inputs;
  std::string nccl_topo;
  std::string format = "text";
  std::string fail_on = "warning";
};

const std::map<std::string, Severity> kFailOn = {
    {"error", Severity::error}, {"warning", Severity::warning}, {"info", Severity::info}};

std::string input_list(const guest::Guest& g) {
  std::string s;
  for (const guest::InputRead& r : g.inputs()) {
    s += fmt::format("  {}{}: {}\n", guest::to_string(r.kind),
                     r.filtered ? " (filtered: " + r.command + ")" : "", r.where.to_string());
  }
  return s;
}

std::string pair_gpu(const guest::Guest& g, const guest::NcclPair& p) {
  return p.gpu_index ? g.pci().describe(*p.gpu_index) : p.gpu_label;
}

std::string pair_nic(const guest::Guest& g, const guest::NcclPair& p) {
  std::string s = p.nic_index ? g.pci().at(*p.nic_index).bdf.to_string() : p.nic_label;
  if (!p.nic_name.empty()) s += " (" + p.nic_name + ")";
  return s;
}

// SARIF 2.1.0, as lint writes it: the guest checks as the driver's rules, one result per finding,
// located at the input line the finding rests on (findings about what no input showed have no
// location). A fix is a command or setting, not an edit of the input, so it goes into the
// result's properties rather than SARIF's `fixes`.
Json guest_sarif(const std::vector<guest::Finding>& findings) {
  Json rules = Json::array();
  std::map<std::string_view, std::size_t> index;
  for (const guest::CheckInfo& c : guest::checks()) {
    index[c.id] = rules.size();
    const std::string help =
        fmt::format("{}\n\nSource: {}\nDoc: {}", c.summary, c.source, guest::check_doc(c));
    rules.push_back({{"id", c.id},
                     {"name", c.name},
                     {"shortDescription", {{"text", c.summary}}},
                     {"help", {{"text", help}}},
                     {"defaultConfiguration", {{"level", sarif_level(c.severity)}}}});
  }
  Json results = Json::array();
  for (const guest::Finding& f : findings) {
    const std::string text = f.subject.empty() ? f.message : f.subject + ": " + f.message;
    Json result = {{"ruleId", f.id},
                   {"ruleIndex", index.at(f.id)},
                   {"level", sarif_level(f.severity)},
                   {"message", {{"text", json_text(text)}}}};
    if (!f.where.path.empty()) {
      Json region = Json::object();
      if (f.where.line > 0) region["startLine"] = f.where.line;
      Json physical = {{"artifactLocation", {{"uri", uri_reference(json_text(f.where.path))}}}};
      if (!region.empty()) physical["region"] = std::move(region);
      result["locations"] = Json::array({{{"physicalLocation", std::move(physical)}}});
    }
    if (!f.fix.empty()) result["properties"] = {{"fix", json_text(f.fix)}};
    results.push_back(std::move(result));
  }
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       Json::array(
           {{{"tool",
              {{"driver",
                {{"name", "vmxkit"}, {"version", VMXKIT_VERSION}, {"rules", std::move(rules)}}}}},
             {"results", std::move(results)}}})}};
}

const char* pair_from(const guest::NcclPair& p) {
  return p.from_nccl_topo ? "NCCL_TOPO_FILE" : p.from_smi_topo ? "nvidia-smi topo -m" : "lspci";
}

// --nccl-topo FILE, read; nullopt when not given.
std::optional<guest::NcclTopoInput> read_nccl_topo(const std::string& path, Context& ctx) {
  if (path.empty()) return std::nullopt;
  const std::string text = path == "-" ? read_stream(ctx.in, "<stdin>") : read_file(path);
  return guest::NcclTopoInput{display_name(path),
                              guest::read_nccl_topo_xml(text, display_name(path))};
}

int run_guest_check(const GuestCheckOptions& o, Context& ctx) {
  if (o.inputs.empty()) throw Error("guest-check: give at least one GUEST capture");
  guest::Guest g;
  for (const std::string& path : o.inputs) {
    const std::string text = path == "-" ? read_stream(ctx.in, "<stdin>") : read_file(path);
    g.load_text(text, display_name(path));
  }
  g.finalize();
  const std::optional<guest::NcclTopoInput> topo = read_nccl_topo(o.nccl_topo, ctx);
  const guest::NcclTopoInput* topo_in = topo ? &*topo : nullptr;
  const std::vector<guest::Finding> findings = guest::check_guest(g, topo_in);
  const std::vector<guest::NcclPair> pairs = guest::nccl_view(g, topo_in);
  const Severity threshold = kFailOn.at(o.fail_on);
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t unchecked = 0;
  bool fail = false;
  for (const guest::Finding& f : findings) {
    errors += f.severity == Severity::error;
    warnings += f.severity == Severity::warning;
    unchecked += f.id == "GUEST012";
    fail = fail || f.severity <= threshold;
  }
  const int code = fail ? kExitFindings : kExitClean;
  const bool ready = errors == 0 && warnings == 0 && unchecked == 0;

  if (o.format == "sarif") {
    write_json_document(ctx.out, guest_sarif(findings));
    return code;
  }
  if (o.format == "json") {
    Json inputs = Json::array();
    for (const guest::InputRead& r : g.inputs()) {
      inputs.push_back({{"kind", guest::to_string(r.kind)},
                        {"file", json_text(r.where.path)},
                        {"line", r.where.line},
                        {"command", r.command.empty() ? Json(nullptr) : Json(json_text(r.command))},
                        {"filtered", r.filtered}});
    }
    Json nccl = Json::array();
    for (const guest::NcclPair& p : pairs) {
      nccl.push_back({{"gpu", json_text(pair_gpu(g, p))},
                      {"nic", json_text(pair_nic(g, p))},
                      {"path", pci::to_string(p.cls)},
                      {"from", pair_from(p)},
                      {"gdr_at_defaults", p.gdr}});
    }
    Json list = Json::array();
    for (const guest::Finding& f : findings) {
      const guest::CheckInfo* info = guest::find_check(f.id);
      list.push_back({{"id", f.id},
                      {"name", f.name},
                      {"severity", to_string(f.severity)},
                      {"subject", f.subject.empty() ? Json(nullptr) : Json(json_text(f.subject))},
                      {"message", json_text(f.message)},
                      {"fix", f.fix.empty() ? Json(nullptr) : Json(json_text(f.fix))},
                      {"location",
                       f.where.path.empty() ? Json(nullptr) : Json(json_text(f.where.to_string()))},
                      {"doc", guest::check_doc(*info)},
                      {"source", info->source}});
    }
    write_json_document(ctx.out, {{"inputs", std::move(inputs)},
                                  {"nccl", std::move(nccl)},
                                  {"findings", std::move(list)},
                                  {"ready", ready}});
    return code;
  }

  for (const guest::Finding& f : findings) {
    if (!f.subject.empty()) ctx.out << f.subject << ": ";
    ctx.out << fmt::format("{}: {} [{} {}]\n", to_string(f.severity), f.message, f.id, f.name);
    if (!f.fix.empty()) ctx.out << "  fix: " << f.fix << '\n';
    if (f.severity != Severity::info) {
      ctx.out << "  doc: " << guest::check_doc(*guest::find_check(f.id)) << '\n';
    }
  }
  if (!pairs.empty()) {
    ctx.out << "\nNCCL at its defaults (NCCL_NET_GDR_LEVEL=PXB), each GPU and its nearest NIC"
            << (topo ? ", with NCCL_TOPO_FILE=" + topo->path : std::string()) << ":\n";
    for (const guest::NcclPair& p : pairs) {
      ctx.out << fmt::format("  {} -> {}: {}, GPUDirect RDMA {}{}\n", pair_gpu(g, p),
                             pair_nic(g, p), pci::to_string(p.cls), p.gdr ? "on" : "off",
                             p.from_smi_topo ? " (nvidia-smi topo -m)" : "");
    }
  }
  ctx.out << "\ninputs read:\n" << input_list(g);
  if (ready) {
    ctx.out << "guest ready for GPUDirect RDMA: no problems found\n";
  } else if (errors + warnings == 0) {
    ctx.out << fmt::format(
        "no problems in what the inputs show; {} check(s) not made: give the inputs named "
        "above before calling the guest ready\n",
        unchecked);
  } else {
    ctx.out << fmt::format("not ready: {} error(s), {} warning(s), {} check(s) not made\n", errors,
                           warnings, unchecked);
  }
  return code;
}

}  // namespace

void setup_guest_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<GuestCheckOptions>();
  auto* sub = app.add_subcommand(
      "guest-check",
      "Inside the VM: check the GPUDirect RDMA kernel path (nvidia_peermem or DMA-BUF), what "
      "NCCL does at its defaults for each GPU and its nearest NIC, BAR1, ATS, ACS and links in "
      "the guest's lspci, and the drivers; inputs are detected by content");
  sub->add_option("GUEST", o->inputs,
                  "Captures made in the guest (`-` for stdin): lspci -vvv / -tv, lsmod or "
                  "/proc/modules, /proc/cmdline, nvidia-smi (-q, topo -m), ibv_devinfo, uname "
                  "-r, `grep . /sys/module/*/version`, /proc/driver/nvidia/version, modinfo, "
                  "ofed_info -s; one file may hold several, each after its shell prompt line");
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
