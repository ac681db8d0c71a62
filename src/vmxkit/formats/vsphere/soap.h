// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <memory>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/host/vsphere_api.h"

/// The vSphere API's SOAP messages (vim25) that the client sends and reads: request bodies built
/// with the project's XML escaper, answers read with the safe XML loader (xml_support.h: no DTD,
/// no entities, size and nesting caps). No transport here: vsphere/client.h sends them.
namespace vmxkit::vsphere::soap {

/// A managed object reference: `<obj type="VirtualMachine">vm-42</obj>`.
struct Moref {
  std::string type;
  std::string value;
  bool empty() const { return value.empty(); }
  std::string to_string() const { return type + ":" + value; }
  bool operator==(const Moref&) const = default;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>
  auto operator<=>(const Moref&) const = default;
};

/// A SOAP fault from the server, as a vmxkit::Error whose message names the fault.
class Fault : public Error {
 public:
  Fault(std::string type, const std::string& message) : Error(message), type_(std::move(type)) {}
  /// The vim25 fault type: "InvalidLogin", "NotAuthenticated", "ManagedObjectNotFound"...
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

/// The parts of ServiceInstance.content the client uses.
struct ServiceContent {
  Moref root_folder, property_collector, view_manager, session_manager, search_index;
  std::string api_version;  ///< about.apiVersion ("8.0.2.0")
  std::string full_name;    ///< about.fullName
  std::string api_type;     ///< about.apiType: "VirtualCenter" or "HostAgent"
};

// --- requests (the SOAP envelope around one method's element)

std::string envelope(std::string_view body);
std::string retrieve_service_content();
std::string login(const Moref& session_manager, std::string_view user, std::string_view password);
std::string logout(const Moref& session_manager);
std::string create_container_view(const Moref& view_manager, const Moref& container,
                                  std::string_view type, bool recursive);
std::string destroy_view(const Moref& view);
std::string find_by_inventory_path(const Moref& search_index, std::string_view path);
/// SearchIndex.FindByUuid for a VM: its BIOS UUID (`config.uuid`), or with `instance_uuid` its
/// vCenter instance UUID; in `datacenter` when it is not empty.
std::string find_vm_by_uuid(const Moref& search_index, const Moref& datacenter,
                            std::string_view uuid, bool instance_uuid);
/// EnvironmentBrowser.QueryConfigTarget for one host of the compute resource.
std::string query_config_target(const Moref& environment_browser, const Moref& host);

/// What RetrievePropertiesEx asks: `paths` of objects of `type`, either the objects of a
/// ContainerView (`view`) or the objects listed; at most `max_objects` per answer (0: the
/// server's choice).
struct PropertyQuery {
  std::string type;
  std::vector<std::string> paths;
  Moref view;                  ///< a ContainerView: its `view` property is traversed
  std::vector<Moref> objects;  ///< or these objects (missing ones reported, not a fault)
  unsigned max_objects = 0;
};
std::string retrieve_properties_ex(const Moref& property_collector, const PropertyQuery& query);
std::string continue_retrieve_properties_ex(const Moref& property_collector,
                                            std::string_view token);

// --- answers

/// A parsed answer: the document and the method's response element (`<LoginResponse>`).
struct Response {
  std::unique_ptr<SourceFile> source;
  std::unique_ptr<pugi::xml_document> doc;
  pugi::xml_node result;  ///< the first element of the Body
};

/// Reads an HTTP answer to `method`. Throws Fault for a SOAP fault (the fault type and the
/// server's message), vmxkit::Error for an HTTP status other than 200 without a fault, or an
/// answer that is not a SOAP envelope (named `name` in messages).
Response parse_response(std::string name, std::string bytes, long http_status,
                        std::string_view method);

ServiceContent parse_service_content(const Response& response);
/// `<returnval type="..">value</returnval>` and the like.
Moref parse_moref(pugi::xml_node node);

/// One ObjectContent of a RetrievePropertiesEx answer.
struct ObjectContent {
  Moref obj;
  std::vector<std::pair<std::string, pugi::xml_node>> props;  ///< name -> its <val>
  std::vector<std::pair<std::string, std::string>> missing;   ///< path -> fault type
  pugi::xml_node prop(std::string_view name) const;
};
struct RetrieveResult {
  std::string token;  ///< more to fetch with ContinueRetrievePropertiesEx; empty at the end
  std::vector<ObjectContent> objects;
};
RetrieveResult parse_retrieve_result(const Response& response);
/// One ObjectContent element (`<objects>` of a RetrieveResult, `<returnval>` of
/// RetrieveProperties, pyVmomi's `<object xsi:type="ObjectContent">`).
ObjectContent parse_object_content(pugi::xml_node node);

/// The element's text, trimmed.
std::string text(pugi::xml_node node);

/// A HostSystem's properties (hardware.pciDevice, config.pciPassthruInfo, hardware.numaInfo,
/// hardware.systemInfo.uuid, name) as the plain values pci::load_vsphere_api() takes.
pci::ApiHost api_host(const ObjectContent& object);

}  // namespace vmxkit::vsphere::soap
