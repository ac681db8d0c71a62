// SPDX-License-Identifier: Apache-2.0
// The public facade (vmxkit/vmxkit.h) over the modules: conversions between its value types and
// the internal ones, and the chain the command line used to assemble by hand.
#include <fmt/format.h>

#include <iterator>
#include <mutex>
#include <utility>

#include "vmxkit/analysis/mmio.h"
#include "vmxkit/analysis/plan.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/checks/mmio_lines.h"
#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/checks/path_detail.h"
#include "vmxkit/core/io.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/pair_reason.h"
#include "vmxkit/report/plan_explanation.h"
#include "vmxkit/report/plan_render.h"
#include "vmxkit/vmxkit.h"

#ifndef VMXKIT_VERSION
#error "VMXKIT_VERSION must be defined by the build (CMake's project(VERSION))"
#endif

namespace vmxkit {

struct Catalog::Impl {
  pci::Catalog catalog;
};

struct Host::Impl {
  Impl(pci::Host h, Catalog c) : host(std::move(h)), catalog(std::move(c)) {}
  pci::Host host;
  Catalog catalog;
  std::vector<std::string> warnings;
  // The public devices, parallel to host.devices(), made when first asked for: a command that
  // only hands the host on (topo, generate) never does, and for 80,000 functions they were 8 MB
  // and a described address each.
  mutable std::once_flag devices_made;
  mutable std::vector<HostDevice> devices;

  const std::vector<HostDevice>& public_devices() const;
};

struct Plan::Impl {
  std::optional<Host> host;  // keeps the devices and their catalogue entries alive
  Catalog catalog;           // the same without a host
  generate::Plan plan;
  std::vector<PlannedDevice> gpus;
  std::vector<PlannedDevice> nics;
  std::vector<PlannedPair> pairs;
  MmioSize mmio;
  std::optional<Input> base;
};

namespace {

// --- enum conversions: the facade's enums are its own, so the internal ones may grow.

DeviceRole from_internal(pci::Role r) {
  switch (r) {
    case pci::Role::other:
      return DeviceRole::other;
    case pci::Role::bridge:
      return DeviceRole::bridge;
    case pci::Role::gpu:
      return DeviceRole::gpu;
    case pci::Role::rdma_nic:
      return DeviceRole::rdma_nic;
    case pci::Role::nic_vf:
      return DeviceRole::nic_vf;
    case pci::Role::nic:
      return DeviceRole::nic;
  }
  return DeviceRole::other;
}

pci::Role to_internal(DeviceRole r) {
  switch (r) {
    case DeviceRole::other:
      return pci::Role::other;
    case DeviceRole::bridge:
      return pci::Role::bridge;
    case DeviceRole::gpu:
      return pci::Role::gpu;
    case DeviceRole::rdma_nic:
      return pci::Role::rdma_nic;
    case DeviceRole::nic_vf:
      return pci::Role::nic_vf;
    case DeviceRole::nic:
      return pci::Role::nic;
  }
  return pci::Role::other;
}

PathClass from_internal(pci::PathClass c) {
  switch (c) {
    case pci::PathClass::self:
      return PathClass::self;
    case pci::PathClass::pix:
      return PathClass::pix;
    case pci::PathClass::pxb:
      return PathClass::pxb;
    case pci::PathClass::phb:
      return PathClass::phb;
    case pci::PathClass::node:
      return PathClass::node;
    case pci::PathClass::sys:
      return PathClass::sys;
    case pci::PathClass::unknown:
      return PathClass::unknown;
  }
  return PathClass::unknown;
}

pci::PathClass to_internal(PathClass c) {
  switch (c) {
    case PathClass::self:
      return pci::PathClass::self;
    case PathClass::pix:
      return pci::PathClass::pix;
    case PathClass::pxb:
      return pci::PathClass::pxb;
    case PathClass::phb:
      return pci::PathClass::phb;
    case PathClass::node:
      return pci::PathClass::node;
    case PathClass::sys:
      return pci::PathClass::sys;
    case PathClass::unknown:
      return pci::PathClass::unknown;
  }
  return pci::PathClass::unknown;
}

NvlinkSupport from_internal(pci::NvlinkSupport n) {
  switch (n) {
    case pci::NvlinkSupport::unknown:
      return NvlinkSupport::unknown;
    case pci::NvlinkSupport::no:
      return NvlinkSupport::no;
    case pci::NvlinkSupport::bridge:
      return NvlinkSupport::bridge;
    case pci::NvlinkSupport::baseboard:
      return NvlinkSupport::baseboard;
  }
  return NvlinkSupport::unknown;
}

pci::NvlinkSupport to_internal(NvlinkSupport n) {
  switch (n) {
    case NvlinkSupport::unknown:
      return pci::NvlinkSupport::unknown;
    case NvlinkSupport::no:
      return pci::NvlinkSupport::no;
    case NvlinkSupport::bridge:
      return pci::NvlinkSupport::bridge;
    case NvlinkSupport::baseboard:
      return pci::NvlinkSupport::baseboard;
  }
  return pci::NvlinkSupport::unknown;
}

Verdict from_internal(pci::Verdict v) {
  switch (v) {
    case pci::Verdict::ok:
      return Verdict::ok;
    case pci::Verdict::degraded:
      return Verdict::degraded;
    case pci::Verdict::unsupported:
      return Verdict::unsupported;
  }
  return Verdict::unsupported;
}

pci::Verdict to_internal(Verdict v) {
  switch (v) {
    case Verdict::ok:
      return pci::Verdict::ok;
    case Verdict::degraded:
      return pci::Verdict::degraded;
    case Verdict::unsupported:
      return pci::Verdict::unsupported;
  }
  return pci::Verdict::unsupported;
}

// --- value conversions

CatalogModel to_model(const pci::CatalogEntry& e) {
  CatalogModel m;
  m.vendor_id = e.vendor_id;
  m.device_id = e.device_id;
  m.alias = e.alias;
  m.model = e.model;
  m.role = from_internal(e.role);
  m.framebuffer_gb = e.framebuffer_gb;
  m.nvlink = from_internal(e.nvlink);
  m.nvlink_bridge_gpus = e.nvlink_bridge_gpus;
  m.origin = e.origin;
  return m;
}

PairReport to_report(const pci::Host& host, const pci::PairVerdict& v) {
  PairReport r;
  r.a = host.at(v.a).bdf;
  r.b = host.at(v.b).bdf;
  r.path = from_internal(v.path.cls);
  r.path_detail = checks::path_detail(host, v.path);
  r.verdict = from_internal(v.verdict);
  for (const pci::Reason& reason : v.reasons) {
    r.reasons.push_back(PairReason{from_internal(reason.effect),
                                   report::reason_text(host, v, reason),
                                   report::reason_fix(host, v, reason)});
  }
  return r;
}

MmioSize to_mmio(const pci::MmioResult& m) {
  MmioSize out;
  out.size_gb = m.size_gb;
  out.kb_gb = m.kb_gb;
  out.total_bytes = m.total_bytes;
  out.estimated = m.estimated;
  for (const pci::MmioBar& b : m.bars) {
    out.bars.push_back(MmioBar{b.device, b.bar, b.size, b.offset, b.source});
  }
  out.lines = checks::mmio_lines(m);
  out.unknown = m.unknown;
  out.below_4g = m.below_4g;
  out.unknown_gpus = m.unknown_gpus;
  for (const pci::MmioUnassigned& u : m.unassigned) {
    out.unassigned.push_back(checks::unassigned_text(u));
  }
  return out;
}

PlannedDevice to_planned(const generate::Choice& c) {
  PlannedDevice d;
  d.address = c.address;
  d.vendor_id = c.vendor_id;
  d.device_id = c.device_id;
  d.sriov_vf = c.sriov_vf;
  d.label = c.label;
  if (c.model != nullptr) d.model = c.model->model;
  return d;
}

const Catalog& builtin_catalog() {
  static const Catalog catalog = load_catalog({});
  return catalog;
}

}  // namespace

struct detail::Access {
  static const pci::Catalog& catalog(const Catalog& c) { return c.impl().catalog; }
  static Catalog make_catalog(pci::Catalog c) {
    Catalog out(nullptr);
    out.impl_ = std::make_shared<const Catalog::Impl>(Catalog::Impl{std::move(c)});
    return out;
  }
  static const pci::Host& host(const Host& h) { return h.impl_->host; }

  static Host make_host(pci::Host h, Catalog catalog) {
    auto impl = std::make_shared<Host::Impl>(std::move(h), std::move(catalog));
    for (const pci::HostWarning& w : impl->host.warnings()) {
      impl->warnings.push_back(w.to_string());
    }
    Host result;
    result.impl_ = std::move(impl);
    return result;
  }

  // The request's group among those its ConfigTarget offers.
  static vsphere::VendorDeviceGroup find_device_group(const PlanRequest& request) {
    auto groups = vsphere::read_vendor_device_groups(
        SourceFile(request.config_target_name, request.config_target));
    std::vector<std::string> names;
    for (vsphere::VendorDeviceGroup& g : groups) {
      if (g.device_group_name == request.device_group) return std::move(g);
      names.push_back(vsphere::quote_for_message(g.device_group_name));
    }
    throw Error(fmt::format("--device-group {}: {} offers no such group ({})",
                            vsphere::quote_for_message(request.device_group),
                            request.config_target_name,
                            names.empty() ? std::string("it offers none")
                                          : fmt::format("it offers {}", fmt::join(names, ", "))));
  }

  static Plan make_plan(const Host* host, const PlanRequest& request) {
    if (request.base && request.base->format != "vmx") {
      throw Error(request.base->path, fmt::format("a plan merges into a .vmx only; this file is {}",
                                                  request.base->format));
    }
    generate::Request r;
    r.gpus = request.gpus;
    r.gpu_count = request.gpu_count;
    r.nics = request.nics;
    if (request.sriov && r.nics.empty()) r.nics = {"auto"};
    r.vgpu = request.vgpu;
    r.sriov = request.sriov;
    r.network = request.network;
    if (request.memory_mb && (*request.memory_mb == 0 || *request.memory_mb > kMaxMemoryMb)) {
      throw Error(
          fmt::format("guest memory {} MB: must be 1 to {} MB (24560 GB, the vSphere "
                      "maximum for a VM)",
                      *request.memory_mb, kMaxMemoryMb));
    }
    r.memory_mb = request.memory_mb;
    // The base's memory size is what gets reserved unless the request says otherwise.
    if (!r.memory_mb && request.base) {
      if (const auto mem = request.base->config().memory_mb(); mem && *mem > 0) {
        r.memory_mb = static_cast<std::uint64_t>(*mem);
      }
    }
    r.system_id = request.system_id;
    r.allow_degraded = request.allow_degraded;
    r.host_label = request.host_label;
    if (!request.device_group.empty()) {
      if (request.config_target.empty()) {
        throw Error(
            fmt::format("--device-group {}: needs the host's QueryConfigTarget answer "
                        "(--config-target FILE, or --server with --esx-host)",
                        vsphere::quote_for_message(request.device_group)));
      }
      r.device_group = find_device_group(request);
    }

    auto impl = std::make_shared<Plan::Impl>();
    if (host != nullptr) impl->host = *host;
    impl->catalog = host != nullptr ? host->catalog() : request.catalog;
    const pci::Host* h = impl->host ? &impl->host->impl_->host : nullptr;
    try {
      impl->plan = generate::make_plan(r, h, h != nullptr ? h->catalog() : catalog(impl->catalog));
    } catch (const generate::NotReadyError& e) {
      throw Error(report::not_ready_error_text(e));
    }

    // A plan that cannot do peer-to-peer DMA is refused; one that can gets its comment block in
    // the report layer's words.
    generate::Plan& planned = impl->plan;
    if (!planned.refusals.empty()) throw Error(report::plan_refusal_text(h, planned));
    planned.explanation = report::plan_explanation(h, planned);
    const generate::Plan& p = impl->plan;
    for (const generate::Choice& c : p.gpus) impl->gpus.push_back(to_planned(c));
    for (const generate::Choice& c : p.nics) impl->nics.push_back(to_planned(c));
    for (const generate::Pairing& pair : p.pairs) {
      PlannedPair out{pair.gpu, pair.peer, pair.peer_is_gpu, std::nullopt};
      if (pair.verdict && h != nullptr) out.verdict = to_report(*h, *pair.verdict);
      impl->pairs.push_back(std::move(out));
    }
    impl->mmio = to_mmio(p.mmio);
    impl->base = request.base;
    Plan result;
    result.impl_ = std::move(impl);
    return result;
  }

  static const Plan::Impl& plan(const Plan& p) { return *p.impl_; }
};

// --- version

std::string_view version() { return VMXKIT_VERSION; }

// --- inputs

std::vector<FormatInfo> format_table() {
  std::vector<FormatInfo> out;
  for (const vmxkit::formats::Format& f : vmxkit::formats::all()) {
    const auto& c = f.carries;
    out.push_back(FormatInfo{std::string(f.name), std::string(to_string(f.subject)),
                             std::string(f.summary), f.input, f.output, c.host_address,
                             c.dynamic_directpath, c.vgpu, c.sriov, c.device_groups, c.dvx});
  }
  return out;
}

std::optional<FormatInfo> find_format(std::string_view name) {
  for (FormatInfo& f : format_table()) {
    if (f.name == name) return std::move(f);
  }
  return std::nullopt;
}

const VmConfig& Input::config() const {
  if (vms.size() == 1) return vms.front().config;
  if (vms.empty()) throw Error(path, "holds no virtual system");
  std::string names;
  for (const InputVm& v : vms) names += (names.empty() ? "" : ", ") + v.name;
  throw Error(path, fmt::format("holds {} virtual systems ({}); pick one from Input::vms",
                                vms.size(), names));
}

Input load(std::string path, std::string bytes) {
  vsphere::Loaded loaded = vsphere::load(std::move(path), std::move(bytes));
  Input in;
  in.path = loaded.source.path();
  in.bytes = std::string(loaded.source.bytes());
  in.format = std::string(loaded.format->name);
  // The loader does not repeat a .vmx's malformed lines; the document reports them.
  in.diagnostics =
      in.format == "vmx"
          ? checks::line_diagnostics(vmx::Document::parse(in.bytes, in.path).problems())
          : checks::schema_diagnostics(loaded.schema_problems);
  for (vsphere::LoadedVm& vm : loaded.vms) {
    for (Diagnostic& d : checks::unread_diagnostics(vm.unread)) {
      if (loaded.vms.size() > 1) d.message = vm.name + ": " + d.message;
      in.diagnostics.push_back(std::move(d));
    }
    in.vms.push_back(InputVm{std::move(vm.name), std::move(vm.moref), std::move(vm.config)});
  }
  in.vm = std::move(loaded.vm);
  in.lines = LineIndex(in.bytes);
  return in;
}

Input load_file(const std::string& path) { return load(path, read_file(path)); }

// --- catalogue

std::string_view to_string(DeviceRole role) { return pci::to_string(to_internal(role)); }

std::string_view to_string(NvlinkSupport nvlink) { return pci::to_string(to_internal(nvlink)); }

std::string CatalogModel::id() const { return fmt::format("{:04x}:{:04x}", vendor_id, device_id); }

// The built-in catalogue is parsed when first read, not when a Catalog is made: the command line
// makes one for `generate`'s options on every run, whatever the command.
Catalog::Catalog() = default;

const Catalog::Impl& Catalog::impl() const { return impl_ ? *impl_ : *builtin_catalog().impl_; }

std::vector<CatalogModel> Catalog::models() const {
  std::vector<CatalogModel> out;
  for (const pci::CatalogEntry& e : impl().catalog.entries()) out.push_back(to_model(e));
  return out;
}

std::optional<CatalogModel> Catalog::find(std::string_view alias_or_id) const {
  const pci::CatalogEntry* e = impl().catalog.find_alias(alias_or_id);
  if (e == nullptr) return std::nullopt;
  return to_model(*e);
}

Catalog load_catalog(const std::vector<std::string>& files) {
  return detail::Access::make_catalog(pci::catalog_with(files));
}

// --- hosts

HostSource HostSource::from_text(std::string name, std::string text) {
  HostSource s(std::move(name));
  s.text = std::move(text);
  return s;
}

const std::vector<HostDevice>& Host::Impl::public_devices() const {
  std::call_once(devices_made, [this] {
    devices.reserve(host.devices().size());
    for (std::size_t i = 0; i < host.devices().size(); ++i) {
      const pci::Device& d = host.at(i);
      HostDevice out;
      out.address = d.bdf;
      out.vendor_id = d.vendor_id;
      out.device_id = d.device_id;
      out.role = from_internal(d.role);
      out.description = host.describe(i);
      if (d.model != nullptr) out.model = d.model->model;
      out.numa_node = d.numa_node;
      devices.push_back(std::move(out));
    }
  });
  return devices;
}

const std::vector<HostDevice>& Host::devices() const { return impl_->public_devices(); }

const HostDevice* Host::find(const Bdf& address) const {
  const auto i = impl_->host.index_of(address);
  return i ? &impl_->public_devices()[*i] : nullptr;
}

const std::vector<std::string>& Host::warnings() const { return impl_->warnings; }

Catalog Host::catalog() const { return impl_->catalog; }

Host detail::wrap_host(pci::Host host, const Catalog& catalog) {
  return detail::Access::make_host(std::move(host), catalog);
}

const pci::Host& detail::internal_host(const Host& host) { return detail::Access::host(host); }

checks::LintOptions detail::internal_lint_options(const LintOptions& o) {
  checks::LintOptions out;
  if (o.host != nullptr) out.host = &Access::host(*o.host);
  if (o.catalog != nullptr) {
    out.catalog = &Access::catalog(*o.catalog);
  } else if (o.host != nullptr) {
    out.catalog = &out.host->catalog();
  }
  return out;
}

const pci::Catalog& detail::internal_catalog(const Catalog& catalog) {
  return detail::Access::catalog(catalog);
}

Host load_host(const std::vector<HostSource>& sources, const Catalog& catalog) {
  pci::Host host(detail::Access::catalog(catalog));
  for (const HostSource& s : sources) {
    if (s.text) {
      pci::load_text(host, *s.text, s.path);
    } else {
      pci::load_source(host, s.path);
    }
  }
  host.finalize();
  return detail::Access::make_host(std::move(host), catalog);
}

// --- topology

std::string_view to_string(PathClass path) { return pci::to_string(to_internal(path)); }

std::string_view to_string(Verdict verdict) { return pci::to_string(to_internal(verdict)); }

Topology analyze(const Host& host, const TopologyOptions& options) {
  const pci::Host& h = detail::Access::host(host);
  pci::AnalysisOptions o;
  o.iommu_translating = options.iommu_translating;
  o.all_nics = options.all_nics;
  o.full_matrix = options.full_matrix;
  const pci::Topology t = pci::analyze(h, o);
  Topology out;
  for (const std::size_t i : t.gpus) out.gpus.push_back(h.at(i).bdf);
  for (const std::size_t i : t.nics) out.nics.push_back(h.at(i).bdf);
  for (const auto& row : t.matrix) {
    std::vector<PathClass>& r = out.matrix.emplace_back();
    for (const pci::PathClass c : row) r.push_back(from_internal(c));
  }
  for (const pci::PairVerdict& v : t.pairs) out.pairs.push_back(to_report(h, v));
  out.best_nic = t.best_nic;
  return out;
}

// --- MMIO

MmioSize size_mmio(const Host* host, const std::vector<std::string>& devices,
                   const Catalog& catalog) {
  const pci::Host* h = host != nullptr ? &detail::Access::host(*host) : nullptr;
  const pci::Catalog& models = h != nullptr ? h->catalog() : detail::Access::catalog(catalog);
  std::vector<pci::MmioDevice> list;
  for (const std::string& spec : devices) {
    if (const auto bdf = parse_bdf(spec)) {
      if (h == nullptr) throw Error(fmt::format("{}: an address needs the host it is on", spec));
      const auto i = h->index_of(*bdf);
      if (!i) throw Error(fmt::format("{}: no such device on the host", bdf->to_string()));
      list.push_back(pci::MmioDevice{&h->at(*i), h->at(*i).model, h->describe(*i)});
      continue;
    }
    const pci::CatalogEntry* e = models.find_alias(spec);
    if (e == nullptr) {
      throw Error(
          fmt::format("{}: not an address (0000:3b:00.0), a catalogue id (10de:2331) or a "
                      "model alias (h100-pcie)",
                      spec));
    }
    list.push_back(pci::MmioDevice{nullptr, e, fmt::format("{} ({})", e->id_string(), e->model)});
  }
  return to_mmio(pci::size_64bit_mmio(list));
}

// --- lint and fix

LintReport detail::to_lint_report(checks::LintResult&& r) {
  LintReport out;
  if (r.format != nullptr) out.format = std::string(r.format->name);
  out.path = std::move(r.path);
  out.bytes = std::move(r.bytes);
  out.diagnostics = std::move(r.diagnostics);
  out.lines = std::move(r.lines);
  return out;
}

std::size_t LintReport::count_at_least(Severity threshold) const {
  std::size_t n = 0;
  for (const Diagnostic& d : diagnostics) {
    if (static_cast<int>(d.severity) <= static_cast<int>(threshold)) ++n;
  }
  return n;
}

LintReport lint(const Input& input, const LintOptions& options) {
  return detail::to_lint_report(
      checks::lint(input.path, input.bytes, detail::internal_lint_options(options)));
}

FixResult fix(const Input& input, const FixOptions& options) {
  return fix(input.path, input.bytes, options);  // api_lint.cpp
}

// --- the rule catalogue

std::string_view to_string(RuleKind kind) {
  switch (kind) {
    case RuleKind::lint:
      return checks::to_string(checks::Kind::lint);
    case RuleKind::host:
      return checks::to_string(checks::Kind::host);
    case RuleKind::guest:
      return checks::to_string(checks::Kind::guest);
  }
  return "lint";
}

std::string_view to_string(RuleFix fix) {
  switch (fix) {
    case RuleFix::none:
      return checks::to_string(checks::FixAvailability::none);
    case RuleFix::sometimes:
      return checks::to_string(checks::FixAvailability::sometimes);
    case RuleFix::always:
      return checks::to_string(checks::FixAvailability::always);
  }
  return "none";
}

namespace {

RuleInfo to_rule(const checks::Check& c) {
  RuleInfo r;
  r.id = c.id;
  r.name = c.name;
  r.kind = c.kind == checks::Kind::host    ? RuleKind::host
           : c.kind == checks::Kind::guest ? RuleKind::guest
                                           : RuleKind::lint;
  r.severity = c.severity;
  r.summary = c.summary;
  r.doc = c.doc;
  r.needs_host = c.needs_host;
  r.removed = c.status == checks::CheckStatus::removed;
  r.fix = c.fix == checks::FixAvailability::always      ? RuleFix::always
          : c.fix == checks::FixAvailability::sometimes ? RuleFix::sometimes
                                                        : RuleFix::none;
  r.fix_safety = c.fix_safety;
  return r;
}

}  // namespace

std::vector<RuleInfo> rules() {
  std::vector<RuleInfo> out;
  for (const checks::Check* c : checks::all_checks()) {
    if (c->status != checks::CheckStatus::removed) out.push_back(to_rule(*c));
  }
  return out;
}

std::vector<RuleInfo> all_rules() {
  std::vector<RuleInfo> out;
  for (const checks::Check* c : checks::all_checks()) out.push_back(to_rule(*c));
  return out;
}

std::optional<RuleInfo> find_rule(std::string_view id) {
  const checks::Check* c = checks::find_check(id);
  if (c == nullptr) return std::nullopt;
  return to_rule(*c);
}

// --- plan

const std::vector<PlannedDevice>& Plan::gpus() const { return impl_->gpus; }
const std::vector<PlannedDevice>& Plan::nics() const { return impl_->nics; }
const std::vector<PlannedPair>& Plan::pairs() const { return impl_->pairs; }
const std::optional<std::string>& Plan::vgpu() const { return impl_->plan.vgpu; }
std::uint64_t Plan::memory_mb() const { return impl_->plan.memory_mb; }
const MmioSize& Plan::mmio() const { return impl_->mmio; }
bool Plan::needs_64bit_mmio() const { return impl_->plan.needs_64bit_mmio; }
bool Plan::p2p() const { return impl_->plan.p2p; }
const std::vector<std::string>& Plan::explanation() const { return impl_->plan.explanation; }
const std::optional<Input>& Plan::base() const { return impl_->base; }

Plan plan(const Host* host, const PlanRequest& request) {
  return detail::Access::make_plan(host, request);
}

// --- render

std::string render(const Plan& plan, std::string_view format, const RenderOptions& options) {
  const auto& p = detail::Access::plan(plan);
  std::optional<vmx::Document> base;
  if (p.base) base = vmx::Document::parse(p.base->bytes, p.base->path);
  return generate::render_plan(p.plan, base ? &*base : nullptr,
                               vmxkit::formats::output_format(format),
                               {.template_name = options.template_name, .vm = options.vm});
}

std::string render(const VmConfig& config, std::string_view format, const RenderOptions& options) {
  vsphere::RenderOptions o;
  o.vm = options.vm;
  const std::vector<std::string> no_comments;
  return vmxkit::formats::output_format(format).write({config, no_comments, o});
}

std::vector<TemplateInfo> templates() {
  std::vector<TemplateInfo> out;
  for (const generate::Template& t : generate::builtin_templates()) {
    out.push_back(TemplateInfo{t.name, t.description()});
  }
  return out;
}

}  // namespace vmxkit
