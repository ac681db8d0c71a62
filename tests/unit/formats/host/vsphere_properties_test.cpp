// SPDX-License-Identifier: Apache-2.0
// A host from a saved document of HostSystem properties (pci::load_vsphere_properties): the
// simulator's RetrievePropertiesEx answer and pyVmomi's ObjectContent of the same GPU host
// (tests/data/vsphere/clients/, made by tests/integration/make_client_documents.py), and the
// documents it refuses, each at file:line:col.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/model/host.h"

namespace {

std::string client_document(const std::string& name) {
  return vmxkit::test::read_bytes(vmxkit::test::source_path("tests/data/vsphere/clients/" + name));
}

vmxkit::pci::Host load_document(const std::string& text, const std::string& name) {
  vmxkit::pci::Host host;
  vmxkit::pci::load_text(host, text, name);
  host.finalize();
  return host;
}

std::string load_error(const std::string& text) {
  try {
    load_document(text, "h.xml");
  } catch (const vmxkit::Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> addresses(const vmxkit::pci::Host& host) {
  std::vector<std::string> out;
  for (const auto& d : host.devices()) out.push_back(d.bdf.to_string());
  return out;
}

const char* const kEnvelope =
    "<?xml version=\"1.0\"?>\n<soapenv:Envelope "
    "xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n<soapenv:Body>\n";

}  // namespace

TEST_CASE("A saved RetrievePropertiesEx answer for a HostSystem is a host input",
          "[pci][vsphere-api]") {
  const std::string text = client_document("hostsystem-retrievepropertiesex.xml");
  CHECK(vmxkit::pci::detect_format(text, "h.xml") == vmxkit::pci::InputFormat::vsphere_properties);
  const vmxkit::pci::Host host = load_document(text, "h.xml");
  const auto at = [&](const char* bdf) { return *host.index_of(*vmxkit::parse_bdf(bdf)); };
  const std::size_t gpu0 = at("0000:18:00.0"), gpu1 = at("0000:9a:00.0");
  const std::size_t nic0 = at("0000:19:00.0"), nic1 = at("0000:9b:00.0");
  CHECK(host.at(gpu0).role == vmxkit::pci::Role::gpu);
  CHECK(host.at(nic0).role == vmxkit::pci::Role::rdma_nic);
  CHECK(host.at(gpu0).numa_node == 0);
  CHECK(host.at(gpu1).numa_node == 1);
  CHECK(host.at(gpu0).passthru_enabled == true);
  REQUIRE(host.at(nic0).sriov);
  CHECK(host.at(nic0).sriov->num_vfs == 4u);
  // Each GPU is PIX with the NIC of its own switch, SYS with the other socket's.
  CHECK(vmxkit::pci::path_class(host, gpu0, nic0) == vmxkit::pci::PathClass::pix);
  CHECK(vmxkit::pci::path_class(host, gpu1, nic1) == vmxkit::pci::PathClass::pix);
  CHECK(vmxkit::pci::path_class(host, gpu0, nic1) == vmxkit::pci::PathClass::sys);
  // Provenance names the file.
  REQUIRE_FALSE(host.at(gpu0).origins.empty());
  CHECK(host.at(gpu0).origins.front().path.starts_with("h.xml"));
}

TEST_CASE("pyVmomi's ObjectContent of the same host reads as the same host", "[pci][vsphere-api]") {
  const vmxkit::pci::Host soap =
      load_document(client_document("hostsystem-retrievepropertiesex.xml"), "a.xml");
  const vmxkit::pci::Host pyvmomi =
      load_document(client_document("pyvmomi-hostsystem-objectcontent.xml"), "b.xml");
  CHECK(addresses(soap) == addresses(pyvmomi));
  CHECK(addresses(soap).size() > 10);
  for (const auto& d : soap.devices()) {
    const vmxkit::pci::Device* other = pyvmomi.find(d.bdf);
    REQUIRE(other != nullptr);
    CHECK(other->numa_node == d.numa_node);
    CHECK(other->role == d.role);
    CHECK(other->passthru_enabled == d.passthru_enabled);
  }
}

TEST_CASE("A properties document that is not one host is refused at its position",
          "[pci][vsphere-api]") {
  CHECK(load_error("<foo/>") ==
        "h.xml:1:1: <foo> holds no ObjectContent: expected the HostSystem properties of a "
        "RetrievePropertiesEx answer");
  // The VMs' answer: says what it holds.
  CHECK_THAT(load_error(client_document("retrievepropertiesex-2vms.xml")),
             Catch::Contains("no HostSystem properties: the document holds VirtualMachine:vm-"));
  // Four hosts, name only: not one host.
  CHECK_THAT(load_error(client_document("NEGATIVE-retrievepropertiesex-hosts.xml")),
             Catch::Contains("4 HostSystem objects (host-21, host-34, host-42, host-50): a host "
                             "input is one host"));
  CHECK_THAT(
      load_error(std::string(kEnvelope) +
                 "<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>Permission "
                 "to perform this operation was denied.</faultstring></soapenv:Fault>"
                 "</soapenv:Body></soapenv:Envelope>"),
      Catch::Contains("h.xml:4:1: a SOAP Fault, not HostSystem properties: Permission to "
                      "perform this operation was denied."));
  const std::string not_read =
      std::string(kEnvelope) +
      "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><objects>"
      "<obj type=\"HostSystem\">host-9</obj><missingSet><path>hardware.pciDevice</path>"
      "<fault><fault xsi:type=\"NoPermission\"/></fault></missingSet></objects></returnval>"
      "</RetrievePropertiesExResponse></soapenv:Body></soapenv:Envelope>";
  CHECK_THAT(load_error(not_read),
             Catch::Contains("h.xml:4:60: hardware.pciDevice of HostSystem host-9 was not read "
                             "(NoPermission)"));
  CHECK_THAT(load_error("<object xmlns=\"urn:vim25\"><obj type=\"HostSystem\">host-9</obj>"
                        "<propSet><name>name</name><val>esx</val></propSet></object>"),
             Catch::Contains("h.xml:1:1: HostSystem host-9 without hardware.pciDevice"));
  // The safe XML loader's refusals hold here too.
  CHECK_THAT(load_error("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>"),
             Catch::Contains("h.xml:1:"));
}

TEST_CASE("A host's vGPU types and system UUID come from its properties document",
          "[pci][vsphere-api]") {
  const std::string head =
      std::string(kEnvelope) +
      "<RetrievePropertiesExResponse xmlns=\"urn:vim25\"><returnval><objects>"
      "<obj type=\"HostSystem\">host-9</obj>"
      "<propSet><name>name</name><val xsi:type=\"xsd:string\">esx9</val></propSet>"
      "<propSet><name>hardware.pciDevice</name><val xsi:type=\"ArrayOfHostPciDevice\">"
      "<HostPciDevice><id>0000:18:00.0</id><classId>770</classId><bus>24</bus><slot>0</slot>"
      "<function>0</function><vendorId>4318</vendorId><subVendorId>4318</subVendorId>"
      "<vendorName>NVIDIA Corporation</vendorName><deviceId>9008</deviceId>"
      "<subDeviceId>9008</subDeviceId><deviceName>GH100</deviceName></HostPciDevice></val>"
      "</propSet>"
      "<propSet><name>hardware.systemInfo.uuid</name><val xsi:type=\"xsd:string\">"
      "4c4c4544-0048-3510-8052-b4c04f4e3332</val></propSet>";
  const std::string tail =
      "</objects></returnval></RetrievePropertiesExResponse>"
      "</soapenv:Body></soapenv:Envelope>";
  const std::string types =
      "<propSet><name>config.sharedPassthruGpuTypes</name><val xsi:type=\"ArrayOfString\">"
      "<string>nvidia_h100xm-80c</string><string>nvidia_h100xm-40c</string></val></propSet>"
      "<propSet><name>config.sharedGpuCapabilities</name>"
      "<val xsi:type=\"ArrayOfHostSharedGpuCapabilities\"><HostSharedGpuCapabilities>"
      "<vgpu>nvidia_h100xm-40c</vgpu><diskSnapshotSupported>true</diskSnapshotSupported>"
      "<memorySnapshotSupported>false</memorySnapshotSupported>"
      "<suspendSupported>true</suspendSupported><migrateSupported>true</migrateSupported>"
      "</HostSharedGpuCapabilities></val></propSet>";
  const vmxkit::pci::Host host = load_document(head + types + tail, "h.xml");
  CHECK(host.system_uuid() == "4c4c4544-0048-3510-8052-b4c04f4e3332");
  const vmxkit::pci::HostVgpuTypes& offered = host.vgpu_types();
  CHECK(offered.known);
  CHECK(offered.host_name == "esx9");
  CHECK(offered.names() == std::vector<std::string>{"nvidia_h100xm-80c", "nvidia_h100xm-40c"});
  // The capabilities belong to the type they name; the other type has none given.
  REQUIRE(offered.find("nvidia_h100xm-40c") != nullptr);
  CHECK(offered.find("nvidia_h100xm-40c")->migrate == true);
  CHECK(offered.find("nvidia_h100xm-40c")->memory_snapshot == false);
  CHECK_FALSE(offered.find("nvidia_h100xm-80c")->migrate.has_value());
  CHECK(offered.find("grid_a100-40c") == nullptr);
  // A document without the two properties says nothing about vGPU types.
  const vmxkit::pci::Host older = load_document(head + tail, "h.xml");
  CHECK_FALSE(older.vgpu_types().known);
  CHECK(older.vgpu_types().offered.empty());
}
