// SPDX-License-Identifier: Apache-2.0
// `vmxkit guest-check`'s report (guest_check.h), as text, JSON and SARIF.
#include "vmxkit/report/guest_check.h"

#include <fmt/format.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "vmxkit/analysis/nccl_log.h"
#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/core/text.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/report/json.h"
#include "vmxkit/report/sarif.h"

namespace vmxkit::report {

namespace {

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

const char* pair_from(const guest::NcclPair& p) {
  return p.from_nccl_topo ? "NCCL_TOPO_FILE" : p.from_smi_topo ? "nvidia-smi topo -m" : "lspci";
}

// --- what NCCL's log says it decided (NcclLog, analysis/nccl_log.h) ---

std::string gdr_decision_gpu(const checks::GuestContext& ctx, const guest::NcclGdrDecision& d) {
  return d.gpu_index ? ctx.describe(*d.gpu_index) : "GPU " + d.line->gpu;
}

std::string gdr_decision_hca(const guest::NcclGdrDecision& d) {
  return "HCA " + d.line->hca + (d.nic_name.empty() ? "" : " (" + d.nic_name + ")");
}

// "6 (PHB)" or "6" where the log gives no version to name it.
std::string path_number(int number, const std::optional<guest::NcclPathType>& type) {
  return type ? fmt::format("{} ({})", number, guest::to_string(*type)) : std::to_string(number);
}

std::string channel_counts(const guest::NcclLog& log) {
  const guest::NcclNetUse u = guest::nccl_net_use(log);
  return fmt::format("{} via NET with GDRDMA, {} via NET without, {} via NET/Socket, {} P2P or SHM",
                     u.with_gdr.size(), u.without_gdr.size(), u.socket.size(), u.other);
}

void write_nccl_log_text(std::ostream& out, const checks::GuestContext& ctx) {
  const auto& log = ctx.guest().nccl_log();
  if (!log) return;
  std::string devices;
  for (const guest::NcclNetDevice& d : log->ib_devices) {
    devices += (devices.empty() ? " (" : ", ") + d.name + (d.link.empty() ? "" : "/" + d.link);
  }
  out << fmt::format("\nNCCL's log: {}, network {}{}\n",
                     log->version ? "NCCL " + log->version->value : "no NCCL version line",
                     log->network ? log->network->value : "not said",
                     devices.empty() ? "" : devices + ")");
  for (const auto& [name, fact] : log->env) {
    out << fmt::format("  {}={} (set by environment)\n", name, fact.value);
  }
  for (const guest::NcclGdrDecision& d : guest::nccl_gdr_decisions(ctx.guest())) {
    out << fmt::format("  GPU Direct RDMA {}: {} - {}: distance {} {} {}\n",
                       d.line->enabled ? "on" : "off", gdr_decision_gpu(ctx, d),
                       gdr_decision_hca(d), path_number(d.line->distance, d.distance),
                       d.line->enabled ? "<=" : ">", path_number(d.line->level, d.level));
  }
  for (const guest::NcclHcaGdrLine& h : log->hca_gdr) {
    if (!h.enabled) {
      out << fmt::format("  GPU Direct RDMA unsupported for HCA {} '{}'\n", h.index, h.name);
    }
  }
  if (!log->channels.empty()) out << "  channels: " << channel_counts(*log) << '\n';
}

Json nccl_log_json(const checks::GuestContext& ctx) {
  const auto& log = ctx.guest().nccl_log();
  if (!log) return nullptr;
  Json devices = Json::array();
  for (const guest::NcclNetDevice& d : log->ib_devices) devices.push_back(json_text(d.name));
  Json env = Json::object();
  for (const auto& [name, fact] : log->env) env[name] = json_text(fact.value);
  Json gdr = Json::array();
  for (const guest::NcclGdrDecision& d : guest::nccl_gdr_decisions(ctx.guest())) {
    const auto type = [](const std::optional<guest::NcclPathType>& t) {
      return t ? Json(std::string(guest::to_string(*t))) : Json(nullptr);
    };
    gdr.push_back({{"gpu", json_text(gdr_decision_gpu(ctx, d))},
                   {"hca", json_text(gdr_decision_hca(d))},
                   {"enabled", d.line->enabled},
                   {"distance", d.line->distance},
                   {"distance_type", type(d.distance)},
                   {"level", d.line->level},
                   {"level_type", type(d.level)},
                   {"location", json_text(d.line->where.to_string())}});
  }
  const guest::NcclNetUse u = guest::nccl_net_use(*log);
  return {{"version", log->version ? Json(json_text(log->version->value)) : Json(nullptr)},
          {"network", log->network ? Json(json_text(log->network->value)) : Json(nullptr)},
          {"devices", std::move(devices)},
          {"env", std::move(env)},
          {"gdr", std::move(gdr)},
          {"channels",
           {{"net_gdrdma", u.with_gdr.size()},
            {"net", u.without_gdr.size()},
            {"socket", u.socket.size()},
            {"other", u.other}}}};
}

// The check's section of docs/rules.md: "docs/rules.md#guest002-nccl-no-gdr".
std::string doc_link(const checks::Check& c) {
  return "docs/rules.md#" + ascii_lowercase(fmt::format("{}-{}", c.id, c.name));
}

// The `## References` of a check's doc on one line, its items joined by "; ".
std::string references(std::string_view doc) {
  constexpr std::string_view kHeading = "## References\n";
  const auto at = doc.find(kHeading);
  if (at == std::string_view::npos) return {};
  std::string out;
  std::string_view rest = doc.substr(at + kHeading.size());
  while (!rest.empty()) {
    const auto eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 1);
    if (line.starts_with("## ")) break;
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) continue;
    if (line.starts_with("- ")) {
      line.remove_prefix(2);
      if (!out.empty()) out += "; ";
    } else if (!out.empty()) {
      out += ' ';
    }
    out += line;
  }
  return out;
}

// The counts the summary line and the exit code rest on.
struct GuestSummary {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t unchecked = 0;  ///< GUEST012 findings: checks not made
  bool ready() const { return errors == 0 && warnings == 0 && unchecked == 0; }
};

GuestSummary summarize_guest(const std::vector<checks::Finding>& findings) {
  GuestSummary s;
  for (const checks::Finding& f : findings) {
    s.errors += f.severity == Severity::error;
    s.warnings += f.severity == Severity::warning;
    s.unchecked += f.check->id == "GUEST012";
  }
  return s;
}

Json finding_json(const checks::Finding& f) {
  const std::string location =
      f.where.path.empty() ? std::string() : fmt::format("{}:{}", f.where.path, f.where.line);
  return {{"id", f.check->id},
          {"name", f.check->name},
          {"severity", to_string(f.severity)},
          {"subject", f.subject.empty() ? Json(nullptr) : Json(json_text(f.subject))},
          {"message", json_text(f.message)},
          {"fix", f.fix.empty() ? Json(nullptr) : Json(json_text(f.fix))},
          {"location", location.empty() ? Json(nullptr) : Json(json_text(location))},
          {"doc", doc_link(*f.check)},
          {"source", references(f.check->doc)}};
}

}  // namespace

void write_guest_check_json(std::ostream& out, const checks::GuestContext& ctx,
                            const std::vector<checks::Finding>& findings) {
  const bool ready = summarize_guest(findings).ready();
  const guest::Guest& g = ctx.guest();
  Json inputs = Json::array();
  for (const guest::InputRead& r : g.inputs()) {
    inputs.push_back({{"kind", guest::to_string(r.kind)},
                      {"file", json_text(r.where.path)},
                      {"line", r.where.line},
                      {"command", r.command.empty() ? Json(nullptr) : Json(json_text(r.command))},
                      {"filtered", r.filtered}});
  }
  Json nccl = Json::array();
  for (const guest::NcclPair& p : ctx.nccl_view()) {
    nccl.push_back({{"gpu", json_text(pair_gpu(g, p))},
                    {"nic", json_text(pair_nic(g, p))},
                    {"path", pci::to_string(p.cls)},
                    {"from", pair_from(p)},
                    {"gdr_at_defaults", p.gdr}});
  }
  Json list = Json::array();
  for (const checks::Finding& f : findings) list.push_back(finding_json(f));
  write_json_document(out, {{"inputs", std::move(inputs)},
                            {"nccl", std::move(nccl)},
                            {"nccl_log", nccl_log_json(ctx)},
                            {"findings", std::move(list)},
                            {"ready", ready}});
}

void write_guest_check_text(std::ostream& out, const checks::GuestContext& ctx,
                            const std::vector<checks::Finding>& findings) {
  const GuestSummary s = summarize_guest(findings);
  const guest::Guest& g = ctx.guest();
  for (const checks::Finding& f : findings) {
    if (!f.subject.empty()) out << f.subject << ": ";
    out << fmt::format("{}: {} [{} {}]\n", to_string(f.severity), f.message, f.check->id,
                       f.check->name);
    if (!f.fix.empty()) out << "  fix: " << f.fix << '\n';
    if (f.severity != Severity::info) out << "  doc: vmxkit rule " << f.check->id << '\n';
  }
  if (!ctx.nccl_view().empty()) {
    out << "\nNCCL at its defaults (NCCL_NET_GDR_LEVEL=PXB), each GPU and its nearest NIC"
        << (ctx.nccl_topo() ? ", with NCCL_TOPO_FILE=" + ctx.nccl_topo()->path : std::string())
        << ":\n";
    for (const guest::NcclPair& p : ctx.nccl_view()) {
      out << fmt::format("  {} -> {}: {}, GPUDirect RDMA {}{}\n", pair_gpu(g, p), pair_nic(g, p),
                         pci::to_string(p.cls), p.gdr ? "on" : "off",
                         p.from_smi_topo ? " (nvidia-smi topo -m)" : "");
    }
  }
  write_nccl_log_text(out, ctx);
  out << "\ninputs read:\n" << input_list(g);
  if (s.ready()) {
    out << "guest ready for GPUDirect RDMA: no problems found\n";
  } else if (s.errors + s.warnings == 0) {
    out << fmt::format(
        "no problems in what the inputs show; {} check(s) not made: give the inputs named "
        "above before calling the guest ready\n",
        s.unchecked);
  } else {
    out << fmt::format("not ready: {} error(s), {} warning(s), {} check(s) not made\n", s.errors,
                       s.warnings, s.unchecked);
  }
}

bool guest_ready(const std::vector<checks::Finding>& findings) {
  return summarize_guest(findings).ready();
}

// SARIF 2.1.0 as lint writes it: the guest checks of the registry as the driver's rules, one
// result per finding, located at the input line the finding rests on (findings about what no
// input showed have no location). A fix is a command or setting, not an edit of the input, so
// it goes into the result's properties rather than SARIF's `fixes`.
void write_guest_check_sarif(std::ostream& out, const std::vector<checks::Finding>& findings) {
  SarifLog log(out, checks::checks_of(checks::Kind::guest));
  for (const checks::Finding& f : findings) {
    Json locations = Json::array();
    if (!f.where.path.empty()) {
      Json region = Json::object();
      if (f.where.line > 0) region["startLine"] = f.where.line;
      locations.push_back({{"physicalLocation", physical_location(artifact_location(f.where.path),
                                                                  std::move(region))}});
    }
    const std::string text = f.subject.empty() ? f.message : f.subject + ": " + f.message;
    Json result = log.result(f.check->id, f.severity, text, std::move(locations));
    if (!f.fix.empty()) result["properties"] = {{"fix", json_text(f.fix)}};
    log.add(result);
  }
  log.finish();
}

}  // namespace vmxkit::report
