// SPDX-License-Identifier: Apache-2.0
#include "support/local_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <string>

namespace vmxkit::test {

std::string soap_answer(const std::string& body) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soapenv:Envelope "
         "xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
         "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body>" +
         body + "</soapenv:Body></soapenv:Envelope>";
}

const std::string& soap_service_content() {
  static const std::string content = soap_answer(
      "<RetrieveServiceContentResponse xmlns=\"urn:vim25\"><returnval>"
      "<rootFolder type=\"Folder\">group-d1</rootFolder>"
      "<propertyCollector type=\"PropertyCollector\">propertyCollector</propertyCollector>"
      "<viewManager type=\"ViewManager\">ViewManager</viewManager>"
      "<about><fullName>VMware vCenter Server 8.0.2</fullName><apiType>VirtualCenter</apiType>"
      "<apiVersion>8.0.2.0</apiVersion></about>"
      "<sessionManager type=\"SessionManager\">SessionManager</sessionManager>"
      "<searchIndex type=\"SearchIndex\">SearchIndex</searchIndex>"
      "</returnval></RetrieveServiceContentResponse>");
  return content;
}

LocalServer::LocalServer(Handler handler) : handler_(std::move(handler)) {
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

LocalServer::~LocalServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_);
}

std::string LocalServer::url(const std::string& userinfo) const {
  return "http://" + userinfo + "@127.0.0.1:" + std::to_string(port_) + "/sdk";
}

void LocalServer::serve() {
  while (!stop_) {
    pollfd p{listen_, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

void LocalServer::handle(int fd) {
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
  const std::string response = std::string("HTTP/1.1 ") +
                               (fault ? "500 Internal Server Error" : "200 OK") +
                               "\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  (void)::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
}

}  // namespace vmxkit::test
