// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "vmxkit/core/source_file.h"

namespace vmxkit {

/// What a declaration form (a Terraform resource, a VM Operator VirtualMachineClass) says about
/// a VM beyond its settings, or leaves to another party: a value vSphere or VM Operator picks,
/// a field that another one overrides, a setting the form cannot carry. `where` points into the
/// document the VM was read from.
struct FormNote {
  SourceSpan where;
  std::string text;
};

/// A value a plan knows only after apply (Terraform's `after_unknown`). What it would set is NOT
/// in the VM's VmConfig, and nothing that depends on it may be read as absent: a check that
/// would say "missing" must say "unknown" instead (checks::defer_unknown).
struct UnknownValue {
  /// As Terraform names it: `extra_config`, `extra_config["pciPassthru.64bitMMIOSizeGB"]`,
  /// `pci_device_id[1]`, `network_interface[1].physical_function`.
  std::string attribute;
  /// The `.vmx` keys whose value it would give; a key ending in `*` is a prefix (`pciPassthru*`:
  /// a passthrough device; `*`: any extraConfig key).
  std::vector<std::string> keys;
  SourceSpan where;  ///< its `true` in `after_unknown`
};

}  // namespace vmxkit
