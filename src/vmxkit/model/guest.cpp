// SPDX-License-Identifier: Apache-2.0
// A guest capture: split at shell prompt lines, each part detected by its content and read by
// its loader (loaders.cpp; the PCI listings by the pci module's loaders).
#include "vmxkit/model/guest.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/core/text.h"

namespace vmxkit::guest {
namespace {}  // namespace

std::string_view to_string(InputKind kind) {
  switch (kind) {
    case InputKind::lspci:
      return "lspci";
    case InputKind::lspci_tree:
      return "lspci -tv";
    case InputKind::lsmod:
      return "lsmod";
    case InputKind::cmdline:
      return "/proc/cmdline";
    case InputKind::nvidia_smi:
      return "nvidia-smi";
    case InputKind::nvidia_smi_query:
      return "nvidia-smi -q";
    case InputKind::nvidia_smi_topo:
      return "nvidia-smi topo -m";
    case InputKind::ibv_devinfo:
      return "ibv_devinfo";
    case InputKind::uname:
      return "uname -r";
    case InputKind::module_versions:
      return "/sys/module/*/version";
    case InputKind::nvidia_version:
      return "/proc/driver/nvidia/version";
    case InputKind::modinfo:
      return "modinfo";
    case InputKind::ofed_info:
      return "ofed_info -s";
    case InputKind::nccl_log:
      return "NCCL log";
    case InputKind::environment:
      return "env";
    case InputKind::nccl_topo_dump:
      return "NCCL topology dump";
  }
  return "unknown";
}

bool same_module(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] == '-' ? '_' : a[i];
    const char y = b[i] == '-' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

Guest::Guest() : host_(pci::Catalog::builtin()) {}

bool Guest::has(InputKind kind) const {
  return std::any_of(inputs_.begin(), inputs_.end(),
                     [&](const InputRead& r) { return r.kind == kind; });
}

bool Guest::has_full_lspci() const {
  return std::any_of(inputs_.begin(), inputs_.end(), [](const InputRead& r) {
    return (r.kind == InputKind::lspci || r.kind == InputKind::lspci_tree) && !r.filtered;
  });
}

void Guest::set_modules(std::vector<Module> modules) {
  if (!modules_) {
    modules_ = std::move(modules);
    return;
  }
  for (Module& m : modules) modules_->push_back(std::move(m));
}

void Guest::set_driver_version(Fact f) {
  if (!driver_version_) driver_version_ = std::move(f);
}

void Guest::add_smi_gpu(SmiGpu gpu) {
  for (SmiGpu& g : smi_gpus_) {
    if (g.bus_id && gpu.bus_id && *g.bus_id == *gpu.bus_id) {
      if (!g.bar1_total) g.bar1_total = gpu.bar1_total;
      if (g.product.empty()) g.product = std::move(gpu.product);
      return;
    }
  }
  smi_gpus_.push_back(std::move(gpu));
}

void Guest::set_ib_devices(std::vector<IbDevice> devices) {
  if (!ib_devices_) ib_devices_.emplace();
  for (IbDevice& d : devices) ib_devices_->push_back(std::move(d));
}

void Guest::set_module_version(const std::string& name, Fact f) {
  module_versions_[name] = std::move(f);
}

void Guest::set_open_kernel_module(bool open, pci::Origin where) {
  if (!open_module_) open_module_ = Fact{open ? "open" : "proprietary", std::move(where)};
}

std::optional<bool> Guest::module_loaded(std::string_view name) const {
  bool filtered_lsmod = false;
  for (const InputRead& r : inputs_) filtered_lsmod |= r.kind == InputKind::lsmod && r.filtered;
  if (modules_) {
    for (const Module& m : *modules_) {
      if (same_module(m.name, name)) return true;
    }
    if (!filtered_lsmod) return false;
  }
  for (const auto& [mod, fact] : module_versions_) {
    if (same_module(mod, name)) return true;
  }
  for (const pci::Device& d : host_.devices()) {
    if (!d.driver.empty() && same_module(d.driver, name)) return true;
  }
  return std::nullopt;
}

void Guest::finalize() {
  if (finalized_) return;
  finalized_ = true;
  host_.finalize();
}

}  // namespace vmxkit::guest
