// SPDX-License-Identifier: Apache-2.0
// Properties over every GPU row of the device catalogue: the MMIO checks judge each row by what
// the row knows (its BARs, else its framebuffer by Broadcom KB 323402, else nothing: then the
// GPU is taken to need the window, and MMIO006 says so), and generate's plan for each row lints
// clean.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "vmxkit/analysis/plan.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/report/plan_render.h"

using namespace vmxkit;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

enum class Need { window, none, assumed };

// What a row's facts say, independently of the sizing code: known BARs beyond 16 GiB need a
// 64-bit window (Broadcom KB 323402); without BARs, twice the framebuffer beyond 16 GB does (the
// KB's rule); with neither, nothing is known and the GPU must be taken to need it.
Need need_of(const pci::CatalogEntry& e) {
  if (e.bar1_bytes) {
    std::uint64_t total = *e.bar1_bytes;
    for (const pci::Bar& b : e.other_bars) total += b.size.value_or(0);
    return total > 16 * kGiB ? Need::window : Need::none;
  }
  if (e.framebuffer_gb)
    return 2 * std::uint64_t{*e.framebuffer_gb} > 16 ? Need::window : Need::none;
  return Need::assumed;
}

std::vector<std::string> rule_ids(const checks::LintResult& r) {
  std::vector<std::string> ids;
  for (const Diagnostic& d : r.diagnostics) ids.emplace_back(d.rule_id);
  return ids;
}

bool has(const std::vector<std::string>& ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::vector<const pci::CatalogEntry*> gpu_rows() {
  std::vector<const pci::CatalogEntry*> rows;
  for (const pci::CatalogEntry& e : pci::Catalog::builtin().entries()) {
    if (e.role == pci::Role::gpu) rows.push_back(&e);
  }
  return rows;
}

}  // namespace

TEST_CASE("every catalogue GPU that needs a 64-bit window is flagged in a BIOS VM without one",
          "[catalog][mmio]") {
  const auto rows = gpu_rows();
  REQUIRE(rows.size() >= 100);
  std::size_t needing = 0;
  std::size_t small = 0;
  for (const pci::CatalogEntry* e : rows) {
    const std::string vmx = fmt::format(
        ".encoding = \"UTF-8\"\nconfig.version = \"8\"\nvirtualHW.version = \"20\"\n"
        "guestOS = \"ubuntu-64\"\nfirmware = \"bios\"\nmemsize = \"65536\"\n"
        "sched.mem.min = \"65536\"\nsched.mem.pin = \"TRUE\"\n"
        "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"00000:059:00.0\"\n"
        "pciPassthru0.deviceId = \"0x{:04x}\"\npciPassthru0.vendorId = \"0x{:04x}\"\n"
        "pciPassthru0.systemId = \"65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f\"\n",
        e->device_id, e->vendor_id);
    const auto ids = rule_ids(checks::lint("row.vmx", vmx, {}));
    const Need need = need_of(*e);
    INFO(e->id_string() << " " << e->model << ": " << fmt::format("{}", fmt::join(ids, " ")));
    CHECK(has(ids, "MMIO001") == (need != Need::none));
    CHECK(has(ids, "MMIO005") == (need != Need::none));
    CHECK(has(ids, "MMIO006") == (need == Need::assumed));
    needing += need != Need::none;
    small += need == Need::none;
  }
  // Both kinds are present, so both halves of the property are exercised.
  CHECK(needing > 50);
  CHECK(small >= 4);
}

TEST_CASE("the plan generate writes for every catalogue GPU lints clean", "[catalog][gen]") {
  for (const pci::CatalogEntry* e : gpu_rows()) {
    generate::Request r;
    r.gpus = {e->id_string()};
    r.system_id = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";
    const generate::Plan plan = generate::make_plan(r, nullptr, pci::Catalog::builtin());
    const std::string text =
        generate::render_template(generate::load_template(generate::default_template(plan)), plan);
    const auto ids = rule_ids(checks::lint("generated.vmx", text, {}));
    INFO(e->id_string() << " " << e->model << "\n" << text);
    INFO(fmt::format("{}", fmt::join(ids, " ")));
    // Without a host the plan leaves the host address to fill in (PT009); a row without BARs or
    // framebuffer gets MMIO006's word that its window is assumed, nothing else.
    for (const std::string& id : ids) {
      CHECK((id == "PT009" || (id == "MMIO006" && need_of(*e) == Need::assumed)));
    }
    CHECK(has(ids, "MMIO006") == (need_of(*e) == Need::assumed));
  }
}
