// SPDX-License-Identifier: Apache-2.0
// The live commands (`--server`) against a server on 127.0.0.1 that misbehaves: one that always
// has more to send, one that echoes the request in its fault, and URLs whose password libcurl
// reads differently from a hand parser. Each server a test starts is stopped by it.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "support/support.h"

using vmxkit::test::run_cli;

namespace {

std::string answer(const std::string& body) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soapenv:Envelope "
         "xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
         "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body>" +
         body + "</soapenv:Body></soapenv:Envelope>";
}

const std::string kServiceContent = answer(
    "<RetrieveServiceContentResponse xmlns=\"urn:vim25\"><returnval>"
    "<rootFolder type=\"Folder\">group-d1</rootFolder>"
    "<propertyCollector type=\"PropertyCollector\">propertyCollector</propertyCollector>"
    "<viewManager type=\"ViewManager\">ViewManager</viewManager>"
    "<about><fullName>VMware vCenter Server 8.0.2</fullName><apiType>VirtualCenter</apiType>"
    "<apiVersion>8.0.2.0</apiVersion></about>"
    "<sessionManager type=\"SessionManager\">SessionManager</sessionManager>"
    "<searchIndex type=\"SearchIndex\">SearchIndex</searchIndex>"
    "</returnval></RetrieveServiceContentResponse>");

// An HTTP/1.1 server on 127.0.0.1 (a free port), one request per connection, answering each
// POST body with what `handler` returns (status 200, or 500 for a body holding a fault).
class LocalServer {
 public:
  using Handler = std::function<std::string(const std::string& body)>;
  explicit LocalServer(Handler handler) : handler_(std::move(handler)) {
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(listen_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listen_, 16) == 0);
    socklen_t size = sizeof addr;
    REQUIRE(::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &size) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;
  ~LocalServer() {
    stop_ = true;
    thread_.join();
    ::close(listen_);
  }
  std::string url(const std::string& userinfo) const {
    return "http://" + userinfo + "@127.0.0.1:" + std::to_string(port_) + "/sdk";
  }
  int requests() const { return requests_; }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listen_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      handle(fd);
      ::close(fd);
    }
  }

  void handle(int fd) {
    std::string request;
    char buffer[4096];
    std::size_t body_at = std::string::npos;
    std::size_t length = 0;
    bool continued = false;
    while (body_at == std::string::npos || request.size() < body_at + length) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return;
      request.append(buffer, static_cast<std::size_t>(n));
      if (body_at != std::string::npos) continue;
      const auto end = request.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      body_at = end + 4;
      std::string head = request.substr(0, end);
      for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (const auto at = head.find("content-length:"); at != std::string::npos) {
        length = std::stoul(head.substr(at + 15));
      }
      if (!continued && head.find("expect: 100-continue") != std::string::npos) {
        continued = true;
        const std::string go = "HTTP/1.1 100 Continue\r\n\r\n";
        if (::send(fd, go.data(), go.size(), MSG_NOSIGNAL) < 0) return;
      }
    }
    ++requests_;
    const std::string body = handler_(request.substr(body_at, length));
    const bool fault = body.find("<soapenv:Fault>") != std::string::npos;
    const std::string response =
        std::string("HTTP/1.1 ") + (fault ? "500 Internal Server Error" : "200 OK") +
        "\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    (void)::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
  }

  Handler handler_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

bool has(const std::string& body, const std::string& what) {
  return body.find(what) != std::string::npos;
}

// A vCenter with two VMs whose property collector always has more to send: the same batch
// and the same token for every ContinueRetrievePropertiesEx.
std::string endless_vcenter(const std::string& body) {
  if (has(body, "<RetrieveServiceContent")) return kServiceContent;
  if (has(body, "<Login")) {
    return answer("<LoginResponse xmlns=\"urn:vim25\"><returnval/></LoginResponse>");
  }
  if (has(body, "<CreateContainerView")) {
    return answer(
        "<CreateContainerViewResponse xmlns=\"urn:vim25\"><returnval type=\"ContainerView\">"
        "session[1]v1</returnval></CreateContainerViewResponse>");
  }
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
