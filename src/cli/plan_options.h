// SPDX-License-Identifier: Apache-2.0
// What to plan, as generate's options name it: shared by `generate` and `apply`, which plans
// against the VM's own host when given these instead of a plan file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vmxkit/vmxkit.h"

namespace CLI {
class App;
}

namespace vmxkit::cli {

struct PlanOptions {
  PlanRequest request;  ///< --gpu, --nic, --sriov, --network, --system-id, --allow-degraded
  std::optional<unsigned> gpus;
  std::optional<std::uint64_t> memory_mb;
  std::optional<std::string> vgpu;
  /// The request with --gpus, --memory-mb and --vgpu in it.
  PlanRequest to_request() const;
  /// Whether any option that says what to plan was given (--network alone says nothing).
  bool any() const;
};

/// --gpu, --gpus, --nic, --vgpu, --sriov, --network, --memory-mb, --allow-degraded; with
/// `system_id` (generate) also --system-id. Without it (apply, which takes the host's UUID read
/// live) --memory-mb's help says the VM's size stays when it is not given.
void add_plan_options(CLI::App& sub, PlanOptions& options, bool system_id);

}  // namespace vmxkit::cli
