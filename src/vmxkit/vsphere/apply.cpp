// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"

namespace vmxkit::vsphere {
namespace {

// Reads `objects` (VMs): name, config, power state, host; their configs as ConfigSpecs.
std::vector<ApplyVm> read_vms(Client& client, const std::vector<soap::Moref>& objects) {
  std::vector<ApplyVm> out;
  if (objects.empty()) return out;
  soap::PropertyQuery q;
  q.type = "VirtualMachine";
  q.paths = {"name", "config", "runtime.powerState", "runtime.host"};
  q.objects = objects;
  client.retrieve(q, [&](const soap::Response& response, const soap::RetrieveResult& result) {
    std::vector<ApplyVm> batch;
    for (const soap::ObjectContent& o : result.objects) {
      if (!o.prop("config")) continue;  // a VM being created has none yet
      ApplyVm vm;
      vm.ref = o.obj;
      vm.name = soap::text(o.prop("name"));
      vm.power_state = soap::text(o.prop("runtime.powerState"));
      vm.host = soap::parse_moref(o.prop("runtime.host"));
      vm.is_template = soap::text(o.prop("config").child("template")) == "true";
      vm.answer = std::string(response.source->bytes());
      batch.push_back(std::move(vm));
    }
    if (batch.empty()) return;
    const XmlDocument doc = read_vim25_xml(SourceFile(client.endpoint(), batch.front().answer));
    for (ApplyVm& vm : batch) {
      for (const XmlVm& x : doc.vms) {
        if (x.moref == vm.ref.value) vm.spec = x.spec;
      }
      out.push_back(std::move(vm));
    }
  });
  return out;
}

// The ids of ConfigTarget's pciPassthrough and sriov entries (pciDevice.id).
std::vector<std::string> config_target_ids(const soap::Response& r) {
  std::vector<std::string> ids;
  for (pugi::xml_node n = r.result.child("returnval").first_child(); n; n = n.next_sibling()) {
    const std::string_view name = n.name();
    if (name != "pciPassthrough" && name != "sriov") continue;
    const std::string id = soap::text(n.child("pciDevice").child("id"));
    if (!id.empty()) ids.push_back(ascii_lowercase(id));
  }
  return ids;
}

soap::Moref moref_of(Client& client, const soap::Moref& obj, const std::string& path) {
  soap::PropertyQuery q;
  q.type = obj.type;
  q.paths = {path};
  q.objects = {obj};
  soap::Moref out;
  client.retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& r) {
    for (const soap::ObjectContent& o : r.objects) out = soap::parse_moref(o.prop(path));
  });
  return out;
}

void read_config_target(Client& client, const soap::Moref& host, ApplyHost& out) {
  try {
    const soap::Moref compute = moref_of(client, host, "parent");
    const soap::Moref browser = moref_of(client, compute, "environmentBrowser");
    const soap::Response r =
        client.call("QueryConfigTarget", soap::query_config_target(browser, host));
    out.config_target_ids = config_target_ids(r);
    out.config_target_read = true;
  } catch (const Error& e) {
    out.config_target_error = e.what();
  }
}

const pci::ApiPciDevice* host_device(const pci::ApiHost& host, const std::string& id) {
  for (const pci::ApiPciDevice& d : host.devices) {
    if (iequals(d.id, id)) return &d;
  }
  return nullptr;
}

const pci::ApiPassthru* host_passthru(const pci::ApiHost& host, const std::string& id) {
  for (const pci::ApiPassthru& p : host.passthru) {
    if (iequals(p.id, id)) return &p;
  }
  return nullptr;
}

std::string hex_of(std::string_view id) {
  std::string s = ascii_lowercase(id);
  if (s.starts_with("0x")) s.erase(0, 2);
  const std::size_t first = s.find_first_not_of('0');
  return first == std::string::npos ? "0" : s.substr(first);
}

// A DirectPath device the plan adds: on the host, its ids, the host's systemId, enabled and
// active for passthrough, in the ConfigTarget, not held by another VM.
void check_device(const DeviceBacking& b, const ApplyHost& host, const ApplyVm& vm,
                  Preconditions& p) {
  const std::string& id = b.id;
  const pci::ApiPciDevice* dev = host_device(host.host, id);
  if (dev == nullptr) {
    p.failed.push_back(fmt::format("{}: not a PCI device of host {}", id, host.host.name));
    return;
  }
  if (hex_of(b.device_id) != fmt::format("{:x}", dev->device_id) ||
      static_cast<std::uint16_t>(b.vendor_id) != dev->vendor_id) {
    p.failed.push_back(fmt::format("{}: the plan says {:04x}:{}, the host has {:04x}:{:04x}", id,
                                   static_cast<std::uint16_t>(b.vendor_id), hex_of(b.device_id),
                                   dev->vendor_id, dev->device_id));
  }
  if (!host.host.system_uuid.empty() && !iequals(b.system_id, host.host.system_uuid)) {
    p.failed.push_back(fmt::format("{}: systemId '{}' is not host {}'s UUID {}", id, b.system_id,
                                   host.host.name, host.host.system_uuid));
  }
  if (host.host.passthru.empty()) {
    p.not_checked.push_back(
        fmt::format("{}: passthrough state: the host's config.pciPassthruInfo is empty", id));
  } else if (const pci::ApiPassthru* pt = host_passthru(host.host, id);
             pt == nullptr || !pt->enabled.value_or(false)) {
    p.failed.push_back(
        fmt::format("{}: not enabled for passthrough on host {} (Configure, "
                    "Hardware, PCI Devices; then reboot the host)",
                    id, host.host.name));
  } else if (!pt->active.value_or(false)) {
    p.failed.push_back(
        fmt::format("{}: passthrough is enabled on host {} but not active: the "
                    "host needs a reboot",
                    id, host.host.name));
  } else {
    p.passed.push_back(fmt::format("{}: passthrough enabled and active on {}", id, host.host.name));
  }
  if (!host.config_target_read) {
    p.not_checked.push_back(
        fmt::format("{}: in the host's ConfigTarget: no QueryConfigTarget "
                    "answer ({})",
                    id, host.config_target_error));
  } else if (host.config_target_ids.empty()) {
    p.not_checked.push_back(fmt::format(
        "{}: in the host's ConfigTarget: its pciPassthrough list is empty (govmomi's simulator "
        "never fills it); config.pciPassthruInfo was used instead",
        id));
  } else if (std::find(host.config_target_ids.begin(), host.config_target_ids.end(),
                       ascii_lowercase(id)) == host.config_target_ids.end()) {
    p.failed.push_back(
        fmt::format("{}: not in host {}'s ConfigTarget pciPassthrough list", id, host.host.name));
  }
  for (const ApplyVm& other : host.others) {
    if (other.ref == vm.ref) continue;
    for (const DeviceChange& d : other.spec.device_change) {
      if (d.backing_type == BackingType::device && iequals(d.device.id, id)) {
        p.failed.push_back(fmt::format("{}: held by VM '{}' ({}), which is {}", id, other.name,
                                       other.ref.value, other.power_state));
      }
    }
  }
}

void check_vgpu(const std::string& profile, const ApplyHost& host, Preconditions& p) {
  if (host.vgpu_types.empty()) {
    p.not_checked.push_back(
        fmt::format("vGPU {}: the host lists no config.sharedPassthruGpuTypes", profile));
  } else if (std::find(host.vgpu_types.begin(), host.vgpu_types.end(), profile) ==
             host.vgpu_types.end()) {
    p.failed.push_back(fmt::format("vGPU {}: host {} does not offer it (it offers: {})", profile,
                                   host.host.name, fmt::join(host.vgpu_types, ", ")));
  }
}

}  // namespace

soap::Moref find_vm(Client& client, std::string_view name) {
  std::vector<soap::Moref> match;
  for (const auto& [ref, n] : client.list_names(client.content().root_folder, "VirtualMachine")) {
    if (n == name || ref.value == name) match.push_back(ref);
  }
  if (match.empty()) throw Error(fmt::format("{}: no VM named '{}'", client.endpoint(), name));
  if (match.size() > 1) {
    std::vector<std::string> refs;
    refs.reserve(match.size());
    for (const soap::Moref& m : match) refs.push_back(m.value);
    throw Error(fmt::format("{}: {} VMs are named '{}': give the moref ({})", client.endpoint(),
                            match.size(), name, fmt::join(refs, ", ")));
  }
  return match.front();
}

ApplyVm read_apply_vm(Client& client, const soap::Moref& vm) {
  std::vector<ApplyVm> got = read_vms(client, {vm});
  if (got.empty()) {
    throw Error(fmt::format("{}: VM {} has no config (ManagedObjectNotFound, or being created)",
                            client.endpoint(), vm.value));
  }
  return std::move(got.front());
}

ApplyHost read_apply_host(Client& client, const ApplyVm& vm) {
  if (vm.host.empty()) {
    throw Error(fmt::format("{}: VM '{}' has no host (runtime.host)", client.endpoint(), vm.name));
  }
  ApplyHost out;
  std::vector<pci::ApiHost> hosts = fetch_hosts(client, {vm.host});
  if (hosts.empty())
    throw Error(fmt::format("{}: host {} vanished", client.endpoint(), vm.host.value));
  out.host = std::move(hosts.front());
  soap::PropertyQuery q;
  q.type = "HostSystem";
  q.paths = {"hardware.memorySize", "config.sharedPassthruGpuTypes", "vm"};
  q.objects = {vm.host};
  std::vector<soap::Moref> vms;
  client.retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& r) {
    for (const soap::ObjectContent& o : r.objects) {
      if (const auto m = o.prop("hardware.memorySize")) {
        out.memory_mb = std::stoll(soap::text(m)) / (std::int64_t{1024} * 1024);
      }
      for (pugi::xml_node t : o.prop("config.sharedPassthruGpuTypes").children("string")) {
        out.vgpu_types.push_back(soap::text(t));
      }
      for (pugi::xml_node v : o.prop("vm").children("ManagedObjectReference")) {
        const soap::Moref ref = soap::parse_moref(v);
        if (ref != vm.ref) vms.push_back(ref);
      }
    }
  });
  out.others = read_vms(client, vms);
  read_config_target(client, vm.host, out);
  return out;
}

Preconditions check_preconditions(const apply::Change& change, const ApplyVm& vm,
                                  const ApplyHost& host) {
  Preconditions p;
  for (const std::string& ph : change.placeholders) {
    p.failed.push_back("the plan holds a placeholder: " + ph);
  }
  if (vm.is_template) p.failed.push_back(fmt::format("'{}' is a template", vm.name));
  if (change.empty()) return p;
  if (vm.power_state != "poweredOff") {
    const char* why = change.firmware_changes ? "a firmware change"
                      : change.devices_change ? "passthrough devices (no hot plug)"
                      : change.memory_changes ? "a memory change"
                                              : "this change";
    p.failed.push_back(
        fmt::format("VM '{}' is {}: {} needs it powered off", vm.name,
                    vm.power_state.empty() ? "in an unknown power state" : vm.power_state, why));
  } else {
    p.passed.push_back(fmt::format("VM '{}' is powered off", vm.name));
  }
  for (const DeviceChange& d : change.spec.device_change) {
    if (d.operation != "add") continue;
    if (d.backing_type == BackingType::device) check_device(d.device, host, vm, p);
    if (d.backing_type == BackingType::vmiop) check_vgpu(d.vgpu, host, p);
    if (d.physical_function) check_device(*d.physical_function, host, vm, p);
  }
  const std::optional<std::int64_t> memory =
      change.spec.memory_mb ? change.spec.memory_mb : vm.spec.memory_mb;
  if (memory && host.memory_mb && *memory > *host.memory_mb) {
    p.failed.push_back(fmt::format("memoryMB {} is more than host {} has ({} MB)", *memory,
                                   host.host.name, *host.memory_mb));
  } else if (!host.memory_mb) {
    p.not_checked.emplace_back("memory: the host gives no hardware.memorySize");
  }
  return p;
}

soap::Moref reconfigure(Client& client, const soap::Moref& vm, const ConfigSpec& spec) {
  const soap::Response r = client.call("ReconfigVM_Task", write_soap_envelope(spec, vm.value));
  soap::Moref task = soap::parse_moref(r.result.child("returnval"));
  if (task.empty())
    throw Error(fmt::format("{}: ReconfigVM_Task returned no task", client.endpoint()));
  return task;
}

TaskOutcome wait_for_task(Client& client, const soap::Moref& task,
                          std::chrono::milliseconds timeout, std::chrono::milliseconds poll,
                          const std::function<void(std::string_view, int)>& progress) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    soap::PropertyQuery q;
    q.type = "Task";
    q.paths = {"info.state", "info.error", "info.progress"};
    q.objects = {task};
    std::string state;
    TaskOutcome out;
    int percent = 0;
    client.retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& r) {
      for (const soap::ObjectContent& o : r.objects) {
        state = soap::text(o.prop("info.state"));
        if (const auto e = o.prop("info.error")) {
          out.message = soap::text(e.child("localizedMessage"));
          out.fault = e.child("fault").attribute("xsi:type").value();
        }
        if (const auto pr = o.prop("info.progress")) percent = std::atoi(soap::text(pr).c_str());
      }
    });
    if (progress) progress(state, percent);
    if (state == "success" || state == "error") {
      out.success = state == "success";
      return out;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw Error(fmt::format("{}: task {} still {} after {} s: it may yet change the VM",
                              client.endpoint(), task.value, state.empty() ? "unknown" : state,
                              timeout.count() / 1000));
    }
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace vmxkit::vsphere
