// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/checks/check.h"
#include "vmxkit/core/diagnostic.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/vm_config.h"

namespace vmxkit::pci {
class Catalog;
class Host;
struct CatalogEntry;
}  // namespace vmxkit::pci

namespace vmxkit::checks {

/// What a passthrough entry is, for the P2P rules.
enum class DeviceClass : unsigned char { gpu, nic, other };

/// A present passthrough entry with what the catalogue (and host) say about it.
struct VmDevice {
  const PassthroughDevice* entry = nullptr;
  DeviceClass cls = DeviceClass::other;
  std::optional<std::uint16_t> vendor_id;
  std::optional<std::uint16_t> device_id;
  const pci::CatalogEntry* model = nullptr;  ///< nullptr when the catalogue does not know it
  std::string label;                         ///< "pciPassthru0 (H100 PCIe)"
};

/// Everything a check can look at. Built once per file by the engine.
class Context {
 public:
  Context(std::string path, std::string_view bytes, const vmx::Document* doc,
          const VmConfig& config, const pci::Catalog& catalog, const pci::Host* host);

  const std::string& path() const { return path_; }
  std::string_view bytes() const { return bytes_; }
  /// The `.vmx` document; nullptr for ConfigSpec, JSON and OVF inputs (no syntax rules there).
  const vmx::Document* document() const { return doc_; }
  const VmConfig& config() const { return config_; }
  const pci::Catalog& catalog() const { return catalog_; }
  const pci::Host* host() const { return host_; }

  /// Every pciPassthruN group (present or not), ordered by N.
  const std::vector<PassthroughDevice>& passthrough() const { return passthrough_; }
  /// The present ones, classified.
  const std::vector<VmDevice>& devices() const { return devices_; }
  std::size_t count(DeviceClass cls) const;
  /// A GPU with a NIC, or two GPUs passed through whole (not vGPUs, which get no P2P over
  /// PCIe): the VM is meant for peer-to-peer DMA.
  bool wants_p2p() const;

  /// The setting of a device field (`pciPassthruN.<field>`), or nullptr.
  const Setting* device_setting(const PassthroughDevice& d, std::string_view field) const;
  /// Where a whole device is (its first setting), for diagnostics about the device.
  SourceSpan device_span(const PassthroughDevice& d) const;

 private:
  std::string path_;
  std::string_view bytes_;
  const vmx::Document* doc_;
  const VmConfig& config_;
  const pci::Catalog& catalog_;
  const pci::Host* host_;
  std::vector<PassthroughDevice> passthrough_;
  std::vector<VmDevice> devices_;
};

/// Where checks report. A report starts with the rule's severity; the returned reference can
/// take notes and a fix.
class Sink {
 public:
  Diagnostic& report(const Check& rule, std::size_t begin, std::size_t end, std::string message);
  Diagnostic& report(const Check& rule, SourceSpan span, std::string message) {
    return report(rule, span.begin, span.end, std::move(message));
  }
  std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace vmxkit::checks
