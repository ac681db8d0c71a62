// SPDX-License-Identifier: Apache-2.0
#include "cli/live.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>

#include "cli/cli.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/report/lint_report.h"
#include "vmxkit/vsphere/apply.h"

namespace vmxkit::cli {

using report::make_report_writer, report::ReportWriter;

namespace {

const std::map<std::string, Severity> kSeverities = {{"error", Severity::error},
                                                     {"warning", Severity::warning},
                                                     {"info", Severity::info},
                                                     {"style", Severity::style}};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A VM as the listing found it.
struct LiveVm {
  vsphere::soap::Moref ref;
  std::string name;
  vsphere::soap::Moref host;
};

// --datacenter, with --folder under it (`gpu` or `vm/gpu`): an inventory path.
std::string datacenter_path(const LiveLintOptions& o) {
  if (o.folder.empty()) return "/" + o.datacenter;
  if (o.folder.starts_with('/')) return o.folder;
  const bool under_vm = o.folder == "vm" || o.folder.starts_with("vm/");
  return "/" + o.datacenter + (under_vm ? "/" : "/vm/") + o.folder;
}

// The container --folder, --datacenter or --cluster names, or the root folder.
vsphere::soap::Moref find_container(vsphere::Client& client, const LiveLintOptions& o) {
  if (!o.folder.empty() && !o.cluster.empty()) {
    throw Error("lint: --folder and --cluster exclude each other");
  }
  if (!o.datacenter.empty() && !o.cluster.empty()) {
    throw Error("lint: --datacenter and --cluster exclude each other");
  }
  if (!o.datacenter.empty()) {
    const std::string path = datacenter_path(o);
    if (auto ref = client.find_by_inventory_path(path)) return *ref;
    throw Error(fmt::format("{}: nothing at inventory path '{}'", client.endpoint(), path));
  }
  if (o.folder.empty() && o.cluster.empty()) return client.content().root_folder;
  const bool folder = !o.folder.empty();
  const std::string& name = folder ? o.folder : o.cluster;
  if (folder && name.starts_with('/')) {
    if (auto ref = client.find_by_inventory_path(name)) return *ref;
    throw Error(fmt::format("{}: nothing at inventory path '{}'", client.endpoint(), name));
  }
  const auto found =
      client.list_names(client.content().root_folder, folder ? "Folder" : "ClusterComputeResource");
  std::vector<vsphere::soap::Moref> match;
  for (const auto& [ref, n] : found) {
    if (n == name || ref.value == name) match.push_back(ref);
  }
  if (match.size() != 1) {
    throw Error(fmt::format("{}: {} {} named '{}'{}", client.endpoint(),
                            match.empty() ? "no" : std::to_string(match.size()),
                            folder ? "folder" : "cluster", name,
                            match.empty() ? "" : " (give an inventory path: /DC/vm/...)"));
  }
  return match.front();
}

// Every VM under the container: name and the host it runs on, in batches.
std::vector<LiveVm> list_vms(vsphere::Client& client, const vsphere::soap::Moref& container,
                             Context& ctx) {
  const vsphere::soap::Moref view = client.create_container_view(container, "VirtualMachine");
  std::vector<LiveVm> out;
  vsphere::soap::PropertyQuery q;
  q.type = "VirtualMachine";
  q.paths = {"name", "runtime.host"};
  q.view = view;
  // The listing is small per VM: ten times the config batch.
  q.max_objects = client.max_objects() * 10;
  client.retrieve(q, [&](const vsphere::soap::Response&, const vsphere::soap::RetrieveResult& r) {
    for (const vsphere::soap::ObjectContent& o : r.objects) {
      out.push_back({o.obj, vsphere::soap::text(o.prop("name")),
                     vsphere::soap::parse_moref(o.prop("runtime.host"))});
    }
    if (!r.token.empty()) ctx.err << fmt::format("vmxkit: {} VMs listed...\n", out.size());
  });
  client.destroy_view(view);
  return out;
}

// Keeps the VMs --vm names (by name or moref); false when a name matches none (said on stderr).
bool keep_named(std::vector<LiveVm>& vms, const std::vector<std::string>& names,
                const vsphere::Client& client, Context& ctx) {
  bool all_found = true;
  std::vector<LiveVm> picked;
  for (const std::string& name : names) {
    std::size_t found = 0;
    for (const LiveVm& vm : vms) {
      if (vm.name == name || vm.ref.value == name) {
        picked.push_back(vm);
        ++found;
      }
    }
    if (found == 0) {
      ctx.err << fmt::format("vmxkit: error: {}: no VM named '{}'\n", client.endpoint(), name);
      all_found = false;
    }
  }
  vms = std::move(picked);
  return all_found;
}

using HostsByRef = std::map<vsphere::soap::Moref, std::unique_ptr<pci::Host>>;

// The hosts the VMs run on, all in one request, each read as the VM's --host. A host that
// cannot be read is a warning: its VMs are linted without it.
HostsByRef read_hosts(vsphere::Client& client, const std::vector<LiveVm>& vms,
                      const pci::Catalog& catalog, Context& ctx) {
  HostsByRef hosts;
  std::set<vsphere::soap::Moref> wanted;
  for (const LiveVm& vm : vms) {
    if (!vm.host.empty()) wanted.insert(vm.host);
  }
  for (const pci::ApiHost& api : vsphere::fetch_hosts(client, {wanted.begin(), wanted.end()})) {
    auto host = std::make_unique<pci::Host>(catalog);
    try {
      pci::load_vsphere_api(*host, api, fmt::format("{} host {}", client.endpoint(), api.name));
      host->finalize();
      hosts[{"HostSystem", api.moref}] = std::move(host);
    } catch (const Error& e) {
      ctx.err << fmt::format("vmxkit: warning: {}; its VMs are linted without it\n", e.what());
    }
  }
  return hosts;
}

// What linting the VMs' configs, batch by batch, shares: what each VM is linted with, where the
// results go, and the outcome so far.
struct LiveLint {
  const LiveLintOptions& o;
  vsphere::Client& client;
  const std::string& server_name;
  const pci::Catalog& catalog;
  const HostsByRef& hosts;
  Severity threshold;
  ReportWriter& writer;
  Context& ctx;
  bool findings = false;
  bool input_error = false;
};

using VmsByRef = std::map<vsphere::soap::Moref, const LiveVm*>;

// Lints the answer's VM `i`, which is `vm`, with the host it runs on.
void lint_vm(LiveLint& run, const vsphere::Loaded& loaded, std::size_t i, const LiveVm& vm) {
  checks::LintOptions options;
  options.catalog = &run.catalog;
  if (const auto h = run.hosts.find(vm.host); h != run.hosts.end()) options.host = h->second.get();
  checks::LintResult r =
      checks::lint_loaded_vm(fmt::format("{}/vm/{}", run.server_name, vm.name), loaded, i, options);
  run.o.rules.filter(r.diagnostics);
  for (const Diagnostic& d : r.diagnostics) {
    if (static_cast<int>(d.severity) <= static_cast<int>(run.threshold)) run.findings = true;
  }
  run.writer.add(r);
}

// One RetrievePropertiesEx answer: read as one document, then each VM config in it linted.
// `with_config` are the answer's VMs that have a config, in answer order.
void lint_answer(LiveLint& run, const VmsByRef& by_ref, const vsphere::soap::Response& response,
                 const std::vector<const LiveVm*>& with_config) {
  const vsphere::Loaded loaded = vsphere::load(
      fmt::format("{}/RetrievePropertiesEx#{}", run.server_name, run.client.requests()),
      std::string(response.source->bytes()));
  if (loaded.vms.size() != with_config.size()) {
    throw Error(fmt::format("{}: the answer holds {} VM configs, the reader found {}",
                            run.client.endpoint(), with_config.size(), loaded.vms.size()));
  }
  for (std::size_t i = 0; i < loaded.vms.size(); ++i) {
    // The reader names each VM by its moref; in answer order otherwise.
    const LiveVm* found = with_config[i];
    if (const auto it = by_ref.find({"VirtualMachine", loaded.vms[i].moref});
        !loaded.vms[i].moref.empty() && it != by_ref.end()) {
      found = it->second;
    }
    lint_vm(run, loaded, i, *found);
  }
}

// The VMs from `first` on, as many as one answer holds: their configs in one retrieve, linted
// answer by answer; then the VMs that vanished while they were listed.
void lint_batch(LiveLint& run, const std::vector<LiveVm>& vms, std::size_t first) {
  const std::size_t batch = run.client.max_objects();
  VmsByRef by_ref;
  vsphere::soap::PropertyQuery q;
  q.type = "VirtualMachine";
  q.paths = {"config"};
  for (std::size_t i = first; i < vms.size() && i < first + batch; ++i) {
    q.objects.push_back(vms[i].ref);
    by_ref[vms[i].ref] = &vms[i];
  }
  std::set<vsphere::soap::Moref> seen;
  run.client.retrieve(
      q, [&](const vsphere::soap::Response& response, const vsphere::soap::RetrieveResult& result) {
        std::vector<const LiveVm*> with_config;
        for (const vsphere::soap::ObjectContent& obj : result.objects) {
          const auto it = by_ref.find(obj.obj);
          if (it == by_ref.end() || !obj.prop("config")) continue;  // vanished: reported below
          with_config.push_back(it->second);
          seen.insert(obj.obj);
        }
        if (with_config.empty()) return;
        lint_answer(run, by_ref, response, with_config);
      });
  for (const auto& [ref, vm] : by_ref) {
    if (seen.count(ref)) continue;
    run.ctx.err << fmt::format(
        "vmxkit: error: {}: VM '{}' ({}) vanished while it was listed "
        "(ManagedObjectNotFound); not linted\n",
        run.client.endpoint(), vm->name, ref.value);
    run.writer.add_unread();
    run.input_error = true;
  }
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

std::unique_ptr<vsphere::Client> open_client(const ServerOptions& o, Context& ctx) {
  vsphere::ClientOptions options = vsphere::options_from_environment(o.server, o.insecure);
  options.allow_http = o.allow_http;
  options.timeout_ms = static_cast<long>(o.timeout_s * 1000);
  options.connect_timeout_ms = std::min(options.connect_timeout_ms, options.timeout_ms);
  options.max_objects = o.batch_size;
  if (o.verbose) {
    options.on_request = [&ctx](std::string_view method) {
      ctx.err << "vmxkit: > " << method << '\n';
    };
  }
  auto client = std::make_unique<vsphere::Client>(std::move(options));
  client->connect();
  if (o.verbose) {
    ctx.err << fmt::format("vmxkit: connected to {} ({}, API {})\n", client->endpoint(),
                           client->content().full_name, client->content().api_version);
  }
  return client;
}

void report_requests(const vsphere::Client& client, const ServerOptions& o, double seconds,
                     Context& ctx) {
  if (!o.verbose) return;
  ctx.err << fmt::format("vmxkit: {} requests to {} in {:.2f} s\n", client.requests(),
                         client.endpoint(), seconds);
}

namespace {

// HOST inputs (positional first, then --host; `-` = stdin) into `host`, which may already hold
// what the vSphere API said; finalizes it and prints its warnings.
void load_host_inputs_into(pci::Host& host, const HostInputs& inputs, Context& ctx) {
  for (const auto* list : {&inputs.positional, &inputs.flagged.hosts}) {
    for (const std::string& source : *list) {
      if (source == "-") {
        const std::string text = read_stream(ctx.in, "<stdin>");
        pci::load_text(host, text, "<stdin>");
      } else {
        pci::load_source(host, source);
      }
    }
  }
  host.finalize();
  for (const pci::HostWarning& w : host.warnings()) {
    ctx.err << "vmxkit: warning: " << w.to_string() << '\n';
  }
}

// read_server_host() into `host` (made with the catalogue the caller keeps).
void read_server_host_into(pci::Host& host, const ServerOptions& o, const HostInputs& inputs,
                           Context& ctx, std::string* system_uuid, std::string* config_target,
                           std::vector<std::string>* warnings) {
  const auto start = std::chrono::steady_clock::now();
  {
    const auto client = open_client(o, ctx);
    const pci::ApiHost api = vsphere::fetch_host(*client, o.esx_host);
    pci::load_vsphere_api(host, api, fmt::format("{} host {}", client->endpoint(), api.name));
    if (system_uuid != nullptr) *system_uuid = api.system_uuid;
    if (config_target != nullptr) {
      try {
        *config_target = vsphere::fetch_config_target(*client, api.moref);
      } catch (const Error& e) {
        // The host's device groups are a note, not the plan: say why there is none.
        const std::string warning = fmt::format("{}: no QueryConfigTarget answer for host {}: {}",
                                                client->endpoint(), api.name, e.what());
        ctx.err << "vmxkit: warning: " << warning << '\n';
        if (warnings != nullptr) warnings->push_back(warning);
      }
    }
    client->logout();
    report_requests(*client, o, seconds_since(start), ctx);
  }
  load_host_inputs_into(host, inputs, ctx);
  if (warnings != nullptr) {
    for (const pci::HostWarning& w : host.warnings()) warnings->push_back(w.to_string());
  }
}

}  // namespace

Host read_server_host(const ServerOptions& o, const HostInputs& inputs, Context& ctx,
                      std::string* system_uuid, std::string* config_target,
                      std::vector<std::string>* warnings) {
  const Catalog catalog = load_catalog(inputs.flagged.catalogs);
  pci::Host host(detail::internal_catalog(catalog));
  read_server_host_into(host, o, inputs, ctx, system_uuid, config_target, warnings);
  return detail::wrap_host(std::move(host), catalog);
}

int run_lint_live(const LiveLintOptions& o, Context& ctx) {
  const int ways = int{!o.vms.empty()} + int{o.all_vms} + int{!o.uuid.empty()};
  if (ways == 0) throw Error("lint --server: give --vm NAME..., --uuid UUID or --all-vms");
  if (ways > 1) throw Error("lint: --vm, --uuid and --all-vms exclude each other");
  const auto start = std::chrono::steady_clock::now();
  const pci::Catalog catalog = pci::catalog_with(o.catalogs);
  const auto client = open_client(o.server, ctx);
  const std::string server_name = vsphere::parse_server_url(client->endpoint()).host;
  const vsphere::soap::Moref container = find_container(*client, o);
  std::vector<std::string> names = o.vms;
  if (!o.uuid.empty()) {
    // SearchIndex.FindByUuid, as apply finds a VM: then linted by its moref.
    vsphere::VmSelector which;
    which.uuid = o.uuid;
    which.instance_uuid = o.instance_uuid;
    which.datacenter = o.datacenter;
    names = {vsphere::find_vm(*client, which).value};
  }
  std::vector<LiveVm> vms = list_vms(*client, container, ctx);
  const bool all_named = o.all_vms || keep_named(vms, names, *client, ctx);
  const HostsByRef hosts = read_hosts(*client, vms, catalog, ctx);
  const Severity threshold = kSeverities.at(o.fail_on);
  const auto writer = make_report_writer(o.format, ctx.out, ctx.color_out);
  LiveLint run{o, *client, server_name, catalog, hosts, threshold, *writer, ctx};
  run.input_error = !all_named;
  std::size_t done = 0;
  const std::size_t batch = client->max_objects();
  for (std::size_t first = 0; first < vms.size(); first += batch) {
    lint_batch(run, vms, first);
    done = std::min(vms.size(), first + batch);
    if (vms.size() > batch) ctx.err << fmt::format("vmxkit: {}/{} VMs linted\n", done, vms.size());
  }
  writer->finish();
  client->logout();
  report_requests(*client, o.server, seconds_since(start), ctx);
  if (run.input_error) return kExitInput;
  return run.findings ? kExitFindings : kExitClean;
}

}  // namespace vmxkit::cli
