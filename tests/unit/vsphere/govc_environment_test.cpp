// SPDX-License-Identifier: Apache-2.0
// GOVC_URL, GOVC_USERNAME, GOVC_PASSWORD and GOVC_INSECURE read as govc reads them
// (govc/flags/client.go and session.Secret at govmomi v0.24.2).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/vsphere/client.h"

using vmxkit::vsphere::Client;
using vmxkit::vsphere::HttpRequest;
using vmxkit::vsphere::HttpResponse;
using vmxkit::vsphere::options_from_environment;

namespace {

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// No VMXKIT_* variable of the developer's shell may decide these tests.
struct NoVmxkitEnvironment {
  ScopedEnv server{"VMXKIT_SERVER", std::nullopt};
  ScopedEnv user{"VMXKIT_USERNAME", std::nullopt};
  ScopedEnv password{"VMXKIT_PASSWORD", std::nullopt};
  ScopedEnv insecure{"VMXKIT_INSECURE", std::nullopt};
  ScopedEnv session{"VMXKIT_SESSION", std::nullopt};
};

const std::string kServiceContent =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soapenv:Envelope "
    "xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\"><soapenv:Body>"
    "<RetrieveServiceContentResponse xmlns=\"urn:vim25\"><returnval>"
    "<rootFolder type=\"Folder\">group-d1</rootFolder>"
    "<propertyCollector type=\"PropertyCollector\">propertyCollector</propertyCollector>"
    "<about><apiType>VirtualCenter</apiType><apiVersion>8.0.2.0</apiVersion></about>"
    "<sessionManager type=\"SessionManager\">SessionManager</sessionManager>"
    "</returnval></RetrieveServiceContentResponse></soapenv:Body></soapenv:Envelope>";

// The body of the Login request the client sends for these options.
std::string login_body(vmxkit::vsphere::ClientOptions options) {
  std::vector<HttpRequest> sent;
  Client client(std::move(options), [&sent](const HttpRequest& r) {
    sent.push_back(r);
    if (sent.size() == 1) return HttpResponse{200, kServiceContent, {}};
    return HttpResponse{500, "not a SOAP answer", {}};
  });
  CHECK_THROWS_AS(client.connect(), vmxkit::Error);
  REQUIRE(sent.size() >= 2);
  return sent[1].body;
}

}  // namespace

TEST_CASE("GOVC_URL names the server when neither --server nor VMXKIT_SERVER does",
          "[vsphere][client][environment]") {
  NoVmxkitEnvironment clean;
  ScopedEnv url("GOVC_URL", "vc.example.com");
  CHECK(options_from_environment("", false).server == "vc.example.com");
  CHECK(options_from_environment("https://other/sdk", false).server == "https://other/sdk");
  ScopedEnv vmxkit_url("VMXKIT_SERVER", "https://mine/sdk");
  CHECK(options_from_environment("", false).server == "https://mine/sdk");
}

TEST_CASE("without any server the error names both VMXKIT_SERVER and GOVC_URL",
          "[vsphere][client][environment]") {
  NoVmxkitEnvironment clean;
  ScopedEnv url("GOVC_URL", std::nullopt);
  CHECK_THROWS_WITH(options_from_environment("", false),
                    Catch::Contains("VMXKIT_SERVER") && Catch::Contains("GOVC_URL"));
}

TEST_CASE("GOVC_INSECURE is 1 or true in any case, anything else is not insecure",
          "[vsphere][client][environment]") {
  NoVmxkitEnvironment clean;
  for (const char* yes : {"1", "true", "TRUE", "True"}) {
    ScopedEnv insecure("GOVC_INSECURE", std::string(yes));
    CHECK(options_from_environment("vc", false).insecure);
  }
  for (const char* no : {"0", "false", "yes", ""}) {
    ScopedEnv insecure("GOVC_INSECURE", std::string(no));
    CHECK_FALSE(options_from_environment("vc", false).insecure);
  }
}

TEST_CASE(
    "GOVC_USERNAME and GOVC_PASSWORD replace the URL's, and a file path stands for its "
    "trimmed contents",
    "[vsphere][client][environment]") {
  NoVmxkitEnvironment clean;
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "password", "  s3cr&t\n");
  ScopedEnv user("GOVC_USERNAME", "administrator@vsphere.local");
  ScopedEnv password("GOVC_PASSWORD", (dir / "password").string());
  const auto options = options_from_environment("https://root:old@vc/sdk", false);
  CHECK(options.password == "s3cr&t");
  const std::string body = login_body(options);
  CHECK(body.find("<userName>administrator@vsphere.local</userName>") != std::string::npos);
  CHECK(body.find("<password>s3cr&amp;t</password>") != std::string::npos);
  CHECK(body.find("old") == std::string::npos);
}

TEST_CASE("VMXKIT_USERNAME and VMXKIT_PASSWORD still only stand in where the URL has none",
          "[vsphere][client][environment]") {
  NoVmxkitEnvironment clean;
  ScopedEnv govc_user("GOVC_USERNAME", "ignored");
  ScopedEnv user("VMXKIT_USERNAME", "someone");
  ScopedEnv password("VMXKIT_PASSWORD", "pw");
  const std::string body = login_body(options_from_environment("https://root:kept@vc/sdk", false));
  CHECK(body.find("<userName>root</userName>") != std::string::npos);
  CHECK(body.find("<password>kept</password>") != std::string::npos);
}
