// SPDX-License-Identifier: Apache-2.0
// The facade's reads of a server (vmxkit/vmxkit.h): load_server_host() (the host of
// `--esx-host`) and lint_server() (`vmxkit lint --server`), over the vSphere client. Part of
// vmxkit_client (vmxkit::client), with the client they drive, so that vmxkit::core does not
// depend on it.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/api_client_internal.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/model/host.h"
#include "vmxkit/vmxkit.h"
#include "vmxkit/vsphere/apply.h"
#include "vmxkit/vsphere/client.h"

namespace vmxkit {

namespace {

namespace soap = vsphere::soap;

// --- the host of --esx-host

// What load_server_host() gathers besides the host.
struct ServerHostFacts {
  std::string system_uuid;
  std::string config_target;
  std::vector<std::string> warnings;
};

void warn_server_host(const ServerHostOptions& options, ServerHostFacts& facts,
                      std::string warning) {
  if (options.on_warning) options.on_warning(warning);
  facts.warnings.push_back(std::move(warning));
}

// What the server says of the host, into `host`; its system UUID and, when asked for, its
// QueryConfigTarget answer (a warning when there is none) into `facts`.
void read_host_from_server(pci::Host& host, const VsphereServer& server, std::string_view esx_host,
                           const ServerHostOptions& options, ServerHostFacts& facts) {
  const auto client = detail::connect(server);
  const pci::ApiHost api = vsphere::fetch_host(*client, esx_host);
  pci::load_vsphere_api(host, api, fmt::format("{} host {}", client->endpoint(), api.name));
  facts.system_uuid = api.system_uuid;
  if (options.config_target) {
    try {
      facts.config_target = vsphere::fetch_config_target(*client, api.moref);
    } catch (const Error& e) {
      // The host's device groups are a note, not the plan: say why there is none.
      warn_server_host(options, facts,
                       fmt::format("{}: no QueryConfigTarget answer for host {}: {}",
                                   client->endpoint(), api.name, e.what()));
    }
  }
  client->logout();
}

// --- lint --server

// A VM as the listing found it.
struct ListedVm {
  soap::Moref ref;
  std::string name;
  soap::Moref host;
};

void tell(const ServerLintEvents& events, ServerLintMessage::Kind kind, std::string text) {
  if (events.on_message) events.on_message(ServerLintMessage{kind, std::move(text)});
}

// --datacenter, with --folder under it (`gpu` or `vm/gpu`): an inventory path.
std::string datacenter_path(const ServerLintRequest& r) {
  if (r.folder.empty()) return "/" + r.datacenter;
  if (r.folder.starts_with('/')) return r.folder;
  const bool under_vm = r.folder == "vm" || r.folder.starts_with("vm/");
  return "/" + r.datacenter + (under_vm ? "/" : "/vm/") + r.folder;
}

// The container --folder, --datacenter or --cluster names, or the root folder.
soap::Moref find_container(vsphere::Client& client, const ServerLintRequest& r) {
  if (!r.folder.empty() && !r.cluster.empty()) {
    throw Error("lint: --folder and --cluster exclude each other");
  }
  if (!r.datacenter.empty() && !r.cluster.empty()) {
    throw Error("lint: --datacenter and --cluster exclude each other");
  }
  if (!r.datacenter.empty()) {
    const std::string path = datacenter_path(r);
    if (auto ref = client.find_by_inventory_path(path)) return *ref;
    throw Error(fmt::format("{}: nothing at inventory path '{}'", client.endpoint(), path));
  }
  if (r.folder.empty() && r.cluster.empty()) return client.content().root_folder;
  const bool folder = !r.folder.empty();
  const std::string& name = folder ? r.folder : r.cluster;
  if (folder && name.starts_with('/')) {
    if (auto ref = client.find_by_inventory_path(name)) return *ref;
    throw Error(fmt::format("{}: nothing at inventory path '{}'", client.endpoint(), name));
  }
  const auto found =
      client.list_names(client.content().root_folder, folder ? "Folder" : "ClusterComputeResource");
  std::vector<soap::Moref> match;
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
std::vector<ListedVm> list_vms(vsphere::Client& client, const soap::Moref& container,
                               const ServerLintEvents& events) {
  const soap::Moref view = client.create_container_view(container, "VirtualMachine");
  std::vector<ListedVm> out;
  soap::PropertyQuery q;
  q.type = "VirtualMachine";
  q.paths = {"name", "runtime.host"};
  q.view = view;
  // The listing is small per VM: ten times the config batch.
  q.max_objects = client.max_objects() * 10;
  client.retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& r) {
    for (const soap::ObjectContent& o : r.objects) {
      out.push_back({o.obj, soap::text(o.prop("name")), soap::parse_moref(o.prop("runtime.host"))});
    }
    if (!r.token.empty()) {
      tell(events, ServerLintMessage::Kind::progress, fmt::format("{} VMs listed...", out.size()));
    }
  });
  client.destroy_view(view);
  return out;
}

// Keeps the VMs `names` name (by name or moref); returns the names that match none, each also
// told as an error.
std::vector<std::string> keep_named(std::vector<ListedVm>& vms,
                                    const std::vector<std::string>& names,
                                    const vsphere::Client& client, const ServerLintEvents& events) {
  std::vector<std::string> not_found;
  std::vector<ListedVm> picked;
  for (const std::string& name : names) {
    std::size_t found = 0;
    for (const ListedVm& vm : vms) {
      if (vm.name == name || vm.ref.value == name) {
        picked.push_back(vm);
        ++found;
      }
    }
    if (found == 0) {
      tell(events, ServerLintMessage::Kind::error,
           fmt::format("{}: no VM named '{}'", client.endpoint(), name));
      not_found.push_back(name);
    }
  }
  vms = std::move(picked);
  return not_found;
}

using HostsByRef = std::map<soap::Moref, std::unique_ptr<pci::Host>>;

// The hosts the VMs run on, all in one request. A host that cannot be read is a warning: its
// VMs are linted without it.
HostsByRef read_vm_hosts(vsphere::Client& client, const std::vector<ListedVm>& vms,
                         const pci::Catalog& catalog, const ServerLintEvents& events) {
  HostsByRef hosts;
  std::set<soap::Moref> wanted;
  for (const ListedVm& vm : vms) {
    if (!vm.host.empty()) wanted.insert(vm.host);
  }
  for (const pci::ApiHost& api : vsphere::fetch_hosts(client, {wanted.begin(), wanted.end()})) {
    auto host = std::make_unique<pci::Host>(catalog);
    try {
      pci::load_vsphere_api(*host, api, fmt::format("{} host {}", client.endpoint(), api.name));
      host->finalize();
      hosts[{"HostSystem", api.moref}] = std::move(host);
    } catch (const Error& e) {
      tell(events, ServerLintMessage::Kind::warning,
           fmt::format("{}; its VMs are linted without it", e.what()));
    }
  }
  return hosts;
}

// What linting the VMs' configs, batch by batch, shares.
struct ServerLintRun {
  const ServerLintRequest& request;
  const ServerLintEvents& events;
  vsphere::Client& client;
  std::string server_name;  ///< the server's host name: VMs are `NAME/vm/VM`
  const HostsByRef& hosts;
  ServerLintSummary summary;
};

using VmsByRef = std::map<soap::Moref, const ListedVm*>;

// Lints the answer's VM `i`, which is `vm`, with the host it runs on.
void lint_listed_vm(ServerLintRun& run, const vsphere::Loaded& loaded, std::size_t i,
                    const ListedVm& vm) {
  checks::LintOptions options;
  options.catalog = &detail::internal_catalog(run.request.catalog);
  if (const auto h = run.hosts.find(vm.host); h != run.hosts.end()) options.host = h->second.get();
  checks::LintResult r =
      checks::lint_loaded_vm(fmt::format("{}/vm/{}", run.server_name, vm.name), loaded, i, options);
  run.request.rules.filter(r.diagnostics);
  ++run.summary.linted;
  if (run.events.on_report) run.events.on_report(detail::to_lint_report(std::move(r)));
}

// One RetrievePropertiesEx answer: read as one document, then each VM config in it linted.
// `with_config` are the answer's VMs that have a config, in answer order.
void lint_server_answer(ServerLintRun& run, const VmsByRef& by_ref, const soap::Response& response,
                        const std::vector<const ListedVm*>& with_config) {
  const vsphere::Loaded loaded = vsphere::load(
      fmt::format("{}/RetrievePropertiesEx#{}", run.server_name, run.client.requests()),
      std::string(response.source->bytes()));
  if (loaded.vms.size() != with_config.size()) {
    throw Error(fmt::format("{}: the answer holds {} VM configs, the reader found {}",
                            run.client.endpoint(), with_config.size(), loaded.vms.size()));
  }
  for (std::size_t i = 0; i < loaded.vms.size(); ++i) {
    // The reader names each VM by its moref; in answer order otherwise.
    const ListedVm* found = with_config[i];
    if (const auto it = by_ref.find({"VirtualMachine", loaded.vms[i].moref});
        !loaded.vms[i].moref.empty() && it != by_ref.end()) {
      found = it->second;
    }
    lint_listed_vm(run, loaded, i, *found);
  }
}

// The VMs from `first` on, as many as one answer holds: their configs in one retrieve, linted
// answer by answer; then the VMs that vanished while they were listed.
void lint_server_batch(ServerLintRun& run, const std::vector<ListedVm>& vms, std::size_t first) {
  const std::size_t batch = run.client.max_objects();
  VmsByRef by_ref;
  soap::PropertyQuery q;
  q.type = "VirtualMachine";
  q.paths = {"config"};
  for (std::size_t i = first; i < vms.size() && i < first + batch; ++i) {
    q.objects.push_back(vms[i].ref);
    by_ref[vms[i].ref] = &vms[i];
  }
  std::set<soap::Moref> seen;
  run.client.retrieve(q, [&](const soap::Response& response, const soap::RetrieveResult& result) {
    std::vector<const ListedVm*> with_config;
    for (const soap::ObjectContent& obj : result.objects) {
      const auto it = by_ref.find(obj.obj);
      if (it == by_ref.end() || !obj.prop("config")) continue;  // vanished: told below
      with_config.push_back(it->second);
      seen.insert(obj.obj);
    }
    if (with_config.empty()) return;
    lint_server_answer(run, by_ref, response, with_config);
  });
  for (const auto& [ref, vm] : by_ref) {
    if (seen.count(ref)) continue;
    tell(run.events, ServerLintMessage::Kind::error,
         fmt::format("{}: VM '{}' ({}) vanished while it was listed "
                     "(ManagedObjectNotFound); not linted",
                     run.client.endpoint(), vm->name, ref.value));
    ++run.summary.vanished;
    if (run.events.on_vanished) run.events.on_vanished(ServerVm{vm->name, ref.value});
  }
}

// The VMs the request selects, with the names of `vms` that match none.
std::vector<ListedVm> select_vms(vsphere::Client& client, const ServerLintRequest& r,
                                 const ServerLintEvents& events,
                                 std::vector<std::string>& not_found) {
  const soap::Moref container = find_container(client, r);
  std::vector<std::string> names = r.vms;
  if (!r.uuid.empty()) {
    // SearchIndex.FindByUuid, as apply finds a VM: then linted by its moref.
    vsphere::VmSelector which;
    which.uuid = r.uuid;
    which.instance_uuid = r.instance_uuid;
    which.datacenter = r.datacenter;
    names = {vsphere::find_vm(client, which).value};
  }
  std::vector<ListedVm> vms = list_vms(client, container, events);
  if (!r.all_vms) not_found = keep_named(vms, names, client, events);
  return vms;
}

}  // namespace

ServerHost load_server_host(const VsphereServer& server, std::string_view esx_host,
                            const ServerHostOptions& options) {
  pci::Host host(detail::internal_catalog(options.catalog));
  ServerHostFacts facts;
  read_host_from_server(host, server, esx_host, options, facts);
  if (options.on_server_read) options.on_server_read();
  for (const HostSource& s : options.sources) {
    if (s.text) {
      pci::load_text(host, *s.text, s.path);
    } else {
      pci::load_source(host, s.path);
    }
  }
  host.finalize();
  Host loaded = detail::wrap_host(std::move(host), options.catalog);
  for (const std::string& w : loaded.warnings()) warn_server_host(options, facts, w);
  return ServerHost{std::move(loaded), std::move(facts.system_uuid), std::move(facts.config_target),
                    std::move(facts.warnings)};
}

void ServerLintRequest::validate() const {
  const int ways = int{!vms.empty()} + int{all_vms} + int{!uuid.empty()};
  if (ways == 0) throw Error("lint --server: give --vm NAME..., --uuid UUID or --all-vms");
  if (ways > 1) throw Error("lint: --vm, --uuid and --all-vms exclude each other");
}

ServerLintSummary lint_server(const ServerLintRequest& request, const ServerLintEvents& events) {
  request.validate();
  const auto client = detail::connect(request.server);
  std::vector<std::string> not_found;
  const std::vector<ListedVm> vms = select_vms(*client, request, events, not_found);
  const HostsByRef hosts =
      read_vm_hosts(*client, vms, detail::internal_catalog(request.catalog), events);
  ServerLintRun run{request, events, *client, vsphere::parse_server_url(client->endpoint()).host,
                    hosts,   {}};
  run.summary.not_found = std::move(not_found);
  if (events.on_begin) events.on_begin(vms.size());
  const std::size_t batch = client->max_objects();
  for (std::size_t first = 0; first < vms.size(); first += batch) {
    lint_server_batch(run, vms, first);
    const std::size_t done = std::min(vms.size(), first + batch);
    if (vms.size() > batch) {
      tell(events, ServerLintMessage::Kind::progress,
           fmt::format("{}/{} VMs linted", done, vms.size()));
    }
  }
  if (events.on_end) events.on_end();
  client->logout();
  return run.summary;
}

}  // namespace vmxkit
