// SPDX-License-Identifier: Apache-2.0
// The facade's host checks (vmxkit/vmxkit.h): check_host() over checks/host_context.h, its
// findings and the host's vGPU types as public values.
#include <utility>

#include "vmxkit/analysis/readiness.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/checks/host_context.h"
#include "vmxkit/formats/host/cmdline.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

namespace {

HostKind public_host_kind(pci::HostKind kind) {
  switch (kind) {
    case pci::HostKind::esxi:
      return HostKind::esxi;
    case pci::HostKind::kvm:
      return HostKind::kvm;
    case pci::HostKind::bare_metal:
      return HostKind::bare_metal;
    case pci::HostKind::unknown:
      break;
  }
  return HostKind::unknown;
}

pci::HostKind internal_host_kind(HostKind kind) {
  switch (kind) {
    case HostKind::esxi:
      return pci::HostKind::esxi;
    case HostKind::kvm:
      return pci::HostKind::kvm;
    case HostKind::bare_metal:
      return pci::HostKind::bare_metal;
    case HostKind::unknown:
      break;
  }
  return pci::HostKind::unknown;
}

std::optional<HostVgpuTypes> public_vgpu_types(const pci::HostVgpuTypes& types) {
  if (!types.known) return std::nullopt;
  HostVgpuTypes out{types.host_name, {}};
  for (const pci::VgpuOffer& v : types.offered) {
    out.offered.push_back(
        VgpuTypeOffer{v.profile, v.disk_snapshot, v.memory_snapshot, v.suspend, v.migrate});
  }
  return out;
}

}  // namespace

CheckFinding detail::to_check_finding(checks::Finding&& f) {
  return CheckFinding{f.check->id,
                      f.check->name,
                      f.severity,
                      std::move(f.subject),
                      std::move(f.message),
                      std::move(f.fix),
                      std::move(f.where.path),
                      f.where.line};
}

std::string_view to_string(HostKind kind) { return pci::to_string(internal_host_kind(kind)); }

std::optional<HostKind> parse_host_kind(std::string_view text) {
  const std::optional<pci::HostKind> kind = pci::parse_host_kind(text);
  if (!kind) return std::nullopt;
  return public_host_kind(*kind);
}

HostCheckReport check_host(const Host& host, const HostCheckOptions& options) {
  const pci::Host& h = detail::internal_host(host);
  std::optional<pci::KernelCmdline> cmdline;
  if (options.cmdline) {
    cmdline = pci::parse_kernel_cmdline(*options.cmdline, options.cmdline_name);
  }
  const pci::HostKind kind = internal_host_kind(options.kind);
  HostCheckReport report;
  for (checks::Finding& f : checks::check_host(h, cmdline, kind)) {
    report.findings.push_back(detail::to_check_finding(std::move(f)));
  }
  report.kind =
      public_host_kind(kind == pci::HostKind::unknown ? pci::detect_host_kind(h, cmdline) : kind);
  report.vgpu_types = public_vgpu_types(h.vgpu_types());
  return report;
}

}  // namespace vmxkit
