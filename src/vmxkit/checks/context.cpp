// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/context.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "vmxkit/core/pci_address.h"
#include "vmxkit/core/text.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/devices/role.h"

namespace vmxkit::checks {
namespace {

std::optional<std::uint16_t> parse_id(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const auto v = parse_int(*text);
  if (!v || *v <= 0 || *v > 0xFFFF) return std::nullopt;
  return static_cast<std::uint16_t>(*v);
}

DeviceClass classify(const PassthroughDevice& d, const pci::CatalogEntry* model,
                     std::optional<std::uint16_t> vendor) {
  if (d.kind() == PassthroughKind::vgpu) return DeviceClass::gpu;
  if (d.kind() == PassthroughKind::sriov_vf) return DeviceClass::nic;
  // A DVX-backed SR-IOV network adapter (govmomi's ovf/fixtures/external/vdg-vm.ovf).
  if (d.kind() == PassthroughKind::dvx && d.network_name) return DeviceClass::nic;
  // The host model's classifier, on what a VM's entry says: its ids, and the function of the
  // host address it names (an NVIDIA GPU is function 0 of its slot; 1-3 are its companions).
  const auto bdf = d.id ? parse_vmx_bdf(*d.id) : std::nullopt;
  pci::DeviceFacts facts;
  facts.vendor_id = vendor;
  facts.model = model;
  if (bdf) facts.function = bdf->function;
  switch (pci::role_of(facts)) {
    case pci::Role::gpu:
      return DeviceClass::gpu;
    case pci::Role::rdma_nic:
    case pci::Role::nic_vf:
    case pci::Role::nic:
      return DeviceClass::nic;
    default:
      return DeviceClass::other;
  }
}

// A Dynamic DirectPath device's ids: the first `0xVVVV:0xDDDD` of its allowedDevices (vSphere's
// `VirtualPCIPassthroughDynamicBackingInfo.allowedDevice`, which a VM class names its devices by).
std::pair<std::optional<std::uint16_t>, std::optional<std::uint16_t>> allowed_ids(
    const PassthroughDevice& d) {
  if (!d.allowed_devices) return {};
  std::string_view first(*d.allowed_devices);
  first = first.substr(0, first.find_first_of("|, "));
  const std::size_t colon = first.find(':');
  if (colon == std::string_view::npos) return {};
  return {parse_id(std::string(first.substr(0, colon))),
          parse_id(std::string(first.substr(colon + 1)))};
}

}  // namespace

Context::Context(std::string path, std::string_view bytes, const vmx::Document* doc,
                 const VmConfig& config, const pci::Catalog& catalog, const pci::Host* host)
    : path_(std::move(path)),
      bytes_(bytes),
      doc_(doc),
      config_(config),
      catalog_(catalog),
      host_(host),
      passthrough_(config.passthrough_devices()) {
  for (const PassthroughDevice& d : passthrough_) {
    if (!d.present) continue;
    VmDevice v;
    v.entry = &d;
    v.vendor_id = parse_id(d.vendor_id);
    v.device_id = parse_id(d.device_id);
    if (!v.vendor_id && !v.device_id && d.kind() == PassthroughKind::dynamic) {
      std::tie(v.vendor_id, v.device_id) = allowed_ids(d);
    }
    if (v.vendor_id && v.device_id) v.model = catalog.find(*v.vendor_id, *v.device_id);
    v.cls = classify(d, v.model, v.vendor_id);
    v.label = fmt::format("pciPassthru{}", d.index);
    if (v.model != nullptr) {
      v.label += fmt::format(" ({})", v.model->model);
    } else if (d.vgpu) {
      v.label += fmt::format(" (vGPU {})", *d.vgpu);
    }
    devices_.push_back(std::move(v));
  }
}

std::size_t Context::count(DeviceClass cls) const {
  return static_cast<std::size_t>(std::count_if(devices_.begin(), devices_.end(),
                                                [cls](const VmDevice& d) { return d.cls == cls; }));
}

bool Context::wants_p2p() const {
  const std::size_t gpus = count(DeviceClass::gpu);
  if (gpus == 0) return false;
  if (count(DeviceClass::nic) >= 1) return true;  // GPUDirect RDMA, with vGPUs too
  // GPU<->GPU over PCIe: vGPUs get none (NVIDIA: "P2P transfers over PCIe are not supported"
  // for vGPU; P2P004 says what they need), so two vGPUs alone do not ask for it.
  std::size_t passed_whole = 0;
  for (const VmDevice& v : devices_) {
    passed_whole += v.cls == DeviceClass::gpu && v.entry->kind() != PassthroughKind::vgpu;
  }
  return passed_whole >= 2;
}

const Setting* Context::device_setting(const PassthroughDevice& d, std::string_view field) const {
  const std::string key = fmt::format("pciPassthru{}.{}", d.index, field);
  for (const std::size_t i : d.settings) {
    if (iequals(config_.settings[i].key, key)) return &config_.settings[i];
  }
  return nullptr;
}

SourceSpan Context::device_span(const PassthroughDevice& d) const {
  if (const Setting* present = device_setting(d, "present")) return present->whole;
  return d.settings.empty() ? SourceSpan{} : config_.settings[d.settings.front()].whole;
}

Diagnostic& Sink::report(const Check& rule, std::size_t begin, std::size_t end,
                         std::string message) {
  Diagnostic& d = diagnostics_.emplace_back();
  d.rule_id = rule.id;
  d.severity = rule.severity;
  d.begin = begin;
  d.end = std::max(begin, end);
  d.message = std::move(message);
  return d;
}

}  // namespace vmxkit::checks
