// SPDX-License-Identifier: Apache-2.0
// A host from a saved document of HostSystem properties (pci::load_vsphere_properties): what a
// SOAP client saves of a RetrievePropertiesEx answer, or what pyVmomi serializes of one
// ObjectContent (vmxkit.Host.from_vsphere in the Python package). Read with the same code as
// the live client's answers (soap::parse_object_content, soap::api_host).
#include <fmt/format.h>

#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/formats/vsphere/soap.h"
#include "vmxkit/formats/vsphere/xml_support.h"

namespace vmxkit::pci {
namespace {

namespace xml = vsphere::xml;

/// The ObjectContent elements at or below `node` (an element with an `<obj>` child), down to
/// the depth a RetrievePropertiesEx envelope has them (Envelope/Body/Response/returnval/objects).
void object_contents(pugi::xml_node node, int depth, std::vector<pugi::xml_node>& out) {
  if (xml::child(node, "obj")) {
    out.push_back(node);
    return;
  }
  if (depth == 0) return;
  for (const pugi::xml_node c : node.children()) {
    if (c.type() == pugi::node_element) object_contents(c, depth - 1, out);
  }
}

std::string describe(pugi::xml_node node) {
  const std::string_view type = xml::xsi_type(node);
  return type.empty() ? fmt::format("<{}>", xml::local_name(node.name()))
                      : fmt::format("<{} xsi:type=\"{}\">", xml::local_name(node.name()), type);
}

}  // namespace

void load_vsphere_properties(Host& host, std::string_view text, const std::string& path) {
  const SourceFile source(path, std::string(text));
  pugi::xml_document doc;
  xml::load(source, doc);
  const xml::Positions at(source);
  pugi::xml_node root = doc.document_element();
  if (xml::local_name(root.name()) == "Envelope") {
    const pugi::xml_node body = xml::child(root, "Body");
    if (!body) at.fail(root, "a SOAP envelope without a Body");
    if (const pugi::xml_node fault = xml::child(body, "Fault")) {
      at.fail(fault, fmt::format("a SOAP Fault, not HostSystem properties: {}",
                                 vsphere::soap::text(xml::child(fault, "faultstring"))));
    }
    root = body.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; });
    if (!root) at.fail(body, "an empty SOAP Body");
  }
  std::vector<pugi::xml_node> found;
  object_contents(root, 3, found);
  std::vector<std::pair<pugi::xml_node, vsphere::soap::ObjectContent>> hosts;
  std::vector<std::string> others;
  for (const pugi::xml_node n : found) {
    vsphere::soap::ObjectContent content = vsphere::soap::parse_object_content(n);
    if (content.obj.type == "HostSystem") {
      hosts.emplace_back(n, std::move(content));
    } else {
      others.push_back(content.obj.to_string());
    }
  }
  if (hosts.empty()) {
    if (others.empty()) {
      at.fail(root, fmt::format("{} holds no ObjectContent: expected the HostSystem properties of "
                                "a RetrievePropertiesEx answer",
                                describe(root)));
    }
    if (others.size() > 3) {
      others.resize(3);
      others.emplace_back("...");
    }
    at.fail(root, fmt::format("no HostSystem properties: the document holds {}",
                              fmt::join(others, ", ")));
  }
  if (hosts.size() > 1) {
    std::vector<std::string> names;
    names.reserve(hosts.size());
    for (const auto& h : hosts) names.push_back(h.second.obj.value);
    at.fail(hosts[1].first,
            fmt::format("{} HostSystem objects ({}): a host input is one host; save the "
                        "properties of one",
                        hosts.size(), fmt::join(names, ", ")));
  }
  const auto& [node, content] = hosts.front();
  for (const auto& [what, fault] : content.missing) {
    if (what == "hardware.pciDevice" || what == "config.pciPassthruInfo") {
      at.fail(node, fmt::format("{} of HostSystem {} was not read ({}): the document cannot say "
                                "what the host has",
                                what, content.obj.value, fault.empty() ? "a fault" : fault));
    }
  }
  if (!content.prop("hardware.pciDevice")) {
    at.fail(node, fmt::format("HostSystem {} without hardware.pciDevice: ask for the properties "
                              "name, hardware.pciDevice, config.pciPassthruInfo, "
                              "hardware.numaInfo and hardware.systemInfo.uuid (and for its "
                              "vGPU types config.sharedPassthruGpuTypes and "
                              "config.sharedGpuCapabilities)",
                              content.obj.value));
  }
  load_vsphere_api(host, vsphere::soap::api_host(content), path);
}

}  // namespace vmxkit::pci
