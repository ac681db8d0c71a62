// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vmxkit/formats/vsphere/configspec.h"

/// The change between a VM as read (its ConfigInfo, read as the ConfigSpec that would give it
/// that configuration, with the server's device keys) and a plan (the ConfigSpec the outputs
/// send): what `vmxkit apply` sends in one ReconfigVM_Task. Pure data: no server, no prose
/// beyond the one-line diff entries.
namespace vmxkit::apply {

/// One line of the diff: `-` a device or value that goes, `+` one that comes, `~` a value that
/// changes, `=` something the plan asks that is not sent (with why).
struct DiffLine {
  char sign = '~';
  std::string what;  ///< "passthrough 0000:18:00.0 (10de:2331)", "memoryMB 16384 -> 65536"
};

struct ChangeOptions {
  /// `--firmware-change`: send a firmware that differs from the VM's. Without it the firmware
  /// is left as it is and the diff says so.
  bool firmware_change = false;
  /// The plan's memory size is the generator's default, not the user's: keep the VM's size
  /// (the reservation still follows it) rather than grow or shrink the VM to the default.
  bool keep_memory = false;
};

struct Change {
  /// The delta: removals (the devices as read, with their keys), then additions (keys -1, -2,
  /// ...), the extraConfig keys that differ (an empty value removes a key), memory, the
  /// reservation and firmware only where they differ. Empty when the VM already is the plan.
  vsphere::ConfigSpec spec;
  std::vector<DiffLine> diff;
  /// What the plan holds that no server may be sent: `<fill in: ...>` placeholders (the
  /// host's systemId, a device id). Any entry makes the change unusable.
  std::vector<std::string> placeholders;
  /// The firmware differs and --firmware-change was given: sending it needs the VM off.
  bool firmware_changes = false;
  /// Devices are removed or added: that needs the VM off (DirectPath I/O has no hot plug).
  bool devices_change = false;
  bool memory_changes = false;
  /// Nothing to send.
  bool empty() const;
};

/// What a passthrough device is, for matching: kind and backing (the address in lower case,
/// the device id as hex without leading zeros, the vendor id as 16 bits, the systemId; a
/// vGPU's profile; an SR-IOV adapter's PF and port group), without the key. Two devices with
/// one identity are the same device, kept where it is.
std::string identity(const vsphere::DeviceChange& device);
/// The identity as the diff shows it: "passthrough 0000:18:00.0 10de:2331", "vGPU grid_h100-80c".
std::string describe(const vsphere::DeviceChange& device);

/// The change that makes `current` (the VM as read: its devices with the server's keys) what
/// `plan` asks. Devices are matched by identity as multisets: one already there is kept, one
/// the plan has twice is added twice only when the plan asks so, one the plan does not hold is
/// removed. extraConfig keys are compared case-insensitively; a key the plan gives an empty
/// value is removed when the VM has it. memoryMB only when the plan gives it (and not
/// `keep_memory`); the reservation and memoryReservationLockedToMax when the plan's differ.
Change compute_change(const vsphere::ConfigSpec& current, const vsphere::ConfigSpec& plan,
                      const ChangeOptions& options = {});

/// The `<fill in: ...>` placeholders a spec holds, each as "where: value".
std::vector<std::string> find_placeholders(const vsphere::ConfigSpec& spec);

/// The plan a document holds (any VM input vmxkit reads: a .vmx, a ConfigSpec...), as the
/// ConfigSpec the outputs send: compute_change()'s `plan`. Throws vmxkit::Error as
/// vsphere::load() does, and when the document holds more or less than one VM.
vsphere::ConfigSpec read_plan(std::string name, std::string bytes);

/// A VM as a vSphere client read it: a ConfigInfo document, or a RetrievePropertiesEx (or
/// Fetch) answer holding one VM's `config`, as pyVmomi serializes either; read as the
/// ConfigSpec that would give the VM its configuration, with the server's device keys:
/// compute_change()'s `current`. Throws vmxkit::Error for what is not such a document (a
/// `.vmx`, a ConfigSpec and a ReconfigVM_Task request hold no device keys), and for a document
/// of several VMs.
vsphere::ConfigSpec read_vm(const std::string& name, std::string bytes);

}  // namespace vmxkit::apply
