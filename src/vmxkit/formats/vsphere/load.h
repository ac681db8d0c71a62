// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/model/vm_config.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/ovf.h"
#include "vmxkit/formats/vsphere/schema.h"

/// One entry point for every input format: detects the format from the content and returns the
/// neutral VmConfig of each VM in the file, with spans into the file's bytes.
namespace vmxkit::vsphere {

enum class Format {
  vmx,             ///< a `.vmx` file
  configspec_xml,  ///< a vim25 VirtualMachineConfigSpec or VirtualMachineConfigInfo document
  soap,            ///< SOAP: a ReconfigVM_Task request, a RetrievePropertiesEx,
                   ///< RetrieveProperties or Fetch response
  vi_json,         ///< vSphere VI/JSON (ConfigSpec, ReconfigVM_Task body or ConfigInfo)
  ovf,             ///< an OVF descriptor
  govc_json,       ///< govc's `vm.info -json` or `object.collect -json` output
};

/// "vmx", "configspec-xml", "soap", "vi-json", "ovf", "govc-json".
std::string_view to_string(Format format);

/// Tells the format from the bytes (a leading BOM and whitespace are skipped): `{` or `[` is
/// JSON: govc's when its top-level object has a `VirtualMachines` member (vm.info) or
/// `ChangeSet` and `Obj` (object.collect of several objects), or when it is an array whose first
/// object has `Name` and `Val` (object.collect of one object's properties), each also in the
/// camelCase of govc 0.32 and later; VI/JSON otherwise, and also when the document is one JSON
/// number, string or literal (`42`); `<` is XML, whose root element says which (an OVF or SOAP
/// Envelope by namespace, anything else a ConfigSpec or ConfigInfo); everything else is a
/// `.vmx`. UTF-16 and UTF-32 text is told by its ASCII characters (load() refuses it). The path
/// is not consulted, so a file keeps its format whatever it is called.
Format detect_format(std::string_view bytes);

/// Where the content of `bytes` starts: past a UTF-8 BOM and the spaces, tabs and line breaks
/// after it (bytes.size() when there is nothing else).
std::size_t content_start(std::string_view bytes);

struct LoadedVm {
  /// The OVF VirtualSystem id; for a VM's configuration from a vSphere client, the VM's name
  /// (else its moref); empty for a `.vmx` and a ConfigSpec.
  std::string name;
  std::string moref;  ///< `vm-42`, where the document names the VM's managed object
  VmConfig config;
  /// OVF: the VirtualSystem's settings vmxkit saw and did not read (OVF001).
  std::vector<OvfUnread> unread;
};

struct Loaded {
  Format format = Format::vmx;
  SourceFile source;
  /// One, except for OVF files with several VirtualSystems and for vSphere client documents
  /// with several VMs (a RetrievePropertiesEx response, `govc vm.info -json` of several VMs).
  std::vector<LoadedVm> vms;
  /// Schema problems of ConfigSpec XML and SOAP input (XML001: checks::schema_diagnostics()).
  std::vector<SchemaProblem> schema_problems;
  std::string vm;  ///< SOAP: the `_this` VirtualMachine moref
  /// A `.vmx`'s malformed lines (VMX001, VMX002: checks::line_diagnostics()), which VMware
  /// cannot read and which its VmConfig therefore lacks: a conversion would lose them.
  std::vector<vmx::LineProblem> malformed;
};

/// Reads `bytes` (named `path` in messages) in whatever format they are. Throws vmxkit::Error
/// with file:line:col when the content cannot be read as its format (UTF-16 or UTF-32 text,
/// malformed or unsafe XML, malformed JSON, values of the wrong type) or holds no VM
/// configuration (a SOAP Fault, a property collector response or govc output without a VM's
/// config: the message names what the document is).
Loaded load(std::string path, std::string bytes);

}  // namespace vmxkit::vsphere
