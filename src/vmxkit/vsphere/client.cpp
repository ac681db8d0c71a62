// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/xml_support.h"
#include "vmxkit/vsphere/curl_library.h"

namespace vmxkit::vsphere {
namespace {

// A CURLU handle (libcurl's URL parser), freed with the scope.
class UrlHandle {
 public:
  UrlHandle() : url_(curl_library().url()) {
    if (url_ == nullptr) throw Error("libcurl: cannot create a URL handle");
  }
  ~UrlHandle() { curl_library().url_cleanup(url_); }
  UrlHandle(const UrlHandle&) = delete;
  UrlHandle& operator=(const UrlHandle&) = delete;
  CURLU* get() const { return url_; }
  // A part of the URL; nullopt when the URL has none. `flags`: CURLU_URLDECODE for the value.
  std::optional<std::string> part(CURLUPart which, unsigned flags = 0) const {
    char* value = nullptr;
    if (curl_library().url_get(url_, which, &value, flags) != CURLUE_OK || value == nullptr) {
      return std::nullopt;
    }
    std::string out(value);
    curl_library().free(value);
    return out;
  }

 private:
  CURLU* url_;
};

// `url` as a URL libcurl reads: https:// is implied when no scheme is given (govc's GOVC_URL
// may be a bare host). Returns the libcurl error, CURLUE_OK when it parsed.
CURLUcode parse_with_curl(const UrlHandle& handle, std::string_view url) {
  std::string full(url);
  if (full.find("://") == std::string::npos) full = "https://" + full;
  return curl_library().url_set(handle.get(), CURLUPART_URL, full.c_str(),
                                CURLU_NON_SUPPORT_SCHEME);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// --- libcurl

struct CurlHandle {
  CURL* curl = nullptr;
  CurlHandle() { curl = curl_library().easy_init(); }
  ~CurlHandle() {
    if (curl != nullptr) curl_library().easy_cleanup(curl);
  }
  CurlHandle(const CurlHandle&) = delete;
  CurlHandle& operator=(const CurlHandle&) = delete;
};

struct Received {
  std::string body;
  std::string cookie;
  bool too_large = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* r = static_cast<Received*>(user);
  const std::size_t n = size * count;
  if (r->body.size() + n > xml::kMaxDocumentBytes) {
    r->too_large = true;
    return 0;  // stops the transfer
  }
  r->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* r = static_cast<Received*>(user);
  const std::size_t n = size * count;
  std::string_view line(data, n);
  constexpr std::string_view kSetCookie = "set-cookie:";
  if (line.size() > kSetCookie.size()) {
    std::string head(line.substr(0, kSetCookie.size()));
    for (char& c : head) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (head == kSetCookie) {
      std::string_view v = line.substr(kSetCookie.size());
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      v = v.substr(0, v.find_first_of(";\r\n"));
      if (v.starts_with("vmware_soap_session=")) r->cookie = std::string(v);
    }
  }
  return n;
}

std::string describe_curl_error(CURLcode code, const char* buffer, const std::string& endpoint,
                                const ClientOptions& o) {
  const std::string detail = buffer[0] != '\0' ? buffer : curl_library().easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return fmt::format("{}: no answer within {} s (timeout; --timeout sets it): {}", endpoint,
                         static_cast<double>(o.timeout_ms) / 1000.0, detail);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
      return fmt::format("{}: cannot connect: {}", endpoint, detail);
    case CURLE_PEER_FAILED_VERIFICATION:
#if LIBCURL_VERSION_NUM < 0x073e00
    case CURLE_SSL_CACERT:
#endif
      return fmt::format(
          "{}: the server's TLS certificate does not verify ({}); give its CA with "
          "VMXKIT_CA_FILE, or pass --insecure to skip the check",
          endpoint, detail);
    case CURLE_SSL_CONNECT_ERROR:
      return fmt::format("{}: TLS handshake failed: {}", endpoint, detail);
    default:
      return fmt::format("{}: {}", endpoint, detail);
  }
}

}  // namespace

ServerUrl parse_server_url(std::string_view url) {
  // Parsed as libcurl parses it, so that the parts are those libcurl would see: a password
  // with a raw '/' ends the authority there (`https://admin:S3cr/et@host` is the host "admin"
  // with the port "S3cr"), which an own parser read as a host "admin:S3cr" and a path
  // "/et@host", and then printed whole in every message.
  const UrlHandle handle;
  if (const CURLUcode rc = parse_with_curl(handle, url); rc != CURLUE_OK) {
    throw Error(fmt::format(
        "--server {}: not a URL ({}); a user name or password holding '/', '@', '?', '#' or "
        "'%' is written percent-encoded (%2F, %40, %3F, %23, %25)",
        redact_url(url), curl_library().url_strerror(rc)));
  }
  ServerUrl u;
  u.scheme = handle.part(CURLUPART_SCHEME).value_or("https");
  if (u.scheme != "https" && u.scheme != "http") {
    throw Error(
        fmt::format("--server {}: expected an https:// URL (or a host name)", redact_url(url)));
  }
  u.host = handle.part(CURLUPART_HOST).value_or("");
  if (u.host.empty()) throw Error(fmt::format("--server {}: no host", redact_url(url)));
  if (const auto port = handle.part(CURLUPART_PORT)) u.host += ":" + *port;
  const std::string path = handle.part(CURLUPART_PATH).value_or("/");
  if (path != "/") u.path = path;
  if (const auto query = handle.part(CURLUPART_QUERY)) u.path += "?" + *query;
  u.username = handle.part(CURLUPART_USER, CURLU_URLDECODE).value_or("");
  if (const auto password = handle.part(CURLUPART_PASSWORD, CURLU_URLDECODE)) {
    u.password = *password;
    u.has_password = true;
  }
  return u;
}

std::string redact_url(std::string_view url) {
  const UrlHandle handle;
  if (parse_with_curl(handle, url) != CURLUE_OK) {
    // Where libcurl sees no URL, the user information ends at the last '@', wherever it is:
    // a password with a raw '/' or '#' holds the characters that end the authority.
    const std::size_t scheme = url.find("://");
    const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
    const std::size_t at = url.rfind('@');
    if (at == std::string_view::npos || at < start) return std::string(url);
    return std::string(url.substr(0, start)) + "***" + std::string(url.substr(at));
  }
  const auto password = handle.part(CURLUPART_PASSWORD);
  if (!password) return std::string(url);
  // The URL as written, with the password (as written, percent-encoded or not) replaced: the
  // user information is what follows the scheme up to the '@' that libcurl took as its end.
  const auto user = handle.part(CURLUPART_USER).value_or("");
  const std::size_t scheme = url.find("://");
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const std::string written = user + ":" + *password + "@";
  if (url.substr(start, written.size()) == written) {
    return std::string(url.substr(0, start)) + user + ":***" +
           std::string(url.substr(start + written.size() - 1));
  }
  curl_library().url_set(handle.get(), CURLUPART_PASSWORD, "***", 0);
  return handle.part(CURLUPART_URL).value_or("***");
}

namespace {

// govc's session.Secret (session/manager.go at v0.24.2): a value naming a readable file stands
// for the file's contents, trimmed; a file that exists but cannot be read is an error; any
// other value is itself. The error names the variable, never its value.
std::string govc_secret(const char* name) {
  std::string value = env(name);
  std::error_code ec;
  if (value.empty() || !std::filesystem::is_regular_file(value, ec)) return value;
  errno = 0;
  std::ifstream file(value, std::ios::binary);
  if (!file) {
    if (errno == EACCES) throw Error(fmt::format("{}: the file it names cannot be read", name));
    return value;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  std::string text = contents.str();
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
  text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
  return text;
}

// govc's GOVC_INSECURE (flags/client.go at v0.24.2): "1" or "true", in any case.
bool true_flag(std::string_view value) { return value == "1" || iequals(value, "true"); }

}  // namespace

ClientOptions options_from_environment(std::string server, bool insecure) {
  ClientOptions o;
  o.server = server.empty() ? env("VMXKIT_SERVER") : std::move(server);
  if (o.server.empty()) o.server = env("GOVC_URL");
  if (o.server.empty()) {
    throw Error(
        "no server: give --server URL or set VMXKIT_SERVER or GOVC_URL "
        "(https://user:pass@host/sdk)");
  }
  o.username = env("VMXKIT_USERNAME");
  o.password = env("VMXKIT_PASSWORD");
  // govc's GOVC_USERNAME and GOVC_PASSWORD replace the URL's user and password.
  if (o.username.empty() && o.password.empty()) {
    o.username = govc_secret("GOVC_USERNAME");
    o.password = govc_secret("GOVC_PASSWORD");
    o.override_url_credentials = !o.username.empty() || !o.password.empty();
  }
  o.session = env("VMXKIT_SESSION");
  o.ca_file = env("VMXKIT_CA_FILE");
  o.proxy = env("VMXKIT_PROXY");
  o.insecure = insecure || true_flag(env("VMXKIT_INSECURE")) || true_flag(env("GOVC_INSECURE"));
  return o;
}

Transport curl_transport(const ClientOptions& options) {
  auto handle = std::make_shared<CurlHandle>();
  if (handle->curl == nullptr) throw Error("libcurl: cannot create a handle");
  return [handle, options](const HttpRequest& request) {
    const CurlLibrary& lib = curl_library();
    CURL* curl = handle->curl;
    lib.easy_reset(curl);
    Received received;
    char error[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    headers = lib.slist_append(headers, "Content-Type: text/xml; charset=utf-8");
    headers = lib.slist_append(headers, ("SOAPAction: \"" + request.soap_action + "\"").c_str());
    if (!request.cookie.empty()) {
      headers = lib.slist_append(headers, ("Cookie: " + request.cookie).c_str());
    }
    lib.easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    lib.easy_setopt(curl, CURLOPT_POST, 1L);
    lib.easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    lib.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                    static_cast<curl_off_t>(request.body.size()));
    lib.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    lib.easy_setopt(curl, CURLOPT_WRITEDATA, &received);
    lib.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    lib.easy_setopt(curl, CURLOPT_HEADERDATA, &received);
    lib.easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options.connect_timeout_ms);
    lib.easy_setopt(curl, CURLOPT_TIMEOUT_MS, options.timeout_ms);
    lib.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
    lib.easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, options.insecure ? 0L : 1L);
    lib.easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, options.insecure ? 0L : 2L);
    if (!options.ca_file.empty()) lib.easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
    if (!options.proxy.empty()) {
      lib.easy_setopt(curl, CURLOPT_PROXY, options.proxy.c_str());
      lib.easy_setopt(curl, CURLOPT_NOPROXY, "");  // the proxy asked for, whatever no_proxy says
    }
    const CURLcode code = lib.easy_perform(curl);
    lib.slist_free_all(headers);
    const std::string endpoint = parse_server_url(request.url).endpoint();
    if (received.too_large) {
      throw Error(
          fmt::format("{}: the answer is larger than {} MiB; ask for fewer objects per "
                      "batch (--batch-size)",
                      endpoint, xml::kMaxDocumentBytes >> 20));
    }
    if (code != CURLE_OK) throw Error(describe_curl_error(code, error, endpoint, options));
    HttpResponse response;
    lib.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    response.body = std::move(received.body);
    response.session_cookie = std::move(received.cookie);
    return response;
  };
}

// --- Client

Client::Client(ClientOptions options, Transport transport)
    : options_(std::move(options)), url_(parse_server_url(options_.server)) {
  if (options_.override_url_credentials) {
    if (!options_.username.empty()) url_.username = options_.username;
    if (!options_.password.empty()) {
      url_.password = options_.password;
      url_.has_password = true;
    }
  } else if (url_.username.empty()) {
    url_.username = options_.username;
    if (!url_.has_password) url_.password = options_.password;
  } else if (!url_.has_password) {
    url_.password = options_.password;
  }
  if (!options_.session.empty()) {
    cookie_ = options_.session.find('=') == std::string::npos
                  ? "vmware_soap_session=" + options_.session
                  : options_.session;
  }
  const bool credentials = !url_.username.empty() || !url_.password.empty() || !cookie_.empty();
  if (url_.scheme == "http" && credentials && !options_.allow_http) {
    throw Error(fmt::format(
        "{}: plain http:// would send the {} unencrypted; use https://, or pass --allow-http "
        "to send it anyway",
        url_.endpoint(), cookie_.empty() ? "user name and password" : "session cookie"));
  }
  transport_ = transport ? std::move(transport) : curl_transport(options_);
}

namespace {

bool is_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// `text` with every occurrence of `secret` replaced by `***`. A secret of fewer than four
// bytes only where no letter or digit adjoins it: replaced everywhere, "e" would garble every
// message, and so short a password is no secret a message could give away.
void replace_secret(std::string& text, std::string_view secret) {
  if (secret.empty()) return;
  for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    const std::size_t end = at + secret.size();
    const bool delimited =
        (at == 0 || !is_alnum(text[at - 1])) && (end == text.size() || !is_alnum(text[end]));
    if (secret.size() < 4 && !delimited) {
      at = end;
      continue;
    }
    text.replace(at, secret.size(), "***");
    at += 3;
  }
}

}  // namespace

std::string Client::redact(std::string text) const {
  replace_secret(text, url_.password);
  std::string escaped;
  xml::escape_append(url_.password, escaped);
  replace_secret(text, escaped);  // as the request body carried it
  if (const auto eq = cookie_.find('='); eq != std::string::npos) {
    replace_secret(text, std::string_view(cookie_).substr(eq + 1));
  }
  return text;
}

Client::~Client() {
  try {
    logout();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a failed logout leaves the session to expire
  }
}

soap::Response Client::call(std::string_view method, const std::string& body) {
  if (options_.on_request) options_.on_request(method);
  ++requests_;
  HttpRequest request{url_.endpoint(), body, soap_action_, cookie_};
  HttpResponse response = transport_(request);
  if (!response.session_cookie.empty() && options_.session.empty()) {
    cookie_ = response.session_cookie;
  }
  try {
    return soap::parse_response(url_.endpoint(), std::move(response.body), response.status, method);
  } catch (const soap::Fault& f) {
    std::string message = redact(f.what());
    if (message == f.what()) throw;
    throw soap::Fault(f.type(), message);
  } catch (const Error& e) {
    std::string message = redact(e.what());
    if (message == e.what()) throw;
    throw Error(message);
  }
}

void Client::connect() {
  content_ =
      soap::parse_service_content(call("RetrieveServiceContent", soap::retrieve_service_content()));
  if (!content_.api_version.empty()) soap_action_ = "urn:vim25/" + content_.api_version;
  if (!options_.session.empty()) return;  // the session given is used as it is
  if (url_.username.empty()) {
    throw Error(
        fmt::format("{}: no user name: put it in the URL (https://user:pass@host/sdk) "
                    "or set VMXKIT_USERNAME and VMXKIT_PASSWORD, or give a session in "
                    "VMXKIT_SESSION",
                    endpoint()));
  }
  std::string body;
  try {
    body = soap::login(content_.session_manager, url_.username, url_.password);
  } catch (const Error&) {
    throw Error("the user name or password holds a byte a SOAP request cannot carry");
  }
  call("Login", body);
  logged_in_ = true;
}

void Client::logout() {
  if (!logged_in_) return;
  logged_in_ = false;
  call("Logout", soap::logout(content_.session_manager));
}

soap::Moref Client::create_container_view(const soap::Moref& container, std::string_view type) {
  const soap::Response r =
      call("CreateContainerView",
           soap::create_container_view(content_.view_manager, container, type, true));
  return soap::parse_moref(xml::child(r.result, "returnval"));
}

void Client::destroy_view(const soap::Moref& view) {
  call("DestroyView", soap::destroy_view(view));
}

std::optional<soap::Moref> Client::find_by_inventory_path(std::string_view path) {
  const soap::Response r =
      call("FindByInventoryPath", soap::find_by_inventory_path(content_.search_index, path));
  const pugi::xml_node rv = xml::child(r.result, "returnval");
  if (!rv) return std::nullopt;
  return soap::parse_moref(rv);
}

namespace {

// What keeps one RetrievePropertiesEx exchange finite (Client::retrieve).
class ContinuationGuard {
 public:
  ContinuationGuard(std::string endpoint, std::size_t slack)
      : endpoint_(std::move(endpoint)), slack_(slack) {}
  void set_count(std::size_t count, bool exact) {
    count_ = count;
    if (exact) slack_ = 0;
  }
  bool count_known() const { return count_.has_value(); }
  // Takes one answer in; throws when it shows a server that would go on for ever.
  void add(const soap::RetrieveResult& result, bool continued) {
    std::size_t fresh = 0;
    for (const soap::ObjectContent& o : result.objects) fresh += seen_.insert(o.obj).second;
    if (continued && fresh == 0) {
      fail("a continued batch brought no object not sent before", result.token);
    }
    check_count(result.token);
    if (!result.token.empty() && !tokens_.insert(result.token).second) {
      fail("the token came again", result.token);
    }
  }
  // Whether every object asked for has come (a token after them is not followed). Not for a
  // view, whose count may be short by objects removed since the first answer.
  bool complete() const { return count_ && slack_ == 0 && seen_.size() >= *count_; }
  void check_count(const std::string& token) const {
    if (count_ && seen_.size() > *count_ + slack_) {
      fail(fmt::format("{} objects came where it announced {}", seen_.size(), *count_), token);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& token) const {
    throw Error(fmt::format(
        "{}: ContinueRetrievePropertiesEx: {} (token '{}', {} objects so far); stopped, as the "
        "server would be asked for ever",
        endpoint_, what, token.substr(0, 64), seen_.size()));
  }

  std::string endpoint_;
  std::size_t slack_;
  std::optional<std::size_t> count_;
  std::set<soap::Moref> seen_;
  std::set<std::string> tokens_;
};

}  // namespace

void Client::retrieve(soap::PropertyQuery query, const BatchFunction& batch) {
  query.max_objects = query.max_objects != 0 ? query.max_objects : options_.max_objects;
  ContinuationGuard guard(url_.endpoint(), query.max_objects);
  if (!query.objects.empty()) guard.set_count(query.objects.size(), true);
  soap::Response r = call("RetrievePropertiesEx",
                          soap::retrieve_properties_ex(content_.property_collector, query));
  for (bool continued = false;; continued = true) {
    const soap::RetrieveResult result = soap::parse_retrieve_result(r);
    guard.add(result, continued);
    batch(r, result);
    if (result.token.empty()) return;
    if (!guard.count_known() && !query.view.empty()) {
      guard.set_count(view_size(query.view), false);
      guard.check_count(result.token);
    }
    if (guard.complete()) return;
    r = call("ContinueRetrievePropertiesEx",
             soap::continue_retrieve_properties_ex(content_.property_collector, result.token));
  }
}

std::size_t Client::view_size(const soap::Moref& view) {
  soap::PropertyQuery q;
  q.type = view.type.empty() ? std::string("ContainerView") : view.type;
  q.paths = {"view"};
  q.objects = {view};
  std::size_t count = 0;
  retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& result) {
    for (const soap::ObjectContent& o : result.objects) {
      for (const pugi::xml_node member : o.prop("view").children()) {
        count += member.type() == pugi::node_element;
      }
    }
  });
  return count;
}

std::vector<std::pair<soap::Moref, std::string>> Client::list_names(const soap::Moref& container,
                                                                    std::string_view type) {
  const soap::Moref view = create_container_view(container, type);
  std::vector<std::pair<soap::Moref, std::string>> out;
  soap::PropertyQuery q;
  q.type = std::string(type);
  q.paths = {"name"};
  q.view = view;
  q.max_objects = 0;
  try {
    retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& result) {
      for (const soap::ObjectContent& o : result.objects) {
        out.emplace_back(o.obj, soap::text(o.prop("name")));
      }
    });
  } catch (...) {
    try {
      destroy_view(view);
    } catch (...) {  // NOLINT(bugprone-empty-catch): the first error is the one to report
    }
    throw;
  }
  destroy_view(view);
  return out;
}

const std::vector<std::string>& host_properties() {
  static const std::vector<std::string> kPaths = {"name",
                                                  "hardware.pciDevice",
                                                  "config.pciPassthruInfo",
                                                  "hardware.numaInfo",
                                                  "hardware.systemInfo.uuid",
                                                  "config.sharedPassthruGpuTypes",
                                                  "config.sharedGpuCapabilities"};
  return kPaths;
}

std::vector<pci::ApiHost> fetch_hosts(Client& client, const std::vector<soap::Moref>& hosts) {
  std::vector<pci::ApiHost> out;
  if (hosts.empty()) return out;
  soap::PropertyQuery q;
  q.type = "HostSystem";
  q.paths = host_properties();
  q.objects = hosts;
  client.retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& result) {
    for (const soap::ObjectContent& o : result.objects) {
      if (!o.prop("hardware.pciDevice") && !o.missing.empty()) continue;  // vanished
      out.push_back(soap::api_host(o));
      // Asked for: a host that leaves them out offers no vGPU type, unless it could not read them.
      out.back().vgpu_types_read =
          std::none_of(o.missing.begin(), o.missing.end(),
                       [](const auto& m) { return m.first.starts_with("config.shared"); });
    }
  });
  return out;
}

namespace {

// One managed-object property of one object, as a moref (`parent`, `environmentBrowser`).
soap::Moref moref_property(Client& client, const soap::Moref& object, const std::string& path) {
  soap::PropertyQuery q;
  q.type = object.type;
  q.paths = {path};
  q.objects = {object};
  soap::Moref out;
  client.retrieve(q, [&](const soap::Response&, const soap::RetrieveResult& result) {
    for (const soap::ObjectContent& o : result.objects) {
      if (const pugi::xml_node v = o.prop(path)) out = soap::parse_moref(v);
    }
  });
  if (out.empty()) {
    throw Error(
        fmt::format("{}: {} {} has no {}", client.endpoint(), object.type, object.value, path));
  }
  return out;
}

}  // namespace

std::string fetch_config_target(Client& client, const std::string& host) {
  const soap::Moref host_ref{"HostSystem", host};
  const soap::Moref compute = moref_property(client, host_ref, "parent");
  const soap::Moref browser = moref_property(client, compute, "environmentBrowser");
  const soap::Response r =
      client.call("QueryConfigTarget", soap::query_config_target(browser, host_ref));
  return std::string(r.source->bytes());
}

pci::ApiHost fetch_host(Client& client, std::string_view name) {
  const auto hosts = client.list_names(client.content().root_folder, "HostSystem");
  std::vector<soap::Moref> match;
  std::string names;
  for (const auto& [ref, host_name] : hosts) {
    if (host_name == name || ref.value == name) match.push_back(ref);
    names += (names.empty() ? "" : ", ") + host_name;
  }
  if (match.empty()) {
    throw Error(fmt::format("{}: no ESXi host named '{}' (the server has: {})", client.endpoint(),
                            name, names.empty() ? "none" : names));
  }
  if (match.size() > 1) {
    throw Error(fmt::format("{}: {} hosts are named '{}': give the moref ({})", client.endpoint(),
                            match.size(), name, match.front().value));
  }
  std::vector<pci::ApiHost> got = fetch_hosts(client, match);
  if (got.empty()) {
    throw Error(fmt::format("{}: host '{}' vanished while it was read (ManagedObjectNotFound)",
                            client.endpoint(), name));
  }
  return std::move(got.front());
}

}  // namespace vmxkit::vsphere
