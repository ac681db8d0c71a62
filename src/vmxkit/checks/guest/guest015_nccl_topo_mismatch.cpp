// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <string>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/guest_context.h"

namespace vmxkit::checks {
namespace guest015 {

constexpr std::string_view kDoc = R"md(
## What it does
Checks the NCCL topology file given with `--nccl-topo` against the guest, and flags:
- a GPU or NIC bus id of the file that is not the guest's (the guest's devices were renumbered
  by another VM hardware version or an added device, or the file was written for another VM, or
  spelled otherwise). The finding names the file's id, its line, where the guest has a device of
  that vendor:device id now, and the pairs whose path type changes;
- a guest GPU or NIC the file does not have;
- a `<pci>` with elements below it and no `class`.

Where a capture shows an `NCCL_TOPO_FILE` (NCCL's log, `env`, a command line) and the file is
not given, it is reported as not checked (GUEST012).

## Why is this bad?
NCCL looks each device up in the file by its bus id as a string (`ncclTopoGetPciNode` ->
`xmlFindTagKv`, `src/graph/xml.h`): a GPU's as CUDA reports it, lower case (`int64ToBusId`,
`src/misc/utils.cc`), a NIC's as its IB plugin forms it, function and VF device number 0
(`ncclIbGetPciPath`, `src/transport/net_ib/init.cc`). A device it does not find it places by
the guest's own sysfs (`ncclTopoGetXmlFromSys`): behind a VMware root port, straight under the
`<cpu>` of its guest NUMA node, `-1` when the guest kernel reports none. That is PHB to the
file's devices when the node is one of the file's and SYS when not, GPUDirect RDMA off either
way, and NCCL logs it at INFO only; the file's copy of the device is dropped (`ncclTopoTrimXml`).
A `<pci>` without a class stops NCCL's init ("Attribute class of node pci not found",
`ncclTopoAddPci`). The check computes the tree NCCL builds from the file and the guest and
compares each pair's path type with the file's own (the host's).

## Example
The file has the NIC as `busid="0000:0d:00.0"`, the guest has it on 0c:00.0:
`0000:0d:00.0: warning: the topology file's NIC 0000:0d:00.0 (15b3:1021) is not in this guest;
the guest's 15b3:1021 is 0000:0c:00.0: NCCL finds no element of that bus id ...; GPU
0000:04:00.0 - NIC 0000:0c:00.0: SYS where the file (the host) has PIX, ...`

## Fix safety
No automatic fix. Write the file again from this guest's capture,
`vmxkit nccl-topo --host HOST --vm VM.vmx --guest GUEST... -o FILE`, and again after any change
to the VM's devices.

## References
- NCCL `src/graph/topo.cc` (`ncclTopoGetSystem`, `ncclTopoAddPci`), `src/graph/xml.cc`
  (`ncclTopoGetPciNode`, `ncclTopoGetXmlFromSys`, `ncclTopoFillNet`, `ncclTopoTrimXml`),
  `src/graph/xml.h` (`xmlFindTagKv`), `src/misc/utils.cc` (`int64ToBusId`),
  `src/transport/net_ib/init.cc` (`ncclIbGetPciPath`), NCCL 2.30.7 (github NVIDIA/nccl commit
  5067397c)
- The same outcomes (SYS with guest NUMA node -1, PHB with node 0) from NCCL's own code run on
  such a guest: docs/nccl-topo.md, "When the guest's bus ids are not the file's"
)md";

/// The pairs of `c` that involve the device, as text.
std::string changes_of(const guest::NcclTopoCheck& c, const std::string& busid) {
  std::string out;
  for (const guest::NcclPairChange& p : c.changed) {
    if (p.gpu != busid && p.nic != busid) continue;
    out += fmt::format("{}GPU {} - {} {}: {} where the file (the host) has {}",
                       out.empty() ? "; " : ", ", p.gpu, to_string(p.peer), p.nic,
                       to_string(p.in_guest), to_string(p.in_file));
  }
  return out;
}

std::string changes_of(const guest::NcclTopoCheck& c, const Bdf& b) {
  std::string out = changes_of(c, b.to_string());
  if (out.empty()) out = changes_of(c, guest::nccl_busid(b, guest::NcclNodeKind::nic));
  return out;
}

/// Reports what the check of one topology file found.
class Report {
 public:
  Report(const GuestContext& ctx, FindingSink& sink, const guest::NcclTopoCheck& c)
      : ctx_(ctx), sink_(sink), c_(c), path_(ctx.nccl_topo()->path) {
    fix_ = fmt::format(
        "write the file again from this guest's capture: `vmxkit nccl-topo --host HOST --vm "
        "VM.vmx --guest GUEST... -o {}` (its GPU and NIC bus ids are the guest's, as CUDA and "
        "the IB plugin report them)",
        path_);
  }

  void bridge_without_class(std::uint32_t line) {
    sink_.report(kGUEST015, path_,
                 "a <pci> with elements below it has no class attribute: NCCL's init fails "
                 "(\"Attribute class of node pci not found\", ncclTopoAddPci)",
                 "add class=\"0x060400\" to it, or write the file again with vmxkit nccl-topo",
                 FindingOrigin{path_, line});
  }

  void moved(const guest::NcclTopoMove& m) {
    std::string now;
    std::string changes;
    if (m.guest_bdf) {
      now = fmt::format("; the guest's {} is {}{}", m.id, m.guest_bdf->to_string(),
                        m.guest_busid != m.guest_bdf->to_string()
                            ? fmt::format(" ({} for NCCL)", m.guest_busid)
                            : std::string());
      changes = changes_of(c_, m.guest_busid);
    }
    sink_.report(
        kGUEST015, m.file_busid,
        fmt::format("the topology file's {} {}{} is not in this guest{}: NCCL finds no element "
                    "of that bus id (xmlFindTagKv compares the strings), falls back to the "
                    "guest's own tree for the device (a virtual root port: straight under the "
                    "CPU node of its guest NUMA node, SYS to the file's devices when that node "
                    "is not one of the file's) and says nothing{}",
                    to_string(m.kind), m.file_busid, m.id.empty() ? "" : " (" + m.id + ")", now,
                    changes),
        fix_, FindingOrigin{path_, m.line});
  }

  void not_in_file(const Bdf& b) {
    const auto i = ctx_.pci().index_of(b);
    sink_.report(kGUEST015, i ? ctx_.describe(*i) : b.to_string(),
                 fmt::format("not in the topology file {}: NCCL places it from the guest's own "
                             "tree (its virtual root port, straight under the CPU node of its "
                             "guest NUMA node){}",
                             path_, changes_of(c_, b)),
                 fix_, i ? ctx_.origin_of(*i) : FindingOrigin{});
  }

 private:
  const GuestContext& ctx_;
  FindingSink& sink_;
  const guest::NcclTopoCheck& c_;
  const std::string& path_;
  std::string fix_;
};

void check(const GuestContext& ctx, FindingSink& sink) {
  if (ctx.nccl_topo() == nullptr) {
    if (const auto& f = ctx.guest().nccl_topo_file()) {
      sink.not_checked(kGUEST015,
                       fmt::format("NCCL_TOPO_FILE={} ({})", f->value, f->where.to_string()),
                       fmt::format("`--nccl-topo {}`, the file itself", f->value));
    }
    return;
  }
  const guest::NcclTopoCheck c = guest::check_nccl_topo(ctx.nccl_topo()->tree, ctx.guest());
  Report report(ctx, sink, c);
  for (const std::uint32_t line : c.bridges_without_class) report.bridge_without_class(line);
  for (const guest::NcclTopoMove& m : c.moved) report.moved(m);
  for (const Bdf& b : c.not_in_file) report.not_in_file(b);
}

}  // namespace guest015

extern const Check kGUEST015{
    .id = "GUEST015",
    .name = "nccl-topo-mismatch",
    .kind = Kind::guest,
    .severity = Severity::warning,
    .summary =
        "the NCCL topology file's GPU and NIC bus ids are not the guest's, or its pairs "
        "come out otherwise in the guest: NCCL falls back to the guest's own tree for "
        "those devices",
    .doc = guest015::kDoc,
    .check_guest = &guest015::check,
};

}  // namespace vmxkit::checks
