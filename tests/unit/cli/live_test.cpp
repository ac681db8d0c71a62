// SPDX-License-Identifier: Apache-2.0
// The live commands (`--server`) against a server on 127.0.0.1 that misbehaves: one that always
// has more to send, one that echoes the request in its fault, and URLs whose password libcurl
// reads differently from a hand parser. Each server a test starts is stopped by it.
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "support/local_server.h"
#include "support/support.h"

using vmxkit::test::LocalServer;
using vmxkit::test::run_cli;

namespace {

std::string answer(const std::string& body) { return vmxkit::test::soap_answer(body); }

const std::string& kServiceContent = vmxkit::test::soap_service_content();

bool has(const std::string& body, const std::string& what) {
  return body.find(what) != std::string::npos;
}

// The answers every fake vCenter here gives alike: the service content, a login and one
// container view; nullopt for any other request.
std::optional<std::string> session_answer(const std::string& body) {
  if (has(body, "<RetrieveServiceContent")) return kServiceContent;
  if (has(body, "<Login")) {
    return answer("<LoginResponse xmlns=\"urn:vim25\"><returnval/></LoginResponse>");
  }
  if (has(body, "<CreateContainerView")) {
    return answer(
        "<CreateContainerViewResponse xmlns=\"urn:vim25\"><returnval type=\"ContainerView\">"
        "session[1]v1</returnval></CreateContainerViewResponse>");
  }
  return std::nullopt;
}

// A vCenter with two VMs whose property collector always has more to send: the same batch
// and the same token for every ContinueRetrievePropertiesEx.
std::string endless_vcenter(const std::string& body) {
  if (auto a = session_answer(body)) return *a;
  if (has(body, "<pathSet>view</pathSet>")) {  // how many the view holds
    return answer(
        "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><objects>"
        "<obj type=\"ContainerView\">session[1]v1</obj><propSet><name>view</name>"
        "<val xsi:type=\"ArrayOfManagedObjectReference\">"
        "<ManagedObjectReference type=\"VirtualMachine\">vm-1</ManagedObjectReference>"
        "<ManagedObjectReference type=\"VirtualMachine\">vm-2</ManagedObjectReference>"
        "</val></propSet></objects></returnval></RetrievePropertiesExResponse>");
  }
  if (has(body, "RetrievePropertiesEx")) {  // the first batch and every continuation
    return answer(
        "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><token>more</token>"
        "<objects><obj type=\"VirtualMachine\">vm-1</obj><propSet><name>name</name>"
        "<val xsi:type=\"xsd:string\">vm1</val></propSet></objects>"
        "</returnval></RetrievePropertiesExResponse>");
  }
  return answer("<EmptyResponse xmlns=\"urn:vim25\"/>");  // DestroyView, Logout
}

}  // namespace

TEST_CASE("lint --all-vms against a server that always has more stops after a few requests",
          "[cli][live]") {
  LocalServer server(endless_vcenter);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_cli(
      {"lint", "--server", server.url("root:pw"), "--allow-http", "--all-vms", "--timeout", "5"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("ContinueRetrievePropertiesEx") &&
                        Catch::Contains("stopped, as the server would be asked for ever"));
  CHECK(server.requests() <= 10);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("a password libcurl would not read as one is refused before any request, unprinted",
          "[cli][live]") {
  // `https://admin:S3cr/et@host` is the host "admin" with the port "S3cr" to libcurl; read by
  // hand it was the host "admin:S3cr", and the message printed `https://admin:S3cr/et@...`.
  LocalServer server(endless_vcenter);
  for (const std::string userinfo : {"admin:S3cr/et", "admin:S3cr#et", "admin:S3cr?et"}) {
    const std::string url = server.url(userinfo);
    for (const std::string command : {"lint", "topo"}) {
      INFO(command << " " << userinfo);
      const auto r =
          command == "lint"
              ? run_cli({"lint", "--server", url, "--allow-http", "--all-vms"})
              : run_cli({"topo", "--server", url, "--allow-http", "--esx-host", "esx01"});
      CHECK(r.code == 2);
      CHECK_THAT(r.err + r.out, !Catch::Contains("S3cr") && Catch::Contains("percent-encoded"));
    }
  }
  CHECK(server.requests() == 0);
}

TEST_CASE("a server fault that echoes the request shows no password", "[cli][live]") {
  // The fault text carries the Login request as the server got it, password included.
  LocalServer server([](const std::string& body) {
    if (has(body, "<RetrieveServiceContent")) return kServiceContent;
    std::string echoed;
    for (const char c : body) {
      if (c == '<') {
        echoed += "&lt;";
      } else if (c == '&') {
        echoed += "&amp;";
      } else {
        echoed += c;
      }
    }
    return answer(
        "<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>cannot parse " + echoed +
        "</faultstring><detail><InvalidRequestFault xmlns=\"urn:vim25\" "
        "xsi:type=\"InvalidRequest\"></InvalidRequestFault></detail></soapenv:Fault>");
  });
  const auto r =
      run_cli({"lint", "--server", server.url("root:Pa55%2Fw%3Crd"), "--allow-http", "--all-vms"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot parse") && !Catch::Contains("Pa55") &&
                        Catch::Contains("<password>***</password>"));
}

TEST_CASE("plain http:// with credentials is refused unless --allow-http", "[cli][live]") {
  LocalServer server(endless_vcenter);
  const auto r = run_cli({"lint", "--server", server.url("root:s3cret"), "--all-vms"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("plain http://") && Catch::Contains("--allow-http") &&
                        !Catch::Contains("s3cret"));
  CHECK(server.requests() == 0);
}

TEST_CASE("lint --server --verbose says each request, the server and how many were sent",
          "[cli][live]") {
  // A vCenter with no VM: the name given matches none.
  LocalServer server([](const std::string& body) {
    if (auto a = session_answer(body)) return *a;
    if (has(body, "RetrievePropertiesEx")) {
      return answer(
          "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval/>"
          "</RetrievePropertiesExResponse>");
    }
    return answer("<EmptyResponse xmlns=\"urn:vim25\"/>");  // DestroyView, Logout
  });
  const std::string url = server.url("root:pw");
  const std::string endpoint = "http://" + url.substr(url.find('@') + 1);
  const auto r = run_cli({"lint", "--server", url, "--allow-http", "--vm", "gpu-1", "--verbose"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("vmxkit: > RetrieveServiceContent\nvmxkit: > Login\n"
                                      "vmxkit: connected to " +
                                      endpoint + " (VMware vCenter Server 8.0.2, API 8.0.2.0)\n"));
  CHECK_THAT(r.err,
             Catch::Contains("vmxkit: error: " + endpoint + ": no VM named 'gpu-1'\n") &&
                 Catch::Contains("vmxkit: > Logout\nvmxkit: " + std::to_string(server.requests()) +
                                 " requests to " + endpoint + " in "));
  CHECK_THAT(r.out, Catch::Contains("0 files"));
}
