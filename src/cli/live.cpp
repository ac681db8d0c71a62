// SPDX-License-Identifier: Apache-2.0
#include "cli/live.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <ostream>
#include <string_view>
#include <utility>

#include "cli/cli.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {

namespace {

// What lint_server() says while it works, as lint --server prints it.
void print_server_message(const ServerLintMessage& m, Context& ctx) {
  const char* kind = m.kind == ServerLintMessage::Kind::error     ? "error: "
                     : m.kind == ServerLintMessage::Kind::warning ? "warning: "
                                                                  : "";
  ctx.err << "vmxkit: " << kind << m.text << '\n';
}

}  // namespace

void add_server_options(CLI::App& sub, ServerOptions& o, bool esx_host) {
  sub.add_option("--server", o.server,
                 "vCenter or ESXi: https://user:password@host/sdk as govc's GOVC_URL (or "
                 "VMXKIT_SERVER; credentials also from VMXKIT_USERNAME/VMXKIT_PASSWORD, a session "
                 "cookie from VMXKIT_SESSION)");
  sub.add_flag("--insecure", o.insecure,
               "Do not verify the server's TLS certificate (or VMXKIT_INSECURE=1; a CA file "
               "in VMXKIT_CA_FILE verifies a private CA instead)");
  sub.add_flag("--allow-http", o.allow_http,
               "Send the credentials to a plain http:// server, unencrypted (refused without it)");
  sub.add_option("--timeout", o.timeout_s, "Seconds one request to the server may take")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  sub.add_option("--batch-size", o.batch_size,
                 "Objects per RetrievePropertiesEx answer (maxObjects)")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  sub.add_flag("--verbose", o.verbose,
               "Print each request to the server, and their count, on stderr");
  if (esx_host) {
    sub.add_option("--esx-host", o.esx_host,
                   "Read the host from the vSphere API: the ESXi host of this name (its PCI "
                   "devices, passthrough and SR-IOV state, NUMA nodes and system UUID)");
  }
}

bool server_host_wanted(const ServerOptions& o) {
  if (o.esx_host.empty()) {
    if (!o.server.empty()) throw Error("--server reads a host with --esx-host NAME: give it");
    return false;
  }
  return true;
}

VsphereServer vsphere_server(const ServerOptions& o, Context& ctx) {
  VsphereServer server;
  server.url = o.server;
  server.insecure = o.insecure;
  server.allow_http = o.allow_http;
  server.timeout = std::chrono::milliseconds(static_cast<long>(o.timeout_s * 1000));
  server.batch_size = o.batch_size;
  if (o.verbose) {
    server.on_request = [&ctx](std::string_view method) {
      ctx.err << "vmxkit: > " << method << '\n';
    };
    server.on_connected = [&ctx](const ServerInfo& info) {
      ctx.err << fmt::format("vmxkit: connected to {} ({}, API {})\n", info.endpoint,
                             info.full_name, info.api_version);
    };
  }
  return server;
}

ServerSession::ServerSession(const ServerOptions& options, Context& ctx)
    : options_(options), ctx_(ctx), server_(vsphere_server(options, ctx)) {
  server_.on_request = [this, say = std::move(server_.on_request)](std::string_view method) {
    if (say) say(method);
    ++requests_;
  };
  server_.on_connected = [this, say = std::move(server_.on_connected)](const ServerInfo& info) {
    endpoint_ = info.endpoint;
    if (say) say(info);
  };
}

void ServerSession::report_requests() const {
  if (!options_.verbose) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  ctx_.err << fmt::format("vmxkit: {} requests to {} in {:.2f} s\n", requests_, endpoint_, seconds);
}

Host read_server_host(const ServerOptions& o, const HostInputs& inputs, Context& ctx,
                      std::string* system_uuid, std::string* config_target,
                      std::vector<std::string>* warnings) {
  ServerHostOptions options;
  options.catalog = load_catalog(inputs.flagged.catalogs);
  options.sources = host_sources(inputs, ctx);
  options.config_target = config_target != nullptr;
  options.on_warning = [&ctx](std::string_view w) { ctx.err << "vmxkit: warning: " << w << '\n'; };
  ServerSession session(o, ctx);
  options.on_server_read = [&session] { session.report_requests(); };
  ServerHost read = load_server_host(session.server(), o.esx_host, options);
  if (system_uuid != nullptr) *system_uuid = std::move(read.system_uuid);
  if (config_target != nullptr) *config_target = std::move(read.config_target);
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), read.warnings.begin(), read.warnings.end());
  }
  return std::move(read.host);
}

int run_lint_live(const LiveLintOptions& o, Context& ctx) {
  ServerSession session(o.server, ctx);
  ServerLintRequest request = o.request;
  request.server = session.server();
  request.validate();  // before the catalogue is read, so that its errors come second
  request.catalog = load_catalog(o.catalogs);
  request.rules = o.rules;
  // The report begins once the VMs are listed and their hosts read, as it always did: a server
  // that fails before then leaves stdout empty.
  std::optional<LintReportWriter> writer;
  bool findings = false;
  ServerLintEvents events;
  events.on_begin = [&](std::size_t) {
    writer.emplace(
        o.format, [&ctx](std::string_view text) { ctx.out << text; }, ctx.color_out);
  };
  events.on_report = [&](const LintReport& report) {
    findings = findings || report.count_at_least(o.fail_on) > 0;
    writer->add(report);
  };
  events.on_vanished = [&](const ServerVm&) { writer->add_unread(); };
  events.on_end = [&] { writer->finish(); };
  events.on_message = [&ctx](const ServerLintMessage& m) { print_server_message(m, ctx); };
  const ServerLintSummary summary = lint_server(request, events);
  session.report_requests();
  if (!summary.not_found.empty() || summary.vanished > 0) return kExitInput;
  return findings ? kExitFindings : kExitClean;
}

}  // namespace vmxkit::cli
