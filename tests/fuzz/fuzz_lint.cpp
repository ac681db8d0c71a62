// SPDX-License-Identifier: Apache-2.0
// Lint-engine fuzzer: lint and fix any bytes against a host capture (so the TOPO rules run).
// A .vmx never makes lint throw; a vSphere document may only throw vmxkit::Error. Every
// position a diagnostic, note or fix carries is inside the file, each fix's edits are disjoint,
// and fixing (unsafe fixes included) never adds a malformed line.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "vmxkit/checks/engine.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text_edit.h"
#include "vmxkit/core/wide_encoding.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/model/host.h"

#define FUZZ_ASSERT(cond)      \
  do {                         \
    if (!(cond)) std::abort(); \
  } while (0)

namespace {

// One switch with an H100 and a ConnectX-7 (lspci -vvv), and ESXi ownership for a second GPU.
const char kHost[] =
    "0000:00:01.0 PCI bridge [0604]: Intel Corporation Device [8086:352a]\n"
    "\tBus: primary=00, secondary=01, subordinate=04, sec-latency=0\n"
    "\tCapabilities: [40] Express (v2) Root Port (Slot+), IntMsgNum 0\n"
    "\n"
    "0000:01:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030]\n"
    "\tBus: primary=01, secondary=02, subordinate=04, sec-latency=0\n"
    "\tCapabilities: [68] Express (v2) Upstream Port, IntMsgNum 0\n"
    "\n"
    "0000:02:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030]\n"
    "\tBus: primary=02, secondary=03, subordinate=03, sec-latency=0\n"
    "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), IntMsgNum 0\n"
    "\n"
    "0000:02:01.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030]\n"
    "\tBus: primary=02, secondary=04, subordinate=04, sec-latency=0\n"
    "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), IntMsgNum 0\n"
    "\n"
    "0000:03:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
    "\tNUMA node: 0\n"
    "\tRegion 0: Memory at 9e000000 (32-bit, non-prefetchable) [size=16M]\n"
    "\tRegion 1: Memory at 21000000000 (64-bit, prefetchable) [size=128G]\n"
    "\tRegion 3: Memory at 22000000000 (64-bit, prefetchable) [size=32M]\n"
    "\tCapabilities: [60] Express (v2) Endpoint, IntMsgNum 0\n"
    "\n"
    "0000:04:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] "
    "[15b3:1021]\n"
    "\tNUMA node: 0\n"
    "\tRegion 0: Memory at 23000000000 (64-bit, prefetchable) [size=32M]\n"
    "\tCapabilities: [60] Express (v2) Endpoint, IntMsgNum 0\n"
    "\tCapabilities: [1c0 v1] Address Translation Service (ATS)\n"
    "\t\tATSCtl:\tEnable+, Smallest Translation Unit: 00\n";
const char kEsxi[] =
    "0000:80:00.0\n   Vendor ID: 0x10de\n   Device ID: 0x2331\n   Device Class: 0x0302\n"
    "   Configured Owner: VMkernel\n   Current Owner: VMkernel\n   Passthru Capable: true\n"
    "   Parent Device: \n";

const vmxkit::pci::Host& host() {
  static const vmxkit::pci::Host h = [] {
    vmxkit::pci::Host loaded(vmxkit::pci::Catalog::builtin());
    vmxkit::pci::load_text(loaded, kHost, "host.txt");
    vmxkit::pci::load_text(loaded, kEsxi, "esx.txt");
    loaded.finalize();
    return loaded;
  }();
  return h;
}

std::size_t malformed(const vmxkit::checks::LintResult& r) {
  std::size_t n = 0;
  for (const vmxkit::Diagnostic& d : r.diagnostics) {
    n += d.rule_id == "VMX001" || d.rule_id == "VMX002" ? 1 : 0;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  vmxkit::checks::LintOptions options;
  options.host = &host();
  const bool vmx = vmxkit::formats::recognise_vm_input(input).name == "vmx";
  std::optional<vmxkit::checks::LintResult> linted;
  try {
    linted.emplace(vmxkit::checks::lint("fuzz.vmx", input, options));
  } catch (const vmxkit::Error&) {
    // A .vmx is linted whatever its bytes, unless it is UTF-16 or UTF-32 text, which every
    // reader refuses.
    FUZZ_ASSERT(!vmx || vmxkit::detect_wide_encoding(input) != vmxkit::WideEncoding::none);
    return 0;
  }
  for (const vmxkit::Diagnostic& d : linted->diagnostics) {
    FUZZ_ASSERT(d.begin <= d.end && d.end <= size);
    for (const vmxkit::Note& n : d.notes) FUZZ_ASSERT(n.begin <= n.end && n.end <= size);
    if (!d.fix) continue;
    FUZZ_ASSERT(vmxkit::edits_are_disjoint(d.fix->edits));
    for (const vmxkit::TextEdit& e : d.fix->edits) FUZZ_ASSERT(e.begin <= e.end && e.end <= size);
  }
  if (!vmx) return 0;
  const auto fixed = vmxkit::checks::fix("fuzz.vmx", input, options, /*unsafe=*/true);
  FUZZ_ASSERT(malformed(fixed.remaining) <= malformed(*linted));
  FUZZ_ASSERT(fixed.fixes_applied > 0 || fixed.bytes == input);
  return 0;
}
