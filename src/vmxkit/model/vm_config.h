// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"

/// The neutral model of a VM's configuration: what the `.vmx`, a ConfigSpec and the generator
/// share, so one rule set lints every format and one plan renders to every format. Settings are
/// ordered key/value pairs with the place they came from; passthrough devices, firmware and the
/// memory reservation are derived from them.
namespace vmxkit {

struct Setting {
  std::string key;    ///< as written (case kept)
  std::string value;  ///< decoded
  SourceSpan whole;   ///< the entry (a .vmx line without its ending, an XML element)
  SourceSpan key_span;
  SourceSpan value_span;
};

/// What a `pciPassthruN` entry passes to the VM.
enum class PassthroughKind {
  directpath,  ///< a host device by id (DirectPath I/O)
  dynamic,     ///< Dynamic DirectPath: `allowedDevices` vendor:device list
  vgpu,        ///< an NVIDIA vGPU profile (`vgpu`)
  sriov_vf,    ///< an SR-IOV virtual function (`systemId = "BYPASS"` or `pfId`)
  /// A Device Virtualization Extensions device (`virtualDev = "dvx"`, `dvx.deviceClass`): its
  /// vendor's plugin picks the hardware; with `networkName`, an SR-IOV network adapter.
  dvx,
  unknown,  ///< none of the above can be told
};

std::string_view to_string(PassthroughKind kind);

/// One `pciPassthruN` device: the settings whose key starts with `pciPassthruN.`.
struct PassthroughDevice {
  unsigned index = 0;                 ///< N
  std::vector<std::size_t> settings;  ///< indices into VmConfig::settings, in file order
  bool present = false;               ///< `present` is a true boolean
  std::optional<std::string> id;      ///< host device address as written
  std::optional<std::string> device_id;
  std::optional<std::string> vendor_id;
  std::optional<std::string> system_id;
  std::optional<std::string> pf_id;
  std::optional<std::string> vgpu;
  std::optional<std::string> virtual_dev;
  std::optional<std::string> allowed_devices;
  std::optional<std::string> network_name;      ///< an SR-IOV network adapter's port group
  std::optional<std::string> dvx_device_class;  ///< `dvx.deviceClass`

  PassthroughKind kind() const;
};

/// The parts of a per-device key `pciPassthru<N>.<field>` (prefix in any case).
struct PassthroughKey {
  unsigned index = 0;       ///< N
  std::string_view digits;  ///< N as written
  std::string_view field;   ///< after the dot: `id`, `deviceId`, `cfg.enable_uvm`...
};
/// Splits a per-device key; nullopt for other keys, including VM-wide `pciPassthru.x` keys.
std::optional<PassthroughKey> split_passthrough_key(std::string_view key);

/// Parses a boolean as VMware accepts it: TRUE/FALSE, YES/NO, 1/0, any case.
std::optional<bool> parse_bool(std::string_view value);
/// Parses a decimal integer, or hexadecimal with `0x`.
std::optional<std::int64_t> parse_int(std::string_view value);

/// A device's place in a device group: the `pciPassthruN` entry and its `sequenceId`.
struct DeviceGroupMember {
  unsigned device = 0;           ///< N of `pciPassthruN`
  std::int32_t sequence_id = 0;  ///< its position in the group's template
  SourceSpan whole;              ///< where the membership is written
};

/// A vSphere device group (vSphere API 8.0.0.1, `VirtualMachineVirtualDeviceGroups`): devices
/// that vSphere gives the VM as one unit. A vendor device group (`deviceGroupName`, one of the
/// host's VirtualMachineVendorDeviceGroupInfo) holds devices the vendor found physically linked,
/// such as a GPU and the NIC under its PCIe switch, so that vSphere places them together.
/// Only the vSphere formats carry groups: no `.vmx` key for them is known.
struct DeviceGroup {
  std::int32_t key = 0;                    ///< `groupInstanceKey` as read
  std::optional<std::string> name;         ///< `deviceGroupName`: set for a vendor device group
  std::string label;                       ///< `deviceInfo.label`
  std::string summary;                     ///< `deviceInfo.summary`
  std::vector<DeviceGroupMember> members;  ///< in device order
  SourceSpan whole;
};

class VmConfig {
 public:
  std::vector<Setting> settings;
  /// The VM's device groups, from a vSphere document (empty for a `.vmx`).
  std::vector<DeviceGroup> device_groups;

  /// Appends a setting that came from an element spanning `whole` (key and element share it),
  /// its value at `value_span`: how the ConfigSpec, VI/JSON and OVF readers build the model.
  void add(std::string key, std::string value, SourceSpan whole, SourceSpan value_span);

  /// The first setting with this key (ASCII case-insensitive), or nullptr.
  const Setting* find(std::string_view key) const;
  std::vector<const Setting*> find_all(std::string_view key) const;
  std::optional<std::string_view> get(std::string_view key) const;
  std::optional<bool> get_bool(std::string_view key) const;
  std::optional<std::int64_t> get_int(std::string_view key) const;

  /// `pciPassthruN.*` grouped by N, ordered by N. Entries whose `present` is not true are
  /// included with present == false.
  std::vector<PassthroughDevice> passthrough_devices() const;

  std::optional<std::string_view> firmware() const { return get("firmware"); }
  /// `memsize`, in MB.
  std::optional<std::int64_t> memory_mb() const { return get_int("memsize"); }
  /// `sched.mem.min` (or `sched.mem.minSize`), in MB.
  std::optional<std::int64_t> memory_reservation_mb() const;
  /// `sched.mem.pin` is true: the reservation follows the memory size.
  bool memory_pinned() const { return get_bool("sched.mem.pin").value_or(false); }
  /// All guest memory is reserved (pinned, or a reservation of at least memsize).
  bool memory_fully_reserved() const;
  /// The device group that `pciPassthruN` (N = `device`) belongs to, or nullptr.
  const DeviceGroup* group_of(unsigned device) const;
};

}  // namespace vmxkit
