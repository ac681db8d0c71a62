// SPDX-License-Identifier: Apache-2.0
// The live flow: vCenter or ESXi through the vSphere API (--server, --esx-host), on the public
// API's load_server_host() and lint_server().
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace CLI {
class App;
}

namespace vmxkit::cli {

/// --server URL, --insecure, --allow-http, --timeout, --batch-size, --verbose (and --esx-host where
/// a host is read). The server may also come from VMXKIT_SERVER.
struct ServerOptions {
  std::string server;
  bool insecure = false;
  bool allow_http = false;
  double timeout_s = 60;
  unsigned batch_size = 100;
  bool verbose = false;
  std::string esx_host;
};
void add_server_options(CLI::App& sub, ServerOptions& options, bool esx_host);

/// The server of the flags as the public API takes it; with --verbose, each request ("vmxkit: >
/// METHOD") and the connection ("vmxkit: connected to URL (NAME, API V)") said on stderr.
VsphereServer vsphere_server(const ServerOptions& options, Context& ctx);

/// vsphere_server() whose requests are counted from when it is made, for --verbose's "vmxkit: N
/// requests to URL in S s". Its hooks refer to it: it outlives every use of server().
class ServerSession {
 public:
  ServerSession(const ServerOptions& options, Context& ctx);
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;

  const VsphereServer& server() const { return server_; }
  /// With --verbose: "vmxkit: N requests to URL in S s" on stderr.
  void report_requests() const;

 private:
  const ServerOptions& options_;
  Context& ctx_;
  VsphereServer server_;
  std::size_t requests_ = 0;
  std::string endpoint_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The host of --esx-host from the server (load_server_host()), merged with any HOST inputs (an
/// `lspci -vvv` of the same host adds its BARs), finalized; its system UUID in `system_uuid`;
/// with `config_target`, its QueryConfigTarget answer (left empty, with a warning, when the
/// server gives none). The warnings it prints (the server's, the host's) are also added to
/// `warnings` when given.
Host read_server_host(const ServerOptions& options, const HostInputs& inputs, Context& ctx,
                      std::string* system_uuid = nullptr, std::string* config_target = nullptr,
                      std::vector<std::string>* warnings = nullptr);

/// Throws vmxkit::Error when --esx-host was given without a server or the other way round.
bool server_host_wanted(const ServerOptions& options);

/// lint --server (lint_server()): the live config of --vm NAME... (or the VM of
/// --uuid/--instance-uuid) or --all-vms (under --folder, --datacenter or --cluster), each linted
/// against the host it runs on. Returns the exit code.
struct LiveLintOptions {
  ServerOptions server;
  /// Which VMs (--vm, --uuid, --instance-uuid, --all-vms, --folder, --cluster, --datacenter),
  /// bound to the flags; its server, catalogue and rules are filled in from the fields below.
  ServerLintRequest request;
  std::string format = "text";
  Severity fail_on = Severity::warning;
  std::vector<std::string> catalogs;
  RuleSelection rules;  ///< --select, --ignore and their extend- forms
};
int run_lint_live(const LiveLintOptions& options, Context& ctx);

}  // namespace vmxkit::cli
