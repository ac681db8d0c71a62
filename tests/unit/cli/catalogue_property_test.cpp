// SPDX-License-Identifier: Apache-2.0
// Properties over every GPU row of the built-in device catalogue: the MMIO and EFI verdicts a
// passthrough VM gets follow from the row's BARs, and the plan generate writes for the row lints
// clean. A row added to catalog.tsv is judged here without a test of its own.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <string>

#include "support/support.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/devices/catalog.h"

using vmxkit::pci::CatalogEntry;
using vmxkit::test::run_cli;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

std::set<std::string> rule_ids(const vmxkit::checks::LintResult& r) {
  std::set<std::string> out;
  for (const vmxkit::Diagnostic& d : r.diagnostics) out.emplace(d.rule_id);
  return out;
}

// Whether one such GPU needs a 64-bit MMIO window (more than 16 GB of BARs), restated from the
// sources rather than from vmxkit's code: the row's BARs when BAR1 is known (Broadcom KB
// 323402: the BARs must fit the window); else KB 323402's estimate, twice the framebuffer
// rounded up to a power of two; else, nothing known, what an NVIDIA GPU's class implies.
bool needs_64bit_window(const CatalogEntry& e) {
  if (e.bar1_bytes) {
    std::uint64_t total = *e.bar1_bytes;
    for (const auto& bar : e.other_bars) total += bar.size.value_or(0);
    return total > 16 * kGiB;
  }
  if (e.framebuffer_gb) {
    std::uint64_t estimate = 1;
    while (estimate < std::uint64_t{2} * *e.framebuffer_gb) estimate *= 2;
    return estimate > 16;
  }
  return true;
}

// A VM holding one such GPU, with BIOS firmware and no 64-bit MMIO settings.
std::string bios_vm(const CatalogEntry& e) {
  return fmt::format(
      "firmware = \"bios\"\nmemsize = \"65536\"\nsched.mem.min = \"65536\"\n"
      "sched.mem.pin = \"TRUE\"\npciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"00000:024:00.0\"\npciPassthru0.deviceId = \"0x{:04x}\"\n"
      "pciPassthru0.vendorId = \"0x{:04x}\"\n"
      "pciPassthru0.systemId = \"65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f\"\n",
      e.device_id, e.vendor_id);
}

}  // namespace

TEST_CASE("every GPU row: a BIOS VM without 64-bit MMIO is flagged exactly when its BARs need it",
          "[catalog][mmio][property]") {
  std::size_t flagged = 0;
  std::size_t small = 0;
  for (const CatalogEntry& e : vmxkit::pci::Catalog::builtin().entries()) {
    if (e.role != vmxkit::pci::Role::gpu) continue;
    INFO(e.id_string() << " " << e.model);
    const auto found = rule_ids(vmxkit::checks::lint("vm.vmx", bios_vm(e), {}));
    const bool needs = needs_64bit_window(e);
    CHECK(found.count("MMIO001") == (needs ? 1u : 0u));
    CHECK(found.count("MMIO005") == (needs ? 1u : 0u));
    // What the catalogue does not know is said: a row with neither BAR1 nor framebuffer.
    CHECK(found.count("MMIO006") == (!e.bar1_bytes && !e.framebuffer_gb ? 1u : 0u));
    ++(needs ? flagged : small);
  }
  // Both sides of the property are exercised: large-BAR rows and small-BAR1 rows (RTX A6000's
  // 256 MiB default BAR1).
  CHECK(flagged > 50);
  CHECK(small >= 1);
}

TEST_CASE("every GPU row: the plan generate writes for it lints clean once its addresses are in",
          "[catalog][generate][property]") {
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "vm.vmx").string();
  std::size_t planned = 0;
  for (const CatalogEntry& e : vmxkit::pci::Catalog::builtin().entries()) {
    if (e.role != vmxkit::pci::Role::gpu) continue;
    INFO(e.id_string() << " " << e.model);
    const bool gdr = e.gdr != vmxkit::pci::GdrSupport::no;
    // A GPU without GPUDirect RDMA (GeForce) is refused a NIC to pair with, with the reason.
    if (!gdr) {
      const auto refused = run_cli({"generate", "--gpu", e.id_string(), "--nic", "cx7"});
      CHECK(refused.code == 2);
      CHECK(refused.err.find("has no GPUDirect RDMA/P2P support") != std::string::npos);
    }
    std::vector<std::string> args = {
        "generate", "--gpu", e.id_string(), "--system-id", "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f",
        "-o",       path,    "--force"};
    if (gdr) {
      args.emplace_back("--nic");
      args.emplace_back("cx7");
    }
    const auto generated = run_cli(args);
    REQUIRE(generated.code == 0);
    // Without --host the plan cannot know the host's addresses: it leaves placeholders (PT009),
    // filled here as a user fills them.
    std::vector<std::string> set = {"set", path, "pciPassthru0.id=00000:024:00.0"};
    if (gdr) set.emplace_back("pciPassthru1.id=00000:025:00.0");
    set.emplace_back("-i");
    REQUIRE(run_cli(set).code == 0);
    const auto found = rule_ids(vmxkit::checks::lint("vm.vmx", vmxkit::test::read_bytes(path), {}));
    // Clean, but for the one warning that says what the catalogue does not know.
    std::set<std::string> expected;
    if (!e.bar1_bytes && !e.framebuffer_gb) expected.emplace("MMIO006");
    CHECK(found == expected);
    ++planned;
  }
  CHECK(planned > 100);
}
