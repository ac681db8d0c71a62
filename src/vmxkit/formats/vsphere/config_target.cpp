// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/config_target.h"

#include <fmt/format.h>

#include <algorithm>
#include <pugixml.hpp>
#include <string_view>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/govc_json.h"
#include "vmxkit/formats/vsphere/ids.h"
#include "vmxkit/formats/vsphere/json.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::vsphere {
namespace {

using json::Value;
using Type = json::Value::Type;

// govc's JSON, by Go field name or camelCase json tag (json::go_field).
const Value* field(const Value& obj, std::string_view go_name) {
  return json::go_field(obj, go_name);
}

class JsonReader : public json::TypedReader {
 public:
  using TypedReader::TypedReader;

  std::vector<VendorDeviceGroup> read(const Value& root) const {
    object(root, "a ConfigTarget");
    const Value* groups = field(root, "VendorDeviceGroupInfo");
    if (groups == nullptr) {
      // A ConfigTarget has numCpus and numCpuCores, whatever else it leaves out.
      const Value* t = root.find("_typeName");
      const bool target = (t != nullptr && t->is(Type::string) && t->text == "ConfigTarget") ||
                          field(root, "NumCpus") != nullptr;
      if (!target) {
        fail(root,
             "not a ConfigTarget (expected what govc vm.target.info -json prints, with "
             "numCpus and, when the host offers device groups, vendorDeviceGroupInfo)");
      }
      return {};
    }
    std::vector<VendorDeviceGroup> out;
    for (const Value& g : array(*groups, "vendorDeviceGroupInfo")) {
      object(g, "a vendorDeviceGroupInfo entry");
      VendorDeviceGroup d;
      d.whole = g.span;
      const Value* name = field(g, "DeviceGroupName");
      if (name == nullptr) fail(g, "a vendorDeviceGroupInfo entry without deviceGroupName");
      d.device_group_name = text(*name, "deviceGroupName");
      if (const Value* desc = field(g, "DeviceGroupDescription")) {
        d.description = text(*desc, "deviceGroupDescription");
      }
      if (const Value* list = field(g, "ComponentDeviceInfo")) {
        for (const Value& c : array(*list, "componentDeviceInfo"))
          d.components.push_back(component(c));
      }
      out.push_back(std::move(d));
    }
    return out;
  }

 private:
  DeviceGroupComponent component(const Value& c) const {
    object(c, "a componentDeviceInfo entry");
    DeviceGroupComponent d;
    if (const Value* t = field(c, "Type")) d.type = text(*t, "type");
    if (const Value* v = field(c, "VendorName")) d.vendor_name = text(*v, "vendorName");
    if (const Value* n = field(c, "DeviceName")) d.device_name = text(*n, "deviceName");
    if (const Value* b = field(c, "IsConfigurable")) {
      if (!b->is(Type::boolean)) fail(*b, "isConfigurable must be true or false");
      d.configurable = b->boolean;
    }
    if (const Value* device = field(c, "Device")) {
      object(*device, "device");
      if (const Value* t = device->find("_typeName")) d.device_type = text(*t, "_typeName");
      d.device = read_govc_device(source_, *device);
      if (const Value* info = field(*device, "DeviceGroupInfo")) {
        object(*info, "deviceGroupInfo");
        if (const Value* s = field(*info, "SequenceId")) {
          const std::int64_t n = integer(*s, "sequenceId");
          if (n < INT32_MIN || n > INT32_MAX) fail(*s, "sequenceId is not an int");
          d.sequence_id = static_cast<std::int32_t>(n);
        }
      }
    }
    return d;
  }
};

class XmlReader {
 public:
  explicit XmlReader(const SourceFile& source) : pos_(source) {}

  std::vector<VendorDeviceGroup> read(pugi::xml_node root) {
    const pugi::xml_node target = find_target(root);
    std::vector<VendorDeviceGroup> out;
    for (pugi::xml_node g = target.first_child(); g; g = g.next_sibling()) {
      if (g.type() != pugi::node_element || xml::local_name(g.name()) != "vendorDeviceGroupInfo") {
        continue;
      }
      VendorDeviceGroup d;
      d.whole = pos_.element(g);
      const pugi::xml_node name = xml::child(g, "deviceGroupName");
      if (!name) pos_.fail(g, "a vendorDeviceGroupInfo without <deviceGroupName>");
      d.device_group_name = name.text().get();
      d.description = xml::child(g, "deviceGroupDescription").text().get();
      for (pugi::xml_node c = g.first_child(); c; c = c.next_sibling()) {
        if (c.type() == pugi::node_element && xml::local_name(c.name()) == "componentDeviceInfo") {
          d.components.push_back(component(c));
        }
      }
      out.push_back(std::move(d));
    }
    return out;
  }

 private:
  // The ConfigTarget: pyVmomi's `<object xsi:type="ConfigTarget">`, a `<ConfigTarget>` root, or
  // the `returnval` of a SOAP QueryConfigTargetResponse.
  pugi::xml_node find_target(pugi::xml_node root) {
    const std::string_view name = xml::local_name(root.name());
    if (xml::xsi_type(root) == "ConfigTarget" || name == "ConfigTarget") return root;
    if (name == "Envelope") {
      const pugi::xml_node body = xml::child(root, "Body");
      if (const pugi::xml_node fault = xml::child(body, "Fault")) {
        pos_.fail(fault, "a SOAP Fault, not a ConfigTarget: " +
                             std::string(xml::child(fault, "faultstring").text().get()));
      }
      const pugi::xml_node response = xml::child(body, "QueryConfigTargetResponse");
      if (!response) {
        pos_.fail(body, "a SOAP answer without QueryConfigTargetResponse: not a ConfigTarget");
      }
      const pugi::xml_node value = xml::child(response, "returnval");
      if (!value) pos_.fail(response, "QueryConfigTargetResponse without <returnval>");
      return value;
    }
    pos_.fail(root, fmt::format("<{}> is not a ConfigTarget (expected the answer of "
                                "QueryConfigTarget)",
                                name));
  }

  DeviceGroupComponent component(pugi::xml_node c) {
    DeviceGroupComponent d;
    d.type = xml::child(c, "type").text().get();
    d.vendor_name = xml::child(c, "vendorName").text().get();
    d.device_name = xml::child(c, "deviceName").text().get();
    if (const pugi::xml_node b = xml::child(c, "isConfigurable")) {
      const std::string_view t = b.text().get();
      if (t != "true" && t != "false" && t != "1" && t != "0") {
        pos_.fail(b, "isConfigurable must be true or false");
      }
      d.configurable = t == "true" || t == "1";
    }
    const pugi::xml_node device = xml::child(c, "device");
    if (device) {
      d.device_type = std::string(xml::xsi_type(device));
      d.device = read_vim25_device(pos_.source(), device);
    }
    const pugi::xml_node seq = xml::child(xml::child(device, "deviceGroupInfo"), "sequenceId");
    if (seq) {
      const auto v = parse_long(seq.text().get());
      if (!v || *v < INT32_MIN || *v > INT32_MAX) pos_.fail(seq, "sequenceId must be an xsd:int");
      d.sequence_id = static_cast<std::int32_t>(*v);
    }
    return d;
  }

  xml::Positions pos_;
};

}  // namespace

bool DeviceGroupComponent::is_nic() const {
  return type == "sriovNic" || type == "dvx" ||
         (type == "pciPassthru" &&
          (icontains(vendor_name, "mellanox") || icontains(vendor_name, "broadcom") ||
           icontains(device_name, "connectx")));
}

bool VendorDeviceGroup::pairs_vgpu_with_nic() const {
  const auto has = [&](bool (DeviceGroupComponent::*is)() const) {
    return std::any_of(components.begin(), components.end(),
                       [&](const DeviceGroupComponent& c) { return (c.*is)(); });
  };
  return has(&DeviceGroupComponent::is_vgpu) && has(&DeviceGroupComponent::is_nic);
}

std::vector<VendorDeviceGroup> read_vendor_device_groups(const SourceFile& source) {
  const std::string_view bytes = source.bytes();
  const std::size_t at = content_start(bytes);
  if (at < bytes.size() && bytes[at] == '{') {
    const Value root = json::parse(source);
    return JsonReader(source).read(root);
  }
  if (at >= bytes.size() || bytes[at] != '<') {
    const Location l = source.location(at);
    throw Error(source.path(), l.line, l.column,
                "not a ConfigTarget: expected the JSON of govc vm.target.info -json or the XML of "
                "a QueryConfigTarget answer");
  }
  pugi::xml_document doc;
  xml::load(source, doc);
  return XmlReader(source).read(doc.document_element());
}

}  // namespace vmxkit::vsphere
