// SPDX-License-Identifier: Apache-2.0
// generate's words for the plan's pairs: the comment block's lines that give each pair's verdict
// and reasons, and the error of a plan that cannot do peer-to-peer DMA.
#pragma once

#include <string>
#include <vector>

#include "vmxkit/analysis/plan.h"
#include "vmxkit/model/host.h"

namespace vmxkit::report {

/// The lines of the plan's comment block that go at Plan::pairs_at: each pair with its class
/// and verdict, each reason (reason_text) and the fix of each that worsens the verdict and does
/// not refuse the plan; a pair not judged says why (no host capture, vGPUs); then a note for
/// each of Plan::nvlink_notes. `host` is the one the plan was made on, or null.
std::vector<std::string> plan_pair_lines(const pci::Host* host, const generate::Plan& plan);

/// The error of a plan that cannot do peer-to-peer DMA (Plan::refusals): each pair refused and
/// why, the devices `auto` left out as not ready, and `--gpus N` where fewer GPUs are the way
/// out. Empty when nothing refuses the plan.
std::string plan_refusal_text(const pci::Host* host, const generate::Plan& plan);

}  // namespace vmxkit::report
