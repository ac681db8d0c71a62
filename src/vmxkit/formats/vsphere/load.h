// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/form_note.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/ovf.h"
#include "vmxkit/formats/vsphere/schema.h"
#include "vmxkit/model/vm_config.h"

/// One entry point for every input format: detects the format from the content and returns the
/// neutral VmConfig of each VM in the file, with spans into the file's bytes.
namespace vmxkit::vsphere {

/// Where the content of `bytes` starts: past a UTF-8 BOM and the spaces, tabs and line breaks
/// after it (bytes.size() when there is nothing else).
std::size_t content_start(std::string_view bytes);

/// The recognisers of the vSphere forms, for the format table (formats/formats.h), each given
/// the bytes and where their content starts (past a BOM and white space): `{` or `[` is JSON:
/// govc's when its top-level object has a `VirtualMachines` member (vm.info) or `ChangeSet` and
/// `Obj` (object.collect of several objects), or when it is an array whose first object has
/// `Name` and `Val` (object.collect of one object's properties), each also in the camelCase of
/// govc 0.32 and later; VI/JSON otherwise, and also when the document is one JSON number,
/// string or literal (`42`); `<` is XML, whose root element says which (an OVF or SOAP Envelope
/// by namespace, anything else a ConfigSpec or ConfigInfo).
bool recognise_govc_json(std::string_view bytes, std::size_t start);
bool recognise_vi_json(std::string_view bytes, std::size_t start);
bool recognise_ovf(std::string_view bytes, std::size_t start);
bool recognise_soap(std::string_view bytes, std::size_t start);
bool recognise_xml(std::string_view bytes, std::size_t start);

struct LoadedVm {
  /// The OVF VirtualSystem id; for a VM's configuration from a vSphere client, the VM's name
  /// (else its moref); empty for a `.vmx` and a ConfigSpec.
  std::string name;
  std::string moref;  ///< `vm-42`, where the document names the VM's managed object
  VmConfig config;
  /// OVF: the VirtualSystem's settings vmxkit saw and did not read (OVF001).
  std::vector<OvfUnread> unread;
  /// Declaration forms (Terraform, VM classes): what the form leaves to vSphere or cannot say.
  std::vector<FormNote> notes;
  /// Terraform plans: values known only after apply, which the checks must not read as absent.
  std::vector<UnknownValue> unknown;
};

struct Loaded {
  const formats::Format* format = nullptr;  ///< the format table's row
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

/// The readers of the format table, each filling `into.vms` (and its extras) from `into.source`.
void read_vmx_input(Loaded& into);
void read_vim25_input(Loaded& into);  ///< ConfigSpec/ConfigInfo XML and SOAP
void read_vi_json_input(Loaded& into);
void read_ovf_input(Loaded& into);
void read_govc_input(Loaded& into);

}  // namespace vmxkit::vsphere
