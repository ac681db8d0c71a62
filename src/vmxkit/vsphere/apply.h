// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/analysis/apply_change.h"
#include "vmxkit/formats/host/vsphere_api.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/vsphere/client.h"

/// `vmxkit apply` against a server: read the VM and its host, check every precondition before
/// any change, send one ReconfigVM_Task, wait for it. The change itself is computed by
/// apply::compute_change(), without a server.
namespace vmxkit::vsphere {

/// A VM as read for apply: its config as the ConfigSpec that would give it (devices with the
/// server's keys), power state and host.
struct ApplyVm {
  soap::Moref ref;
  std::string name;
  std::string power_state;  ///< poweredOn, poweredOff, suspended
  soap::Moref host;
  bool is_template = false;
  ConfigSpec spec;
  /// The RetrievePropertiesEx answer it was read from (for vsphere::load and the lint).
  std::string answer;
};

/// The VM named `name` (or with that moref). Throws vmxkit::Error naming the morefs when
/// several VMs have the name, and when none has.
soap::Moref find_vm(Client& client, std::string_view name);
/// Reads one VM (name, config, runtime.powerState, runtime.host, config.template).
ApplyVm read_apply_vm(Client& client, const soap::Moref& vm);

/// What the host says about the devices a plan adds.
struct ApplyHost {
  pci::ApiHost host;
  std::optional<std::int64_t> memory_mb;  ///< hardware.memorySize
  std::vector<std::string> vgpu_types;    ///< config.sharedPassthruGpuTypes
  /// QueryConfigTarget answered; the ids of its pciPassthrough and sriov entries.
  bool config_target_read = false;
  std::string config_target_error;
  std::vector<std::string> config_target_ids;
  std::vector<ApplyVm> others;  ///< the other VMs registered on the host
};
ApplyHost read_apply_host(Client& client, const ApplyVm& vm);

/// The outcome of the checks: each failed one, each that passed, and each that could not be
/// made (with why).
struct Preconditions {
  std::vector<std::string> failed;
  std::vector<std::string> passed;
  std::vector<std::string> not_checked;
  bool ok() const { return failed.empty(); }
};
/// Every precondition of `change` on `vm` and its host, without a server: placeholders left in
/// the plan, a template, the power state (any change needs the VM off), each device added (on
/// the host, its ids and the host's systemId, passthrough enabled and active, in the
/// ConfigTarget, not held by another VM), each vGPU added (offered by the host), memory against
/// the host's.
Preconditions check_preconditions(const apply::Change& change, const ApplyVm& vm,
                                  const ApplyHost& host);

/// The end of a task.
struct TaskOutcome {
  bool success = false;
  std::string fault;    ///< the fault type of info.error
  std::string message;  ///< its localizedMessage
};
/// ReconfigVM_Task(vm, spec): returns the task.
soap::Moref reconfigure(Client& client, const soap::Moref& vm, const ConfigSpec& spec);
/// Polls the task's info.state (every `poll`) until success or error, or `timeout` (then
/// throws vmxkit::Error: the task may still run). `progress` gets the state and percentage.
TaskOutcome wait_for_task(Client& client, const soap::Moref& task,
                          std::chrono::milliseconds timeout,
                          std::chrono::milliseconds poll = std::chrono::milliseconds(500),
                          const std::function<void(std::string_view, int)>& progress = {});

}  // namespace vmxkit::vsphere
