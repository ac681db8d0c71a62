// SPDX-License-Identifier: Apache-2.0
// `vmxkit generate --plan-json PATH`: the plan as data, the document docs/json-output.md
// describes, for programs that drive generate (the Ansible collection) and must not read the
// prose of a .vmx comment block or of stderr.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vmxkit/report/json.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::report {

/// The plan document's `schema`: raised when a member is renamed or removed or changes its
/// meaning; members may be added under the same number.
inline constexpr int kPlanJsonSchema = 1;

/// Where generate wrote the plan's rendering.
struct PlanOutput {
  std::string format;               ///< the format table's name (`vmx`, `configspec-xml`...)
  std::optional<std::string> path;  ///< the file (-o); nullopt for stdout
};

/// The plan: its devices, pairs with their verdicts, vGPU profile, memory, 64-bit MMIO window,
/// explanation, the `warnings` the run printed, and where its rendering went. The values are the
/// public API's (vmxkit::Plan), the same the Python package hands out.
Json plan_json(const Plan& plan, const PlanOutput& output,
               const std::vector<std::string>& warnings);

}  // namespace vmxkit::report
