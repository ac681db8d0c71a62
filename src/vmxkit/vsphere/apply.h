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
#include "vmxkit/checks/engine.h"
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

/// Which VM, as the community.vmware modules name one: by `name` (or moref), looked up under
/// `folder` or in `datacenter` when given; by `uuid` (its BIOS UUID, `config.uuid`, or with
/// `instance_uuid` its `config.instanceUuid`: SearchIndex.FindByUuid, in `datacenter` when
/// given); or by `moid`. Exactly one of name, uuid and moid.
struct VmSelector {
  std::string name;
  std::string uuid;
  bool instance_uuid = false;
  std::string moid;
  std::string datacenter;
  /// An inventory path (`/DC0/vm/gpu`), or a folder of `datacenter` (`gpu`, `vm/gpu`).
  std::string folder;
};
/// The VM `which` names. Throws vmxkit::Error when it names none, several, or none in the
/// datacenter or folder asked (which must exist), and when it gives not exactly one of name,
/// uuid and moid.
soap::Moref find_vm(Client& client, const VmSelector& which);
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

struct ApplyResult;

/// What apply_plan() does: make the VM `vm` what `plan` says.
struct ApplyRequest {
  VmSelector vm;
  ConfigSpec plan;
  apply::ChangeOptions change;
  /// Compute the change and check every precondition; send nothing.
  bool dry_run = false;
  std::chrono::milliseconds task_timeout{600'000};
  std::chrono::milliseconds task_poll{500};
  /// Called when every check passed, before the task is sent (the result holds the VM, the
  /// change and the checks): to show the change while the task runs.
  std::function<void(const ApplyResult& planned)> on_planned;
  /// Called once ReconfigVM_Task is sent, before waiting for it.
  std::function<void(const soap::Moref& task)> on_sent;
};

/// How an apply ended.
enum class ApplyStatus : unsigned char {
  no_changes,     ///< the VM already holds the plan: nothing checked, nothing sent
  checks_failed,  ///< a precondition failed: nothing was sent
  dry_run,        ///< every check passed; nothing was sent (ApplyRequest::dry_run)
  applied,        ///< the task succeeded and the VM read back holds the plan
  task_failed,    ///< the task ended in error (`after` says what the VM holds)
  not_held,       ///< the task succeeded but the VM read back lacks part of the plan (`left`)
};
/// "no-changes", "checks-failed", "dry-run", "applied", "task-failed", "not-held".
std::string_view to_string(ApplyStatus status);

struct ApplyResult {
  ApplyStatus status = ApplyStatus::no_changes;
  ApplyVm vm;  ///< as read before anything was sent
  apply::Change change;
  Preconditions checks;  ///< none made for no_changes
  soap::Moref task;      ///< the ReconfigVM_Task, once sent
  TaskOutcome outcome;
  std::optional<ApplyVm> after;  ///< the VM read back after the task
  apply::Change left;            ///< what `after` still lacks of the plan (not_held)
  /// applied: the VM read back, linted against its host as `lint --server` lints it.
  checks::LintResult lint;
  /// Whether the VM changed: the task was sent and did not fail (applied, not_held).
  bool changed() const;
};

/// `vmxkit apply`: reads the VM, computes the change (apply::compute_change), and when there
/// is one reads the host and checks every precondition (check_preconditions); unless a check
/// failed or `dry_run`, sends one ReconfigVM_Task, waits for it, reads the VM back and lints it
/// against its host. Outcomes are the result's status; throws vmxkit::Error or soap::Fault for
/// what stops the work (no such VM, a server that cannot be reached or refuses a request, a
/// task that outlives `task_timeout`).
ApplyResult apply_plan(Client& client, const ApplyRequest& request);

}  // namespace vmxkit::vsphere
