// SPDX-License-Identifier: Apache-2.0
// generate's words for its plan (generate::Plan, facts): the comment block of choices and reasons
// that every output carries, and the error of a plan that cannot do peer-to-peer DMA.
#pragma once

#include <string>
#include <vector>

#include "vmxkit/analysis/plan.h"
#include "vmxkit/model/host.h"

namespace vmxkit::report {

/// The plan's comment block (Plan::explanation): the devices `auto` left out as not ready and
/// the command that readies each, the host, each device chosen, that a large host's GPU pairs
/// are each GPU's nearest, the vendor device group's instances or where ESXi puts vGPUs, the
/// pairs (plan_pair_lines), the chosen devices ESXi must ready first, then for a plan that is not
/// refused the 64-bit MMIO window and its arithmetic, the memory, what DirectPath I/O rules out
/// and the systemId to fill in. `host` is the one the plan was made on, or null.
std::vector<std::string> plan_explanation(const pci::Host* host, const generate::Plan& plan);

/// The lines of the plan's comment block about its pairs: each pair with its class
/// and verdict, each reason (reason_text) and the fix of each that worsens the verdict and does
/// not refuse the plan; a pair not judged says why (no host capture, vGPUs); then a note for
/// each of Plan::nvlink_notes. `host` is the one the plan was made on, or null.
std::vector<std::string> plan_pair_lines(const pci::Host* host, const generate::Plan& plan);

/// A device `auto` left out as not ready: what the ESXi capture says, then on a line of its own
/// the command that readies it ("<why>\n    fix: <command>").
std::string not_ready_text(const generate::DeviceFinding& device);

/// The whole error of a plan `auto` could not make (generate::NotReadyError): its first line,
/// then each device left out with the command that readies it.
std::string not_ready_error_text(const generate::NotReadyError& error);

/// The error of a plan that cannot do peer-to-peer DMA (Plan::refusals): each pair refused and
/// why, the devices `auto` left out as not ready, and `--gpus N` where fewer GPUs are the way
/// out. Empty when nothing refuses the plan.
std::string plan_refusal_text(const pci::Host* host, const generate::Plan& plan);

}  // namespace vmxkit::report
