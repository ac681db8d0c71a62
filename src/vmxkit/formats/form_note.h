// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

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

}  // namespace vmxkit
