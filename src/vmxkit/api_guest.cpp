// SPDX-License-Identifier: Apache-2.0
// The facade's guest side (vmxkit/vmxkit.h): nccl_topo() over analysis/nccl_topo.h, and
// check_guest() over the guest checks (checks/guest_context.h) with their report
// (report/guest_check.h); both over the guest captures' loaders.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/guest.h"
#include "vmxkit/report/guest_check.h"
#include "vmxkit/report/nccl_topo_xml.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

namespace {

std::string guest_source_bytes(const DocumentSource& source) {
  return source.bytes ? *source.bytes : read_file(source.path);
}

// The guest's captures, each read and loaded in turn: the first that fails is the one named.
void load_guest_sources(guest::Guest& g, const std::vector<DocumentSource>& sources) {
  for (const DocumentSource& s : sources) guest::load_text(g, guest_source_bytes(s), s.path);
  g.finalize();
}

}  // namespace

NcclTopoFile nccl_topo(const Host& host, const VmxDocument& vm,
                       const std::vector<DocumentSource>& guest,
                       const std::vector<std::string>& maps) {
  const vmx::Document doc = vmx::Document::parse(std::string(vm.bytes()), vm.path());
  guest::Guest g;
  load_guest_sources(g, guest);
  guest::NcclTopoOptions options;
  options.maps = maps;
  guest::NcclTopo topo = guest::build_nccl_topo(detail::internal_host(host), doc, g, options);
  return NcclTopoFile{guest::nccl_topo_xml(topo), std::move(topo.notes)};
}

// --- guest checks

// The guest, the NCCL topologies the checks read beside it, the context over them (which holds
// references to them: the Impl is made in place and never moves) and the findings.
struct GuestCheck::Impl {
  guest::Guest guest;
  std::optional<guest::NcclTopoInput> topo;
  std::optional<guest::NcclTopoInput> dump;
  std::optional<checks::GuestContext> context;
  std::vector<checks::Finding> findings;
  std::vector<CheckFinding> public_findings;
};

const std::vector<CheckFinding>& GuestCheck::findings() const { return impl_->public_findings; }

bool GuestCheck::ready() const { return report::guest_ready(impl_->findings); }

GuestCheck check_guest(const std::vector<DocumentSource>& captures,
                       const GuestCheckOptions& options) {
  auto impl = std::make_shared<GuestCheck::Impl>();
  load_guest_sources(impl->guest, captures);
  if (options.nccl_topo) {
    const DocumentSource& file = *options.nccl_topo;
    impl->topo = guest::NcclTopoInput{
        file.path, guest::read_nccl_topo_xml(guest_source_bytes(file), file.path)};
  }
  // The NCCL_TOPO_DUMP_FILE among the captures, read.
  if (const auto& dump = impl->guest.nccl_topo_dump()) {
    impl->dump = guest::NcclTopoInput{dump->where.path,
                                      guest::read_nccl_topo_xml(dump->text, dump->where.path)};
  }
  impl->context.emplace(impl->guest, impl->topo ? &*impl->topo : nullptr,
                        impl->dump ? &*impl->dump : nullptr);
  impl->findings = checks::check_guest(*impl->context);
  for (checks::Finding f : impl->findings) {
    impl->public_findings.push_back(detail::to_check_finding(std::move(f)));
  }
  GuestCheck out;
  out.impl_ = std::move(impl);
  return out;
}

std::string render_guest_check(const GuestCheck& check, std::string_view format) {
  const GuestCheck::Impl& c = *check.impl_;
  std::ostringstream out;
  if (format == "text") {
    report::write_guest_check_text(out, *c.context, c.findings);
  } else if (format == "json") {
    report::write_guest_check_json(out, *c.context, c.findings);
  } else if (format == "sarif") {
    report::write_guest_check_sarif(out, c.findings);
  } else {
    throw Error(fmt::format("guest-check: no format '{}' (text, json or sarif)", format));
  }
  return std::move(out).str();
}

}  // namespace vmxkit
