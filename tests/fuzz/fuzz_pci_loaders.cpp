// SPDX-License-Identifier: Apache-2.0
// Host-input fuzzer for pci::load_text (lspci -vvv / -tv, esxcli, numactl, vSphere HostSystem
// properties XML; format detected): any bytes either load, finalize, analyze and render, or
// throw vmxkit::Error; no crash, leak, sanitizer report or other exception.
#include <cstdint>
#include <string>
#include <string_view>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/topology_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    vmxkit::pci::Host host;
    vmxkit::pci::load_text(host, text, "fuzz");
    host.finalize();
    const vmxkit::pci::Topology topo = vmxkit::pci::analyze(host, {});
    const std::string rendered = vmxkit::report::render_topology_text(host, topo);
    (void)rendered;
    for (std::size_t i = 0; i < host.devices().size(); ++i) (void)host.describe(i);
    for (const auto& warning : host.warnings()) (void)warning.to_string();
  } catch (const vmxkit::Error&) {
  }
  return 0;
}
