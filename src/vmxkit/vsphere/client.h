// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/formats/vsphere/soap.h"

/// The vSphere API client: SOAP over HTTPS (libcurl, certificate verification on unless
/// `insecure`), login with a user and password or a session cookie, RetrievePropertiesEx and
/// ContinueRetrievePropertiesEx through the PropertyCollector in batches, logout. A library of
/// its own (vmxkit_client), so vmxkit::core does not depend on libcurl.
namespace vmxkit::vsphere {

/// A server as govc's GOVC_URL writes it: `https://user:password@host[:port]/sdk`, or only a
/// host name (https and /sdk implied).
struct ServerUrl {
  std::string scheme = "https";
  std::string host;  ///< host, host:port or [v6]:port
  std::string path = "/sdk";
  std::string username;
  std::string password;
  bool has_password = false;
  /// The URL without its credentials: what is sent to libcurl and shown in messages.
  std::string endpoint() const { return scheme + "://" + host + path; }
};
/// Parses `url` with libcurl's URL parser (CURLU), so its parts are those libcurl sees; the
/// user name and password are percent-decoded. Throws vmxkit::Error (never naming the
/// password) when libcurl reads no URL there (a password with a raw '/', '@', '?' or '#'), when
/// it is not an http(s) URL, or when it names no host.
ServerUrl parse_server_url(std::string_view url);
/// `url` with its password replaced by `***`, for messages, found where libcurl finds it; a
/// string libcurl reads no URL in loses everything between `scheme://` and its last '@'.
std::string redact_url(std::string_view url);

/// One HTTP exchange, for the transport.
struct HttpRequest {
  std::string url;
  std::string body;
  std::string soap_action;
  std::string cookie;  ///< `vmware_soap_session="..."`, empty before login
};
struct HttpResponse {
  long status = 0;
  std::string body;
  std::string session_cookie;  ///< the vmware_soap_session cookie the server set, if any
};
/// Sends a request; throws vmxkit::Error on transport failures (connection refused, timeout,
/// certificate that does not verify). The default is libcurl's.
using Transport = std::function<HttpResponse(const HttpRequest&)>;

struct ClientOptions {
  std::string server;    ///< the URL (parse_server_url)
  std::string username;  ///< used when the URL has none
  std::string password;  ///< used when the URL has none
  std::string session;   ///< a session cookie (VMXKIT_SESSION): no login, no logout
  /// username/password replace the URL's (govc's GOVC_USERNAME/GOVC_PASSWORD) instead of
  /// standing in where the URL has none (VMXKIT_USERNAME/VMXKIT_PASSWORD).
  bool override_url_credentials = false;
  bool insecure = false;  ///< skip the TLS certificate and host name checks
  /// Send credentials (a password, a session cookie) over plain http://: refused without it.
  bool allow_http = false;
  std::string ca_file;  ///< CA certificates (PEM) to verify the server with
  /// An HTTP proxy to reach the server through (`http://host:port`, CONNECT for https), used
  /// for every host (no_proxy does not apply). Empty: libcurl's environment (https_proxy...).
  std::string proxy;
  long connect_timeout_ms = 10'000;
  long timeout_ms = 60'000;    ///< per request, connection included
  unsigned max_objects = 100;  ///< objects per RetrievePropertiesEx answer
  /// Called before each request with its method name (for --verbose).
  std::function<void(std::string_view method)> on_request;
};

/// Fills a ClientOptions from the environment as govc does: VMXKIT_SERVER, else GOVC_URL (when
/// `server` is empty); VMXKIT_USERNAME/VMXKIT_PASSWORD (where the URL has none), else
/// GOVC_USERNAME/GOVC_PASSWORD (replacing the URL's; a value naming a readable file stands for
/// its trimmed contents, as govc reads them); VMXKIT_SESSION; VMXKIT_INSECURE or GOVC_INSECURE
/// (1 or true, any case); VMXKIT_CA_FILE; VMXKIT_PROXY.
ClientOptions options_from_environment(std::string server, bool insecure);

/// The libcurl transport (exposed for tests of its error messages).
Transport curl_transport(const ClientOptions& options);

class Client {
 public:
  /// Parses the URL; sends nothing yet. Throws vmxkit::Error when it is not one, or when it is
  /// plain http:// and there are credentials to send, unless `options.allow_http`.
  explicit Client(ClientOptions options, Transport transport = {});
  /// Logs out when this client logged in; errors there are ignored.
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// RetrieveServiceContent, then Login (or the session given). Throws soap::Fault
  /// (InvalidLogin...) or vmxkit::Error.
  void connect();
  /// Ends the session this client opened (none for a session given by VMXKIT_SESSION).
  void logout();

  const soap::ServiceContent& content() const { return content_; }
  /// The server's URL without credentials.
  std::string endpoint() const { return url_.endpoint(); }
  /// Requests sent so far.
  std::size_t requests() const { return requests_; }
  unsigned max_objects() const { return options_.max_objects; }

  /// One method call: the SOAP body sent, the answer parsed (faults thrown as soap::Fault). A
  /// fault or error whose text holds the password or the session cookie (a server that
  /// echoes the request) has them replaced by `***`.
  soap::Response call(std::string_view method, const std::string& body);

  /// A ContainerView of `type` objects under `container` (recursive); destroy it after use.
  soap::Moref create_container_view(const soap::Moref& container, std::string_view type);
  void destroy_view(const soap::Moref& view);
  /// SearchIndex.FindByInventoryPath ("/DC0/vm/folder"); nullopt when nothing is there.
  std::optional<soap::Moref> find_by_inventory_path(std::string_view path);

  /// RetrievePropertiesEx, then ContinueRetrievePropertiesEx while the server has more: one
  /// request per batch (at most max_objects objects each); `batch` gets each answer as it
  /// comes, its bytes (for vsphere::load) and its objects.
  ///
  /// The exchange is finite whatever the server answers. A RetrieveResult announces no total,
  /// so the count is what was asked for (`query.objects`) or, for a ContainerView, what its
  /// `view` property holds (read once, when a first continuation is needed). Throws
  /// vmxkit::Error, with the batches so far given to `batch`, when a token comes again, when a
  /// continued batch brings no object not seen before, or when the objects exceed the count
  /// (for a view, by more than one batch: objects made or removed between the two reads).
  /// A token after all the objects asked for is not followed.
  using BatchFunction = std::function<void(const soap::Response&, const soap::RetrieveResult&)>;
  void retrieve(soap::PropertyQuery query, const BatchFunction& batch);

  /// The name of every object of `type` under `container` (a ContainerView, in batches).
  std::vector<std::pair<soap::Moref, std::string>> list_names(const soap::Moref& container,
                                                              std::string_view type);

 private:
  ClientOptions options_;
  ServerUrl url_;
  Transport transport_;
  soap::ServiceContent content_;
  std::size_t view_size(const soap::Moref& view);
  std::string redact(std::string text) const;

  std::string cookie_;
  std::string soap_action_ = "urn:vim25/6.5";
  bool logged_in_ = false;
  std::size_t requests_ = 0;
};

/// A HostSystem by name from the API: its PCI devices, passthrough and SR-IOV state, NUMA
/// nodes and system UUID. Throws vmxkit::Error naming the hosts there are when none has the
/// name.
pci::ApiHost fetch_host(Client& client, std::string_view name);
/// HostSystems by moref (the hosts VMs run on), in one request.
std::vector<pci::ApiHost> fetch_hosts(Client& client, const std::vector<soap::Moref>& hosts);
/// The ConfigTarget of the host (moref `host-21`): QueryConfigTarget on the EnvironmentBrowser
/// of the compute resource the host belongs to, for that host. Returns the answer's bytes (a
/// SOAP QueryConfigTargetResponse, which read_vendor_device_groups reads). Throws soap::Fault or
/// vmxkit::Error.
std::string fetch_config_target(Client& client, const std::string& host);
/// The HostSystem properties fetch_host reads.
const std::vector<std::string>& host_properties();

}  // namespace vmxkit::vsphere
