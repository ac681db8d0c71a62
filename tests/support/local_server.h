// SPDX-License-Identifier: Apache-2.0
// A SOAP server on 127.0.0.1 for the tests of what talks to vCenter (the live commands, the
// public API's server calls): each request's body answered by a function, on a free port,
// stopped when the test's object goes.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace vmxkit::test {

/// A SOAP envelope around `body`.
std::string soap_answer(const std::string& body);

/// The RetrieveServiceContent answer of a vCenter 8.0.2 (its property collector, view manager,
/// session manager and search index).
const std::string& soap_service_content();

/// An HTTP/1.1 server on 127.0.0.1 (a free port), one request per connection, answering each
/// POST body with what `handler` returns (status 200, or 500 for a body holding a fault). The
/// handler runs on the server's thread.
class LocalServer {
 public:
  using Handler = std::function<std::string(const std::string& body)>;
  explicit LocalServer(Handler handler);
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;
  ~LocalServer();
  /// `http://USERINFO@127.0.0.1:PORT/sdk`.
  std::string url(const std::string& userinfo) const;
  int requests() const { return requests_; }

 private:
  void serve();
  void handle(int fd);

  Handler handler_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace vmxkit::test
