// SPDX-License-Identifier: Apache-2.0
// The live flow: vCenter or ESXi through the vSphere API (--server, --esx-host).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/common.h"
#include "cli/rule_selection.h"
#include "vmxkit/vsphere/client.h"

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

/// A connected client (logged in), reporting each request on stderr with --verbose.
std::unique_ptr<vsphere::Client> open_client(const ServerOptions& options, Context& ctx);
/// With --verbose: "vmxkit: N requests to URL in S s" on stderr.
void report_requests(const vsphere::Client& client, const ServerOptions& options, double seconds,
                     Context& ctx);

/// The host of --esx-host from the server, merged with any HOST inputs (an `lspci -vvv` of the
/// same host adds its BARs), finalized; its system UUID in `system_uuid`; with `config_target`,
/// its QueryConfigTarget answer (left empty, with a warning, when the server gives none). The
/// warnings it prints (the server's, the host's) are also added to `warnings` when given.
Host read_server_host(const ServerOptions& options, const HostInputs& inputs, Context& ctx,
                      std::string* system_uuid = nullptr, std::string* config_target = nullptr,
                      std::vector<std::string>* warnings = nullptr);

/// Throws vmxkit::Error when --esx-host was given without a server or the other way round.
bool server_host_wanted(const ServerOptions& options);

/// lint --server: the live config of --vm NAME... (or the VM of --uuid/--instance-uuid) or
/// --all-vms (under --folder, --datacenter or --cluster), each linted against the host it runs
/// on. Returns the exit code.
struct LiveLintOptions {
  ServerOptions server;
  std::vector<std::string> vms;
  bool all_vms = false;
  std::string folder;
  std::string cluster;
  std::string datacenter;  ///< only VMs of this datacenter (--folder relative to it)
  std::string uuid;        ///< the VM by BIOS UUID (with instance_uuid: config.instanceUuid)
  bool instance_uuid = false;
  std::string format = "text";
  std::string fail_on = "warning";
  std::vector<std::string> catalogs;
  RuleSelection rules;  ///< --select, --ignore and their extend- forms
};
int run_lint_live(const LiveLintOptions& options, Context& ctx);

}  // namespace vmxkit::cli
