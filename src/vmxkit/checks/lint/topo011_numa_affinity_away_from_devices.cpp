// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <set>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/vm_pairs.h"
#include "vmxkit/core/text.h"

namespace vmxkit::checks {
namespace topo011 {

constexpr std::string_view kDoc = R"md(
## What it does
With a `--host` capture, compares the NUMA nodes the VM is held to, `numa.nodeAffinity` (its
vCPUs and memory) and `sched.mem.affinity` (its memory), with the NUMA node of each
passthrough device the host capture places (`NUMA node:` in `lspci -vvv`, sysfs `numa_node`,
esxcli). Flags every device on a node outside that set, and a value that is not a list of node
numbers. VMs without either key are left to ESXi's NUMA scheduler and not flagged; CPU
affinity (`sched.cpu.affinity`) is not judged, since logical CPU numbers need the host's CPU
topology.

## Why is this bad?
The VM's memory lives on the nodes of its affinity, so every DMA of a device on another node,
and every GPUDirect RDMA transfer that falls back to host memory, crosses the socket
interconnect; NCCL also sees the GPU and NIC as remote from the vCPUs that drive them. VMware's
Private AI design asks for NUMA affinity (or device groups) that keeps a VM with peer-to-peer
devices on their root complex.

## Example
```
numa.nodeAffinity = "0"
pciPassthru0.id = "00000:193:00.0"
```
where the host's `lspci -vvv` shows `0000:c1:00.0` with `NUMA node: 1`.

## Fix safety
No automatic fix: set the affinity to the devices' node (`numa.nodeAffinity = "1"`), remove it,
or pass devices of the node the VM is held to (`vmxkit generate` picks GPUs and NICs of one
node).

## References
- vSphere Resource Management, "Specifying NUMA Controls": with NUMA node affinity "NUMA can
  schedule a virtual machine only on the nodes specified in the affinity"; memory "can be
  obtained only from the nodes specified"; memory affinity: "the server allocates memory only
  on the specified nodes"
- VMware Cloud Foundation, Private AI Ready Infrastructure: for peer-to-peer between PCIe
  devices on one root complex, "configure NUMA affinity or device groups"
)md";

// "0", "0,1", "0, 1" as a set of nodes; nullopt when a part is not a node number.
std::optional<std::set<int>> parse_nodes(std::string_view text) {
  std::set<int> nodes;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view part = trim(text.substr(0, comma));
    int node = -1;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), node);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || node < 0) {
      return std::nullopt;
    }
    nodes.insert(node);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return nodes;
}

void check(const Context& ctx, Sink& sink) {
  const pci::Host& host = *ctx.host();
  for (const std::string_view key : {"numa.nodeAffinity", "sched.mem.affinity"}) {
    const Setting* s = ctx.config().find(key);
    if (s == nullptr || trim(s->value).empty()) continue;
    // `sched.mem.affinity = "all"` is ESXi's default: no constraint.
    if (key == "sched.mem.affinity" && iequals(trim(s->value), "all")) continue;
    const auto nodes = parse_nodes(s->value);
    if (!nodes) {
      sink.report(kTOPO011, s->value_span,
                  fmt::format(R"({} = "{}" is not a list of NUMA node numbers ("0" or "0,1"))",
                              s->key, s->value));
      continue;
    }
    for (const VmDevice& v : ctx.devices()) {
      const auto index = host_device(ctx, v);
      if (!index) continue;
      const auto node = host.at(*index).numa_node;
      if (!node || nodes->count(*node) != 0) continue;
      sink.report(kTOPO011, s->value_span,
                  fmt::format("{} is on NUMA node {}, but {} = \"{}\" holds the VM's {} to node{} "
                              "{}: its DMA crosses the socket interconnect",
                              v.label, *node, s->key, s->value,
                              key == "numa.nodeAffinity" ? "vCPUs and memory" : "memory",
                              nodes->size() == 1 ? "" : "s", fmt::join(*nodes, ",")));
    }
  }
}

}  // namespace topo011

extern const Check kTOPO011{
    .id = "TOPO011",
    .name = "numa-affinity-away-from-devices",
    .severity = Severity::warning,
    .summary = "NUMA affinity that holds the VM on other nodes than its passthrough devices",
    .doc = topo011::kDoc,
    .check = &topo011::check,
    .needs_host = true,
};

}  // namespace vmxkit::checks
