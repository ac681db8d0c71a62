// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/soap.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::vsphere::soap {
namespace {

void add_text(std::string& out, std::string_view element, std::string_view value) {
  out += '<';
  out += element;
  out += '>';
  xml::escape_append(value, out);
  out += "</";
  out += element;
  out += '>';
}

void add_moref(std::string& out, std::string_view element, const Moref& ref) {
  out += '<';
  out += element;
  out += " type=\"";
  xml::escape_append(ref.type, out);
  out += "\">";
  xml::escape_append(ref.value, out);
  out += "</";
  out += element;
  out += '>';
}

std::string method(std::string_view name, const Moref& self, std::string_view rest = {}) {
  std::string body = fmt::format("<{} xmlns=\"urn:vim25\">", name);
  add_moref(body, "_this", self);
  body += rest;
  body += fmt::format("</{}>", name);
  return envelope(body);
}

// What a fault means for the user, by type.
std::string fault_hint(std::string_view type) {
  if (type == "InvalidLogin") return "the server refused the user name or password";
  if (type == "NotAuthenticated") {
    return "the session is not logged in or has expired (a VMXKIT_SESSION from an old login?)";
  }
  if (type == "ManagedObjectNotFound") return "the object no longer exists on the server";
  if (type == "NoPermission") return "the user lacks a privilege this needs";
  if (type == "InvalidProperty") return "the server does not know a property asked for";
  return "the server refused the request";
}

std::optional<long long> number(pugi::xml_node node) {
  const std::string t = text(node);
  long long n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return n;
}

std::optional<bool> boolean(pugi::xml_node node) {
  if (!node) return std::nullopt;
  const std::string t = text(node);
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  return std::nullopt;
}

// xsd:short and xsd:byte as the 16 (8) bits they hold: 0x8086 arrives as -32634.
std::uint16_t short_bits(pugi::xml_node node) {
  return static_cast<std::uint16_t>(number(node).value_or(0) & 0xffff);
}

std::optional<unsigned> count(pugi::xml_node node) {
  const auto n = number(node);
  if (!n || *n < 0) return std::nullopt;
  return static_cast<unsigned>(*n);
}

}  // namespace

std::string envelope(std::string_view body) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
      "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
      "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body>";
  out += body;
  out += "</soapenv:Body></soapenv:Envelope>";
  return out;
}

std::string retrieve_service_content() {
  return method("RetrieveServiceContent", {"ServiceInstance", "ServiceInstance"});
}

std::string login(const Moref& session_manager, std::string_view user, std::string_view password) {
  std::string rest;
  add_text(rest, "userName", user);
  add_text(rest, "password", password);
  return method("Login", session_manager, rest);
}

std::string logout(const Moref& session_manager) { return method("Logout", session_manager); }

std::string create_container_view(const Moref& view_manager, const Moref& container,
                                  std::string_view type, bool recursive) {
  std::string rest;
  add_moref(rest, "container", container);
  add_text(rest, "type", type);
  add_text(rest, "recursive", recursive ? "true" : "false");
  return method("CreateContainerView", view_manager, rest);
}

std::string destroy_view(const Moref& view) { return method("DestroyView", view); }

std::string query_config_target(const Moref& environment_browser, const Moref& host) {
  std::string rest;
  add_moref(rest, "host", host);
  return method("QueryConfigTarget", environment_browser, rest);
}

std::string find_by_inventory_path(const Moref& search_index, std::string_view path) {
  std::string rest;
  add_text(rest, "inventoryPath", path);
  return method("FindByInventoryPath", search_index, rest);
}

std::string find_vm_by_uuid(const Moref& search_index, const Moref& datacenter,
                            std::string_view uuid, bool instance_uuid) {
  std::string rest;
  if (!datacenter.value.empty()) add_moref(rest, "datacenter", datacenter);
  add_text(rest, "uuid", uuid);
  add_text(rest, "vmSearch", "true");
  add_text(rest, "instanceUuid", instance_uuid ? "true" : "false");
  return method("FindByUuid", search_index, rest);
}

std::string retrieve_properties_ex(const Moref& property_collector, const PropertyQuery& query) {
  std::string rest = "<specSet><propSet>";
  add_text(rest, "type", query.type);
  for (const std::string& p : query.paths) add_text(rest, "pathSet", p);
  rest += "</propSet>";
  if (!query.view.empty()) {
    rest += "<objectSet>";
    add_moref(rest, "obj", query.view);
    rest +=
        "<skip>true</skip><selectSet xsi:type=\"TraversalSpec\"><name>view</name>"
        "<type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet>";
  }
  for (const Moref& obj : query.objects) {
    rest += "<objectSet>";
    add_moref(rest, "obj", obj);
    rest += "<skip>false</skip></objectSet>";
  }
  // Objects that vanished since they were listed come back in missingSet, not as a fault.
  if (!query.objects.empty())
    rest += "<reportMissingObjectsInResults>true</reportMissingObjectsInResults>";
  rest += "</specSet><options>";
  if (query.max_objects != 0) add_text(rest, "maxObjects", std::to_string(query.max_objects));
  rest += "</options>";
  return method("RetrievePropertiesEx", property_collector, rest);
}

std::string continue_retrieve_properties_ex(const Moref& property_collector,
                                            std::string_view token) {
  std::string rest;
  add_text(rest, "token", token);
  return method("ContinueRetrievePropertiesEx", property_collector, rest);
}

std::string text(pugi::xml_node node) {
  std::string_view t = node.child_value();
  while (!t.empty() &&
         (t.front() == ' ' || t.front() == '\n' || t.front() == '\t' || t.front() == '\r'))
    t.remove_prefix(1);
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\n' || t.back() == '\t' || t.back() == '\r'))
    t.remove_suffix(1);
  return std::string(t);
}

Moref parse_moref(pugi::xml_node node) {
  Moref ref;
  // The unprefixed `type`, not `xsi:type` (which a property value carries too).
  ref.type = node.attribute("type").value();
  ref.value = text(node);
  return ref;
}

Response parse_response(std::string name, std::string bytes, long http_status,
                        std::string_view method_name) {
  Response r;
  const bool looks_xml = bytes.find('<') != std::string::npos;
  if (!looks_xml) {
    throw Error(name, fmt::format("{}: HTTP {} without a SOAP answer{}", method_name, http_status,
                                  http_status == 404 ? " (is the URL's path /sdk?)" : ""));
  }
  r.source = std::make_unique<SourceFile>(std::move(name), std::move(bytes));
  r.doc = std::make_unique<pugi::xml_document>();
  try {
    xml::load(*r.source, *r.doc);
  } catch (const Error& e) {
    throw Error(
        fmt::format("{}: HTTP {}, not a SOAP answer: {}", method_name, http_status, e.what()));
  }
  const pugi::xml_node envelope_node = r.doc->document_element();
  const pugi::xml_node body = xml::child(envelope_node, "Body");
  if (xml::local_name(envelope_node.name()) != "Envelope" || !body) {
    throw Error(r.source->path(), fmt::format("{}: HTTP {}, the answer is not a SOAP envelope",
                                              method_name, http_status));
  }
  if (const pugi::xml_node fault = xml::child(body, "Fault")) {
    std::string type;
    const pugi::xml_node detail = xml::child(fault, "detail");
    for (const pugi::xml_node d : detail.children()) {
      if (d.type() != pugi::node_element) continue;
      type = std::string(xml::xsi_type(d));
      if (type.empty()) {
        type = std::string(xml::local_name(d.name()));
        if (type.size() > 5 && type.ends_with("Fault")) type.resize(type.size() - 5);
      }
      break;
    }
    const std::string message = text(xml::child(fault, "faultstring"));
    if (type.empty()) type = text(xml::child(fault, "faultcode"));
    throw Fault(type, fmt::format("{}: {} ({}{}{})", method_name, fault_hint(type), type,
                                  message.empty() ? "" : ": ", message));
  }
  if (http_status != 200) {
    throw Error(fmt::format("{}: HTTP {} from the server", method_name, http_status));
  }
  for (const pugi::xml_node c : body.children()) {
    if (c.type() == pugi::node_element) {
      r.result = c;
      break;
    }
  }
  if (!r.result) throw Error(fmt::format("{}: the SOAP answer has an empty Body", method_name));
  return r;
}

ServiceContent parse_service_content(const Response& response) {
  const pugi::xml_node rv = xml::child(response.result, "returnval");
  ServiceContent sc;
  sc.root_folder = parse_moref(xml::child(rv, "rootFolder"));
  sc.property_collector = parse_moref(xml::child(rv, "propertyCollector"));
  sc.view_manager = parse_moref(xml::child(rv, "viewManager"));
  sc.session_manager = parse_moref(xml::child(rv, "sessionManager"));
  sc.search_index = parse_moref(xml::child(rv, "searchIndex"));
  const pugi::xml_node about = xml::child(rv, "about");
  sc.api_version = text(xml::child(about, "apiVersion"));
  sc.full_name = text(xml::child(about, "fullName"));
  sc.api_type = text(xml::child(about, "apiType"));
  if (sc.property_collector.empty() || sc.session_manager.empty() || sc.root_folder.empty()) {
    throw Error(response.source->path(),
                "RetrieveServiceContent: the answer has no propertyCollector, sessionManager or "
                "rootFolder: not a vSphere API endpoint");
  }
  return sc;
}

pugi::xml_node ObjectContent::prop(std::string_view name) const {
  for (const auto& [n, v] : props) {
    if (n == name) return v;
  }
  return {};
}

RetrieveResult parse_retrieve_result(const Response& response) {
  RetrieveResult out;
  const pugi::xml_node rv = xml::child(response.result, "returnval");
  if (!rv) return out;  // nothing matched
  out.token = text(xml::child(rv, "token"));
  for (const pugi::xml_node o : rv.children()) {
    if (xml::local_name(o.name()) == "objects") out.objects.push_back(parse_object_content(o));
  }
  return out;
}

ObjectContent parse_object_content(pugi::xml_node node) {
  ObjectContent content;
  for (const pugi::xml_node c : node.children()) {
    const std::string_view n = xml::local_name(c.name());
    if (n == "obj") {
      content.obj = parse_moref(c);
    } else if (n == "propSet") {
      content.props.emplace_back(text(xml::child(c, "name")), xml::child(c, "val"));
    } else if (n == "missingSet") {
      const pugi::xml_node fault = xml::child(xml::child(c, "fault"), "fault");
      content.missing.emplace_back(text(xml::child(c, "path")), std::string(xml::xsi_type(fault)));
    }
  }
  return content;
}

namespace {

// config.sharedPassthruGpuTypes (an ArrayOfString) and config.sharedGpuCapabilities (an
// ArrayOfHostSharedGpuCapabilities); either present marks the vGPU types as read.
void api_vgpu_types(const ObjectContent& object, pci::ApiHost& host) {
  const pugi::xml_node types = object.prop("config.sharedPassthruGpuTypes");
  const pugi::xml_node capabilities = object.prop("config.sharedGpuCapabilities");
  host.vgpu_types_read = types || capabilities;
  for (const pugi::xml_node t : types.children()) {
    if (t.type() == pugi::node_element) host.shared_gpu_types.push_back(text(t));
  }
  for (const pugi::xml_node c : capabilities.children()) {
    if (c.type() != pugi::node_element) continue;
    pci::ApiVgpuCapabilities a;
    a.vgpu = text(xml::child(c, "vgpu"));
    a.disk_snapshot = boolean(xml::child(c, "diskSnapshotSupported"));
    a.memory_snapshot = boolean(xml::child(c, "memorySnapshotSupported"));
    a.suspend = boolean(xml::child(c, "suspendSupported"));
    a.migrate = boolean(xml::child(c, "migrateSupported"));
    host.shared_gpu_capabilities.push_back(std::move(a));
  }
}

}  // namespace

pci::ApiHost api_host(const ObjectContent& object) {
  pci::ApiHost host;
  host.moref = object.obj.value;
  host.name = text(object.prop("name"));
  host.system_uuid = text(object.prop("hardware.systemInfo.uuid"));
  if (const pugi::xml_node devices = object.prop("hardware.pciDevice")) {
    host.has_pci_devices = true;
    for (const pugi::xml_node d : devices.children()) {
      if (d.type() != pugi::node_element) continue;
      pci::ApiPciDevice a;
      a.id = text(xml::child(d, "id"));
      a.class_id = short_bits(xml::child(d, "classId"));
      a.bus = static_cast<std::uint8_t>(short_bits(xml::child(d, "bus")));
      a.slot = static_cast<std::uint8_t>(short_bits(xml::child(d, "slot")));
      a.function = static_cast<std::uint8_t>(short_bits(xml::child(d, "function")));
      a.vendor_id = short_bits(xml::child(d, "vendorId"));
      a.device_id = short_bits(xml::child(d, "deviceId"));
      a.sub_vendor_id = short_bits(xml::child(d, "subVendorId"));
      a.sub_device_id = short_bits(xml::child(d, "subDeviceId"));
      a.vendor_name = text(xml::child(d, "vendorName"));
      a.device_name = text(xml::child(d, "deviceName"));
      a.parent_bridge = text(xml::child(d, "parentBridge"));
      host.devices.push_back(std::move(a));
    }
  }
  for (const pugi::xml_node p : object.prop("config.pciPassthruInfo").children()) {
    if (p.type() != pugi::node_element) continue;
    pci::ApiPassthru a;
    a.id = text(xml::child(p, "id"));
    a.enabled = boolean(xml::child(p, "passthruEnabled"));
    a.capable = boolean(xml::child(p, "passthruCapable"));
    a.active = boolean(xml::child(p, "passthruActive"));
    a.sriov = xml::xsi_type(p) == "HostSriovInfo";
    if (a.sriov) {
      a.sriov_enabled = boolean(xml::child(p, "sriovEnabled"));
      a.sriov_capable = boolean(xml::child(p, "sriovCapable"));
      a.num_vfs = count(xml::child(p, "numVirtualFunction"));
      a.num_vfs_requested = count(xml::child(p, "numVirtualFunctionRequested"));
      a.max_vfs = count(xml::child(p, "maxVirtualFunctionSupported"));
    }
    host.passthru.push_back(std::move(a));
  }
  if (const pugi::xml_node numa = object.prop("hardware.numaInfo")) {
    host.numa_node_count = count(xml::child(numa, "numNodes"));
    for (const pugi::xml_node n : numa.children()) {
      if (xml::local_name(n.name()) != "numaNode") continue;
      pci::ApiNumaNode node;
      node.type_id = static_cast<int>(number(xml::child(n, "typeId")).value_or(0));
      for (const pugi::xml_node c : n.children()) {
        const std::string_view name = xml::local_name(c.name());
        if (name == "cpuID") {
          if (const auto cpu = number(c)) node.cpus.push_back(static_cast<int>(*cpu));
        } else if (name == "pciId") {
          node.pci_ids.push_back(text(c));
        }
      }
      host.numa_nodes.push_back(std::move(node));
    }
  }
  api_vgpu_types(object, host);
  return host;
}

}  // namespace vmxkit::vsphere::soap
