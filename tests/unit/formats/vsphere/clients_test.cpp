// SPDX-License-Identifier: Apache-2.0
// The documents vSphere clients hand back (tests/data/vsphere/clients/, made against the
// simulator by tests/integration/make_client_documents.py with pyVmomi 6.7.1 and govmomi 0.24.2
// as govc 0.24 calls it): each loads with its VMs and their passthrough devices, and lints with
// the findings those VMs' configurations imply.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vsphere/load.h"

namespace {
// The format table's name of what the bytes are, as load() tells it.
std::string_view recognised(std::string_view bytes) {
  return vmxkit::formats::recognise_vm_input(bytes).name;
}
}  // namespace

using namespace vmxkit;
using namespace vmxkit::vsphere;

namespace {

const std::string kGpuVm = "gpu-rdma-worker";
const std::string kVgpuVm = "vgpu-worker";

std::string path_of(const std::string& name) {
  return test::source_path("tests/data/vsphere/clients/" + name).string();
}

Loaded load_client(const std::string& name) {
  const std::string path = path_of(name);
  return load(path, test::read_bytes(path));
}

const LoadedVm& vm_named(const Loaded& l, const std::string& name) {
  const auto it =
      std::find_if(l.vms.begin(), l.vms.end(), [&](const LoadedVm& v) { return v.name == name; });
  REQUIRE(it != l.vms.end());
  return *it;
}

// gpu-rdma-worker as the script reconfigured it: an H100 and a ConnectX-7 by DirectPath,
// allowP2P, 128 GB of 64-bit MMIO, BIOS.
void check_gpu_vm(const LoadedVm& vm) {
  const VmConfig& c = vm.config;
  const auto devices = c.passthrough_devices();
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].kind() == PassthroughKind::directpath);
  CHECK(devices[0].id == "00000:059:00.0");
  CHECK(devices[0].device_id == "0x2330");
  CHECK(devices[0].vendor_id == "0x10de");
  CHECK(devices[0].system_id == "5fe9d4dc-68b1-4c3a-9d1e-0123456789ab");
  CHECK(devices[1].id == "00000:060:00.0");
  CHECK(devices[1].vendor_id == "0x15b3");
  CHECK(c.get("pciPassthru.allowP2P") == "TRUE");
  CHECK(c.get("pciPassthru.64bitMMIOSizeGB") == "128");
  CHECK(c.firmware() == "bios");
  CHECK(c.get("numvcpus") == "16");
  CHECK(c.memory_mb() == 65536);
  CHECK_FALSE(c.memory_fully_reserved());
}

// vgpu-worker: an A100 vGPU, EFI, memory pinned.
void check_vgpu_vm(const LoadedVm& vm) {
  const VmConfig& c = vm.config;
  const auto devices = c.passthrough_devices();
  REQUIRE(devices.size() == 1);
  CHECK(devices[0].kind() == PassthroughKind::vgpu);
  CHECK(devices[0].vgpu == "grid_a100-40c");
  CHECK(c.firmware() == "efi");
  CHECK(c.memory_pinned());
  CHECK_FALSE(c.get("pciPassthru.allowP2P"));
}

std::set<std::string> rule_ids(const checks::LintResult& r, const std::string& prefix = {}) {
  std::set<std::string> ids;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.message.rfind(prefix, 0) == 0) ids.insert(std::string(d.rule_id));
  }
  return ids;
}

checks::LintResult lint_client(const std::string& name) {
  const std::string path = path_of(name);
  return checks::lint(path, test::read_bytes(path), {});
}

}  // namespace

TEST_CASE("pyVmomi's serialized ConfigInfo and ConfigSpec load as the VM's configuration",
          "[spec][load][clients]") {
  const Loaded info = load_client("pyvmomi-configinfo.xml");
  CHECK(info.format->name == "configspec-xml");
  CHECK(info.schema_problems.empty());  // a ConfigInfo is not checked against the spec schema
  REQUIRE(info.vms.size() == 1);
  CHECK(info.vms[0].name == kGpuVm);
  check_gpu_vm(info.vms[0]);

  const Loaded spec = load_client("pyvmomi-configspec.xml");  // <object xsi:type=...>
  CHECK(spec.format->name == "configspec-xml");
  CHECK(spec.schema_problems.empty());
  REQUIRE(spec.vms.size() == 1);
  check_gpu_vm(spec.vms[0]);
}

TEST_CASE("pyVmomi's ReconfigVM_Task request loads, and pyVmomi 8's versionId is valid",
          "[spec][load][clients]") {
  const Loaded l = load_client("pyvmomi-reconfigvm-request.xml");
  CHECK(l.format->name == "soap");
  CHECK(l.schema_problems.empty());
  CHECK(l.vm.rfind("vm-", 0) == 0);
  REQUIRE(l.vms.size() == 1);
  check_gpu_vm(l.vms[0]);

  // pyVmomi 8 writes <_this type="VirtualMachine" versionId="8.0.2.0">: valid, where an
  // attribute vim25 does not have is still a schema problem.
  std::string bytes = test::read_bytes(path_of("pyvmomi-reconfigvm-request.xml"));
  const std::string tag = "<_this type=\"VirtualMachine\"";
  const std::size_t at = bytes.find(tag);
  REQUIRE(at != std::string::npos);
  std::string v8 = bytes;
  v8.insert(at + tag.size(), " versionId=\"8.0.2.0\"");
  CHECK(load("v8.xml", v8).schema_problems.empty());
  std::string bad = bytes;
  bad.insert(at + tag.size(), " versionid=\"8.0.2.0\"");
  CHECK_FALSE(load("bad.xml", bad).schema_problems.empty());
}

TEST_CASE("RetrievePropertiesEx, RetrieveProperties and Fetch responses load each VM",
          "[spec][load][clients]") {
  for (const std::string name : {"retrievepropertiesex-2vms.xml", "retrieveproperties-2vms.xml"}) {
    INFO(name);
    const Loaded l = load_client(name);
    CHECK(l.format->name == "soap");
    CHECK(l.schema_problems.empty());
    REQUIRE(l.vms.size() == 2);
    const LoadedVm& gpu = vm_named(l, kGpuVm);
    CHECK(gpu.moref.rfind("vm-", 0) == 0);
    check_gpu_vm(gpu);
    check_vgpu_vm(vm_named(l, kVgpuVm));
    // Positions point into the document.
    const Setting* p2p = gpu.config.find("pciPassthru.allowP2P");
    REQUIRE(p2p != nullptr);
    CHECK(l.source.bytes().substr(p2p->value_span.begin, 4) == "TRUE");
  }
  const Loaded fetch = load_client("fetch-config.xml");
  CHECK(fetch.format->name == "soap");
  REQUIRE(fetch.vms.size() == 1);
  CHECK(fetch.vms[0].name == kGpuVm);
  check_gpu_vm(fetch.vms[0]);
}

TEST_CASE("govc 0.24's vm.info -json and object.collect -json load each VM",
          "[spec][load][clients][govc]") {
  const Loaded info = load_client("govc-vm-info.json");
  CHECK(info.format->name == "govc-json");
  REQUIRE(info.vms.size() == 2);
  CHECK(vm_named(info, kGpuVm).moref.rfind("vm-", 0) == 0);
  check_gpu_vm(vm_named(info, kGpuVm));
  check_vgpu_vm(vm_named(info, kVgpuVm));

  const Loaded one = load_client("govc-object-collect-config.json");
  CHECK(one.format->name == "govc-json");
  REQUIRE(one.vms.size() == 1);
  CHECK(one.vms[0].name == kGpuVm);
  check_gpu_vm(one.vms[0]);

  const Loaded all = load_client("govc-object-collect-type-m.json");  // one update per VM
  CHECK(all.format->name == "govc-json");
  CHECK(all.vms.size() >= 2);
  check_gpu_vm(vm_named(all, kGpuVm));
  check_vgpu_vm(vm_named(all, kVgpuVm));
  for (const LoadedVm& vm : all.vms) CHECK(vm.moref.rfind("vm-", 0) == 0);
}

TEST_CASE("every client document lints with the findings its VMs' configurations imply",
          "[spec][lint][clients]") {
  // gpu-rdma-worker: BIOS with passthrough GPUs, 128 GB MMIO for an H100, allowP2P without
  // RelaxACSforP2P, memory not reserved. vgpu-worker: no 64-bit MMIO for its vGPU.
  const std::set<std::string> gpu = {"MMIO004", "MMIO005", "PT008", "P2P002"};
  const std::set<std::string> vgpu = {"MMIO001"};
  auto check_includes = [](const std::set<std::string>& have, const std::set<std::string>& want) {
    for (const std::string& id : want) {
      INFO(id);
      CHECK(have.count(id) == 1);
    }
  };
  for (const std::string name :
       {"pyvmomi-configinfo.xml", "pyvmomi-configspec.xml", "pyvmomi-reconfigvm-request.xml",
        "fetch-config.xml", "govc-object-collect-config.json"}) {
    INFO(name);
    const checks::LintResult r = lint_client(name);
    check_includes(rule_ids(r), gpu);
    CHECK(rule_ids(r).count("XML001") == 0);
  }
  for (const std::string name : {"retrievepropertiesex-2vms.xml", "retrieveproperties-2vms.xml",
                                 "govc-vm-info.json", "govc-object-collect-type-m.json"}) {
    INFO(name);
    const checks::LintResult r = lint_client(name);
    check_includes(rule_ids(r, kGpuVm + ": "), gpu);
    check_includes(rule_ids(r, kVgpuVm + ": "), vgpu);
    CHECK(rule_ids(r, kVgpuVm + ": ").count("MMIO005") == 0);  // it is EFI
  }
}

TEST_CASE("a RetrievePropertiesEx response for HostSystems only is refused, naming them",
          "[spec][load][clients]") {
  try {
    load_client("NEGATIVE-retrievepropertiesex-hosts.xml");
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.line() > 0);
    CHECK(std::string(e.what()).find("a RetrievePropertiesEx response with no VirtualMachine "
                                     "config property (it holds HostSystem host-") !=
          std::string::npos);
  }
}

TEST_CASE("a ConfigInfo pyVmomi serialized at vSphere 2.0's types is refused, saying why",
          "[spec][load][clients]") {
  // SoapAdapter.Serialize(vm.config) without version= writes each device as a VirtualDevice
  // without xsi:type: its passthrough devices cannot be told, and are not silently left out.
  try {
    load_client("NEGATIVE-pyvmomi-configinfo-default-version.xml");
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.line() == 1);
    CHECK(e.column() > 1);
    CHECK_THAT(e.what(), Catch::Contains("<device> needs an xsi:type") &&
                             Catch::Contains("version=si._stub.version"));
  }
}

TEST_CASE("vSphere client output that holds no VM configuration is refused, saying what it is",
          "[spec][load][clients]") {
  const std::string env =
      "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
      "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body>";
  const std::string end = "</soapenv:Body></soapenv:Envelope>";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"VirtualMachines\": []}",
       "in.json:1:21: govc vm.info JSON without VirtualMachines (an empty list"},
      {"{\"VirtualMachines\": null}", "in.json:1:1: govc vm.info JSON without VirtualMachines"},
      {"{\"VirtualMachines\": [{\"Config\": null}]}",
       "in.json:1:22: govc vm.info JSON whose VM has no Config"},
      {"{\"virtualMachines\": [{\"self\": {\"type\": \"VirtualMachine\", \"value\": \"vm-7\"}, "
       "\"name\": \"a\", \"config\": null}]}",
       "govc vm.info JSON whose VM a (vm-7) has no Config"},
      {"[{\"Name\": \"name\", \"Op\": \"assign\", \"Val\": \"a\"}]",
       "in.json:1:1: govc object.collect JSON without a config property (it has name)"},
      {"[{\"Name\": \"config\", \"Op\": \"assign\", \"Val\": null}]",
       "in.json:1:2: the config property has no value"},
      {"{\"Kind\": \"enter\", \"Obj\": {\"Type\": \"HostSystem\", \"Value\": \"host-21\"}, "
       "\"ChangeSet\": [], \"MissingSet\": null}",
       "govc object.collect JSON for HostSystem host-21, not a VirtualMachine"},
      {env + "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"/>" + end,
       "a RetrievePropertiesEx response with no VirtualMachine config property (it holds no "
       "objects)"},
      {env +
           "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><objects>"
           "<obj type=\"VirtualMachine\">vm-9</obj><propSet><name>name</name><val>a</val>"
           "</propSet></objects></returnval></RetrievePropertiesExResponse>" +
           end,
       "VirtualMachine vm-9 has no config property here (only name): retrieve its config "
       "property"},
      {env + "<FetchResponse xmlns=\"urn:vim25\"><returnval xsi:type=\"HostHardwareInfo\"/>" +
           "</FetchResponse>" + end,
       "a Fetch response whose returnval is HostHardwareInfo, not a VM's config"},
      {env +
           "<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>The object "
           "has already been deleted</faultstring></soapenv:Fault>" +
           end,
       "a SOAP Fault, not a VM configuration: \"The object has already been deleted\""},
      {env + "<PowerOnVM_Task xmlns=\"urn:vim25\"/>" + end,
       "expected ReconfigVM_Task in the SOAP Body, or a RetrievePropertiesEx, "
       "RetrieveProperties or Fetch response with a VM's config, found PowerOnVM_Task"},
      {"<object xmlns=\"urn:vim25\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
       "xsi:type=\"HostConfigInfo\"/>",
       "in.xml:1:1: expected a VirtualMachineConfigSpec or VirtualMachineConfigInfo, found "
       "xsi:type HostConfigInfo"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const bool is_json = text[0] == '{' || text[0] == '[';
    const std::string file = is_json ? "in.json" : "in.xml";
    try {
      load(file, text);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
    // The command line: exit 2, the message on stderr, nothing on stdout.
    const test::CliResult r = test::run_cli({"lint", "-"}, text);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(message.substr(message.find(": ") + 2)));
  }
}

TEST_CASE("govc's JSON is told from VI/JSON by content", "[spec][load][govc]") {
  CHECK(recognised("{\"VirtualMachines\": []}") == "govc-json");
  CHECK(recognised("{\n  \"virtualMachines\": null\n}") == "govc-json");
  CHECK(recognised("[{\"Name\": \"config\", \"Op\": \"assign\", \"Val\": {}}]") == "govc-json");
  CHECK(recognised("{\"Obj\": {}, \"ChangeSet\": []}") == "govc-json");
  // A VI/JSON object, even with a member of the same name deeper down, stays VI/JSON.
  CHECK(recognised("{\"_typeName\": \"VirtualMachineConfigInfo\", \"x\": "
                   "{\"VirtualMachines\": 1}}") == "vi-json");
  CHECK(recognised("{\"spec\": {\"VirtualMachines\": []}}") == "vi-json");
  CHECK(recognised("[1, 2]") == "vi-json");
  CHECK(recognised("{\"a\\\"VirtualMachines\": 1}") == "vi-json");
}

TEST_CASE("govc 0.32's camelCase JSON reads as govc 0.24's", "[spec][load][govc]") {
  // The same document with the first letter of every member lowered, as govc 0.32 and later
  // write it (json tags on govmomi's types, govc commit db5b3d8e "camelCase json output").
  std::string bytes = test::read_bytes(path_of("govc-object-collect-config.json"));
  std::string camel;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    camel += bytes[i];
    if (bytes[i] == '"' && i + 1 < bytes.size() && bytes[i + 1] >= 'A' && bytes[i + 1] <= 'Z') {
      const std::size_t close = bytes.find('"', i + 1);
      if (close != std::string::npos && close + 1 < bytes.size() && bytes[close + 1] == ':') {
        camel += static_cast<char>(bytes[i + 1] - 'A' + 'a');
        ++i;
      }
    }
  }
  REQUIRE(camel.find("\"config\"") != std::string::npos);
  REQUIRE(camel.find("\"Hardware\"") == std::string::npos);
  const Loaded l = load("camel.json", camel);
  CHECK(l.format->name == "govc-json");
  REQUIRE(l.vms.size() == 1);
  check_gpu_vm(l.vms[0]);
}
