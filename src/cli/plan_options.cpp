// SPDX-License-Identifier: Apache-2.0
#include "cli/plan_options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <system_error>

namespace vmxkit::cli {

PlanRequest PlanOptions::to_request() const {
  PlanRequest r = request;
  r.gpu_count = gpus;
  r.memory_mb = memory_mb;
  r.vgpu = vgpu;
  return r;
}

bool PlanOptions::any() const {
  return !request.gpus.empty() || !request.nics.empty() || gpus || memory_mb || vgpu ||
         request.sriov || request.allow_degraded || !request.system_id.empty();
}

void add_plan_options(CLI::App& sub, PlanOptions& o, bool system_id) {
  sub.add_option("--gpu", o.request.gpus,
                 "GPU address (0000:3b:00.0), auto (every GPU), or a model without --host "
                 "(h100-pcie; see --list-models)");
  sub.add_option("--gpus", o.gpus,
                 "With --gpu auto: the N best-connected GPUs (on ESXi captures, among equals, "
                 "those ready for passthrough or vGPU)");
  sub.add_option("--nic", o.request.nics,
                 "NIC address, auto (the closest NIC for each GPU, distinct where possible), or "
                 "a model without --host");
  sub.add_option("--vgpu", o.vgpu, "vGPU profile (grid_a100-40c) instead of full passthrough");
  sub.add_flag("--sriov", o.request.sriov, "Pass SR-IOV VFs of the NICs instead of the PFs");
  sub.add_option("--network", o.request.network, "Port group of SR-IOV VF entries")
      ->capture_default_str();
  sub.add_option("--memory-mb", o.memory_mb,
                 system_id ? "Guest memory, all reserved (default 65536, or the --base file's "
                             "memsize)"
                           : "Guest memory, all reserved (default: the VM's size stays)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // Checked on the text: CLI11 saturates a number too large and wraps a negative one.
            std::uint64_t mb = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mb);
            if (ec == std::errc() && end == text.data() + text.size() && mb >= 1 &&
                mb <= kMaxMemoryMb) {
              return {};
            }
            return fmt::format(
                "{} is not a number of MB from 1 to {} (24560 GB, the vSphere "
                "maximum for a VM)",
                text, kMaxMemoryMb);
          },
          fmt::format("1..{}", kMaxMemoryMb)));
  if (system_id) {
    sub.add_option("--system-id", o.request.system_id,
                   "The host's system UUID for the entries' systemId (esxcli system uuid get)");
  }
  sub.add_flag("--allow-degraded", o.request.allow_degraded,
               "Accept GPU/NIC pairs that meet only at the CPU (PHB/NODE)");
}

}  // namespace vmxkit::cli
