// SPDX-License-Identifier: Apache-2.0
// The one table of formats: every input and output form vmxkit reads or writes is named here
// once, with how it is recognised, its reader or writer, and what it can carry. Every command,
// the Python package and the Ansible collection list formats from it; adding a format is its
// own file, its row here, and its tests.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/model/vm_config.h"

namespace vmxkit {
class LineIndex;
}  // namespace vmxkit

namespace vmxkit::vsphere {
struct Loaded;
struct RenderOptions;
class UncarriedText;
}  // namespace vmxkit::vsphere

namespace vmxkit::formats {

/// What a format describes.
enum class Subject : unsigned char { vm, host, guest };
/// "vm", "host", "guest".
std::string_view to_string(Subject subject);

/// What a VM format can carry beyond settings, memory and firmware: where a plan holds more, its
/// writer refuses (never drops it), and a reader says what the form leaves to vSphere.
struct Carries {
  bool host_address = false;        ///< DirectPath I/O devices by host address
  bool dynamic_directpath = false;  ///< devices by vendor/device id, placed by vSphere
  bool vgpu = false;                ///< NVIDIA vGPU profiles
  bool sriov = false;               ///< SR-IOV VF network adapters
  bool device_groups = false;       ///< vSphere 8 vendor device groups
  bool dvx = false;                 ///< DVX (Enhanced DirectPath) devices
};

/// What a writer gets.
struct WriteRequest {
  const VmConfig& config;
  const std::vector<std::string>& comments;  ///< a plan's explanation; empty for convert
  const vsphere::RenderOptions& options;
};

/// One format.
struct Format {
  std::string_view name;  ///< "vmx", "configspec-xml", "terraform", "lspci-vvv"...
  Subject subject = Subject::vm;
  std::string_view summary;
  bool input = false;   ///< lint, convert, topo... read it (told apart by content)
  bool output = false;  ///< generate and convert write it
  /// VM inputs: whether the bytes, from `start` (past a BOM and white space; the bytes are
  /// ASCII-narrowed when they are UTF-16 or UTF-32), are of this format. Tried in table order;
  /// nullptr for `.vmx`, the default.
  bool (*recognise)(std::string_view bytes, std::size_t start) = nullptr;
  /// VM inputs: reads `into.source` into `into.vms` (and the format's extras).
  void (*read)(vsphere::Loaded& into) = nullptr;
  /// VM outputs: the text of the VM. Throws vmxkit::Error for what the form cannot carry.
  std::string (*write)(const WriteRequest& request) = nullptr;
  Carries carries;
};

/// Every format, VM inputs in the order they are recognised.
const std::vector<Format>& all();
/// A format by name, or nullptr.
const Format* find(std::string_view name);
/// The format a VM input is in, told from its content (the `.vmx` when nothing else matches).
const Format& recognise_vm_input(std::string_view bytes);
/// The formats of a subject that are inputs (or outputs), in table order.
std::vector<const Format*> inputs(Subject subject);
std::vector<const Format*> outputs();
/// The output format with this name; throws vmxkit::Error naming the outputs there are.
const Format& output_format(std::string_view name);
/// "vmx, configspec-xml, ..." for messages and help texts.
std::string names(const std::vector<const Format*>& formats);

/// Rethrows a writer's refusal of a key or value (bytes that are not UTF-8 in JSON, XML or HCL)
/// as an Error at its place in the input: `config` is what was read from `bytes` (the file
/// `path`, lines `index`), and the place is the key or value that holds the refused text, at
/// its first byte that is not UTF-8 where the input holds the text as it is. Rethrows `refused`
/// as it is when no setting holds that text.
[[noreturn]] void throw_located(const vsphere::UncarriedText& refused, const VmConfig& config,
                                const std::string& path, std::string_view bytes,
                                const LineIndex& index);

}  // namespace vmxkit::formats
