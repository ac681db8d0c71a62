// SPDX-License-Identifier: Apache-2.0
// The facade's guest side (vmxkit/vmxkit.h): nccl_topo() over analysis/nccl_topo.h and the
// guest captures' loaders.
#include <string>
#include <utility>

#include "vmxkit/analysis/nccl_topo.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/model/guest.h"
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

}  // namespace vmxkit
