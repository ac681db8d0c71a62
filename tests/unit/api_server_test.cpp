// SPDX-License-Identifier: Apache-2.0
// The public API's reads of a server through its one header: load_server_host() (the host of
// `--esx-host`) and lint_server() (`vmxkit lint --server`), against a vCenter on 127.0.0.1 that
// answers from the repository's captures of govmomi's simulator (tests/data/vsphere): the GPU
// host DC0_H0 (host-21) and two VMs on it. Each server a test starts is stopped by it.
#include <catch2/catch.hpp>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "support/local_server.h"
#include "support/support.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;
using Catch::StartsWith;
using vmxkit::test::LocalServer;
using vmxkit::test::soap_answer;

namespace {

bool holds(const std::string& body, const std::string& what) {
  return body.find(what) != std::string::npos;
}

std::string capture(const std::string& name) {
  return vmxkit::test::read_bytes(vmxkit::test::source_path("tests/data/vsphere/" + name));
}

std::string moref_answer(const std::string& obj, const std::string& path, const std::string& ref) {
  return soap_answer("<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><objects>" +
                     obj + "<propSet><name>" + path + "</name><val type=\"" +
                     ref.substr(0, ref.find(' ')) + "\" xsi:type=\"ManagedObjectReference\">" +
                     ref.substr(ref.find(' ') + 1) +
                     "</val></propSet></objects></returnval></RetrievePropertiesExResponse>");
}

// A vCenter holding the host DC0_H0 (host-21) with the VMs gpu-rdma-worker (vm-60) and
// vgpu-worker (vm-63) on it, answering what load_server_host() and lint_server() ask. The VMs
// of `vanished` are listed but gone when their config is read; with `no_config_target`, the
// host has no compute resource to ask its QueryConfigTarget of.
class FakeVcenter {
 public:
  explicit FakeVcenter(std::set<std::string> vanished = {}, bool no_config_target = false)
      : vanished_(std::move(vanished)),
        no_config_target_(no_config_target),
        server_([this](const std::string& body) { return answer(body); }) {
    const std::string vms = capture("clients/retrievepropertiesex-2vms.xml");
    const auto begin = vms.find("<returnval>") + 11;
    const auto end = vms.rfind("</returnval>");
    head_ = vms.substr(0, begin);
    tail_ = vms.substr(end);
    for (auto at = vms.find("<objects>", begin); at < end; at = vms.find("<objects>", at)) {
      const auto next = vms.find("</objects>", at) + 10;
      objects_.push_back(vms.substr(at, next - at));
      at = next;
    }
    REQUIRE(objects_.size() == 2);
  }

  vmxkit::VsphereServer server() const {
    vmxkit::VsphereServer s;
    s.url = server_.url("root:pw");
    s.allow_http = true;
    s.timeout = std::chrono::milliseconds(10'000);
    return s;
  }
  // The methods asked, in order.
  std::vector<std::string> methods() const {
    const std::lock_guard lock(mutex_);
    return methods_;
  }

 private:
  std::string answer(const std::string& body) {
    const std::string method =
        body.substr(body.find("<soapenv:Body><") + 15,
                    body.find_first_of(" >", body.find("<soapenv:Body><") + 15) -
                        body.find("<soapenv:Body><") - 15);
    {
      const std::lock_guard lock(mutex_);
      methods_.push_back(method);
    }
    if (method == "RetrieveServiceContent") return vmxkit::test::soap_service_content();
    if (method == "Login") {
      return soap_answer("<LoginResponse xmlns=\"urn:vim25\"><returnval/></LoginResponse>");
    }
    if (method == "CreateContainerView") {
      return soap_answer(
          "<CreateContainerViewResponse xmlns=\"urn:vim25\"><returnval type=\"ContainerView\">"
          "session[1]v1</returnval></CreateContainerViewResponse>");
    }
    if (method == "QueryConfigTarget")
      return capture("config-target/queryconfigtarget-response.xml");
    if (method == "RetrievePropertiesEx") return retrieve(body);
    return soap_answer("<EmptyResponse xmlns=\"urn:vim25\"/>");  // DestroyView, Logout
  }

  std::string retrieve(const std::string& body) {
    if (holds(body, "<pathSet>hardware.pciDevice</pathSet>")) {
      return capture("clients/hostsystem-retrievepropertiesex.xml");
    }
    if (holds(body, "<type>HostSystem</type><pathSet>name</pathSet></propSet>")) {
      return soap_answer(
          "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><objects>"
          "<obj type=\"HostSystem\">host-21</obj><propSet><name>name</name>"
          "<val xsi:type=\"xsd:string\">DC0_H0</val></propSet></objects>"
          "</returnval></RetrievePropertiesExResponse>");
    }
    if (holds(body, "<pathSet>parent</pathSet>") && !no_config_target_) {
      return moref_answer("<obj type=\"HostSystem\">host-21</obj>", "parent",
                          "ComputeResource domain-s1");
    }
    if (holds(body, "<pathSet>environmentBrowser</pathSet>")) {
      return moref_answer("<obj type=\"ComputeResource\">domain-s1</obj>", "environmentBrowser",
                          "EnvironmentBrowser envbrowser-1");
    }
    if (holds(body, "<pathSet>runtime.host</pathSet>")) {
      std::string listed;
      for (const auto& [ref, name] :
           {std::pair{"vm-60", "gpu-rdma-worker"}, std::pair{"vm-63", "vgpu-worker"}}) {
        listed += std::string("<objects><obj type=\"VirtualMachine\">") + ref +
                  "</obj><propSet><name>name</name><val xsi:type=\"xsd:string\">" + name +
                  "</val></propSet><propSet><name>runtime.host</name><val type=\"HostSystem\" "
                  "xsi:type=\"ManagedObjectReference\">host-21</val></propSet></objects>";
      }
      return soap_answer("<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval>" + listed +
                         "</returnval></RetrievePropertiesExResponse>");
    }
    if (holds(body, "<pathSet>config</pathSet>")) {
      std::string asked;
      for (const std::string& o : objects_) {
        const std::string obj = o.substr(0, o.find("</obj>") + 6).substr(9);
        if (holds(body, obj) && !vanished_.count(obj.substr(obj.find('>') + 1, 5))) asked += o;
      }
      return head_ + asked + tail_;
    }
    // Nothing else is asked: a property this server does not have.
    return soap_answer(
        "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval/>"
        "</RetrievePropertiesExResponse>");
  }

  std::set<std::string> vanished_;
  bool no_config_target_ = false;
  std::string head_;
  std::string tail_;
  std::vector<std::string> objects_;  ///< each VM's <objects> of the capture: name and config
  mutable std::mutex mutex_;
  std::vector<std::string> methods_;
  LocalServer server_;  ///< last: stopped first, while what it reads is still there
};

// What lint_server() handed over, in order, as one line each.
struct Recorded {
  std::vector<std::string> events;
  std::vector<vmxkit::LintReport> reports;
  vmxkit::ServerLintEvents handlers() {
    vmxkit::ServerLintEvents e;
    e.on_begin = [this](std::size_t n) { events.push_back("begin " + std::to_string(n)); };
    e.on_report = [this](vmxkit::LintReport r) {
      events.push_back("report " + r.path);
      reports.push_back(std::move(r));
    };
    e.on_vanished = [this](const vmxkit::ServerVm& vm) {
      events.push_back("vanished " + vm.name + " " + vm.moref);
    };
    e.on_end = [this] { events.push_back("end"); };
    e.on_message = [this](const vmxkit::ServerLintMessage& m) {
      const char* kind = m.kind == vmxkit::ServerLintMessage::Kind::error     ? "error: "
                         : m.kind == vmxkit::ServerLintMessage::Kind::warning ? "warning: "
                                                                              : "";
      events.push_back(kind + m.text);
    };
    return e;
  }
};

std::string endpoint_of(const vmxkit::VsphereServer& server) {
  const std::string& url = server.url;
  return "http://" + url.substr(url.find('@') + 1);
}

// "report 127.0.0.1:PORT/vm/NAME": a report's event.
std::string report_of(const vmxkit::VsphereServer& server, const std::string& name) {
  const std::string endpoint = endpoint_of(server);
  return "report " + endpoint.substr(7, endpoint.size() - 11) + "/vm/" + name;
}

}  // namespace

TEST_CASE("load_server_host reads the ESXi host with its UUID and QueryConfigTarget answer",
          "[api][server]") {
  FakeVcenter vc;
  vmxkit::VsphereServer server = vc.server();
  std::size_t requests = 0;
  std::string connected;
  server.on_request = [&](std::string_view) { ++requests; };
  server.on_connected = [&](const vmxkit::ServerInfo& info) {
    connected = info.endpoint + " " + info.full_name + " " + info.api_version;
  };
  vmxkit::ServerHostOptions options;
  options.config_target = true;
  std::vector<std::string> said;
  options.on_server_read = [&] { said.push_back("read after " + std::to_string(requests)); };
  options.on_warning = [&](std::string_view w) { said.emplace_back(w); };

  const vmxkit::ServerHost got = vmxkit::load_server_host(server, "DC0_H0", options);
  CHECK(got.system_uuid == "4c4c4544-0048-3510-8052-b4c04f4e3332");
  CHECK_THAT(got.config_target,
             Contains("<QueryConfigTargetResponse") && Contains("nvidia-h100-cx7-0"));
  REQUIRE(got.host.find(*vmxkit::parse_bdf("0000:18:00.0")) != nullptr);
  CHECK(got.host.find(*vmxkit::parse_bdf("0000:18:00.0"))->role == vmxkit::DeviceRole::gpu);
  CHECK(connected == endpoint_of(server) + " VMware vCenter Server 8.0.2 8.0.2.0");
  // The session is over (logged out) before the server counts as read.
  REQUIRE(!said.empty());
  CHECK(said.front() == "read after " + std::to_string(vc.methods().size()));
  CHECK(got.warnings == std::vector<std::string>(said.begin() + 1, said.end()));
  CHECK(vc.methods().back() == "Logout");
  CHECK(requests == vc.methods().size());
}

TEST_CASE(
    "load_server_host warns without a QueryConfigTarget answer and throws for a host it lacks",
    "[api][server]") {
  FakeVcenter vc({}, true);
  vmxkit::ServerHostOptions options;
  options.config_target = true;
  std::vector<std::string> said;
  options.on_warning = [&](std::string_view w) { said.emplace_back(w); };
  options.on_server_read = [&] { said.emplace_back("read"); };
  const vmxkit::ServerHost got = vmxkit::load_server_host(vc.server(), "host-21", options);
  CHECK(got.config_target.empty());
  REQUIRE(said.size() == 2);
  CHECK_THAT(said[0], StartsWith(endpoint_of(vc.server()) +
                                 ": no QueryConfigTarget answer for host DC0_H0: "));
  CHECK(said[1] == "read");
  CHECK(got.warnings == std::vector<std::string>{said[0]});

  // No such host: the error names those there are. An input that cannot be read throws too,
  // once the server has been read.
  CHECK_THROWS_WITH(vmxkit::load_server_host(vc.server(), "esx99"),
                    Contains("no ESXi host named 'esx99' (the server has: DC0_H0)"));
  options.sources = {vmxkit::HostSource("/nonexistent/lspci.txt")};
  said.clear();
  CHECK_THROWS_WITH(vmxkit::load_server_host(vc.server(), "DC0_H0", options),
                    Contains("/nonexistent/lspci.txt"));
  REQUIRE(said.size() == 2);
  CHECK(said[1] == "read");
}

TEST_CASE("lint_server lints the VMs named, batch by batch, and tells of a name it lacks",
          "[api][server]") {
  FakeVcenter vc;
  vmxkit::ServerLintRequest request;
  request.server = vc.server();
  request.vms = {"vgpu-worker", "missing", "vm-60"};  // in one batch: the answer's order
  Recorded rec;
  const vmxkit::ServerLintSummary summary = vmxkit::lint_server(request, rec.handlers());
  const std::string url = endpoint_of(request.server);
  CHECK(rec.events == std::vector<std::string>{"error: " + url + ": no VM named 'missing'",
                                               "begin 2",
                                               report_of(request.server, "gpu-rdma-worker"),
                                               report_of(request.server, "vgpu-worker"), "end"});
  CHECK(summary.linted == 2);
  CHECK(summary.vanished == 0);
  CHECK(summary.not_found == std::vector<std::string>{"missing"});
  REQUIRE(rec.reports.size() == 2);
  CHECK(rec.reports[0].format != "vmx");
  CHECK(!rec.reports[1].diagnostics.empty());
  CHECK(vc.methods().back() == "Logout");

  // One config a request: a progress line after each; the selection filters the findings.
  request.server.batch_size = 1;
  request.vms.clear();
  request.all_vms = true;
  request.rules.ignore = {"ALL"};
  Recorded one;
  vmxkit::lint_server(request, one.handlers());
  CHECK(one.events == std::vector<std::string>{
                          "begin 2", report_of(request.server, "gpu-rdma-worker"), "1/2 VMs linted",
                          report_of(request.server, "vgpu-worker"), "2/2 VMs linted", "end"});
  for (const vmxkit::LintReport& r : one.reports) CHECK(r.diagnostics.empty());
}

TEST_CASE("lint_server tells of a VM that vanished, and refuses a request that does not fit",
          "[api][server]") {
  FakeVcenter vc({"vm-60"});
  vmxkit::ServerLintRequest request;
  request.server = vc.server();
  request.all_vms = true;
  Recorded rec;
  const vmxkit::ServerLintSummary summary = vmxkit::lint_server(request, rec.handlers());
  CHECK(rec.events ==
        std::vector<std::string>{"begin 2", report_of(request.server, "vgpu-worker"),
                                 "error: " + endpoint_of(request.server) +
                                     ": VM 'gpu-rdma-worker' (vm-60) vanished while it was "
                                     "listed (ManagedObjectNotFound); not linted",
                                 "vanished gpu-rdma-worker vm-60", "end"});
  CHECK(summary.linted == 1);
  CHECK(summary.vanished == 1);
  CHECK(summary.not_found.empty());

  // Not exactly one way of choosing VMs: refused before any request.
  const std::size_t asked = vc.methods().size();
  request.vms = {"vgpu-worker"};
  CHECK_THROWS_WITH(vmxkit::lint_server(request, {}), Contains("exclude each other"));
  request.vms.clear();
  request.all_vms = false;
  CHECK_THROWS_WITH(request.validate(), Contains("give --vm NAME..., --uuid UUID or --all-vms"));
  request.all_vms = true;
  request.folder = "gpu";
  request.cluster = "c1";
  CHECK_THROWS_WITH(vmxkit::lint_server(request, {}),
                    Contains("--folder and --cluster exclude each other"));
  CHECK(vc.methods().size() > asked);  // that one is found once connected
}
