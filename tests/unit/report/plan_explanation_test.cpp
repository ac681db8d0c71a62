// SPDX-License-Identifier: Apache-2.0
// generate's words for its pairs: each judged pair's verdict, reasons and fixes, the pairs it
// could not judge, and the refusal of a plan that cannot do peer-to-peer DMA.
#include "vmxkit/report/plan_explanation.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"
#include "vmxkit/analysis/plan.h"
#include "vmxkit/formats/host/load.h"

using namespace vmxkit;

namespace {

pci::Host example_host() {
  return pci::load_host(
      {test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string()});
}

}  // namespace

TEST_CASE("a plan's pairs are explained from their verdicts, each fix under its reason",
          "[report][gen]") {
  const pci::Host host = example_host();
  generate::Request r;
  r.gpus = {"0000:18:00.0"};
  r.nics = {"0000:3b:00.0"};  // same socket, other host bridge: NODE
  r.allow_degraded = true;
  const generate::Plan plan = generate::make_plan(r, &host, host.catalog());
  const std::vector<std::string> lines = report::plan_pair_lines(&host, plan);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "GPU0 <-> NIC0: NODE (degraded)");
  CHECK(lines[1].rfind("  - NODE: host bridges ", 0) == 0);
  CHECK(lines[1].find("; GPUDirect RDMA goes through the CPU") != std::string::npos);
  CHECK(lines[2] == "    fix: place both devices under one PCIe switch");
  // The plan's own lines leave the pairs' place to the report layer.
  REQUIRE(plan.pairs_at <= plan.explanation.size());
  CHECK(plan.explanation[plan.pairs_at - 1].rfind("NIC0: ", 0) == 0);
}

TEST_CASE("a plan without a host says its pairs were not checked, and a refusal names each pair",
          "[report][gen]") {
  generate::Request r;
  r.gpus = {"h100-pcie"};
  r.nics = {"cx7"};
  const generate::Plan plan = generate::make_plan(r, nullptr, pci::Catalog::builtin());
  CHECK(report::plan_pair_lines(nullptr, plan) ==
        std::vector<std::string>{"GPU0 <-> NIC0: path not checked (no host capture)"});
  CHECK(report::plan_refusal_text(nullptr, plan).empty());

  const pci::Host host = example_host();
  r.gpus = {"0000:18:00.0"};
  r.nics = {"0000:3b:00.0"};
  const generate::Plan refused = generate::make_plan(r, &host, host.catalog());
  REQUIRE(refused.refusals.size() == 1);
  CHECK(refused.refusals[0].degraded);
  const std::string text = report::plan_refusal_text(&host, refused);
  CHECK(text.rfind("this configuration cannot do peer-to-peer DMA:\n  GPU0 <-> NIC0: NODE: ", 0) ==
        0);
  CHECK(text.ends_with(" (pass --allow-degraded to accept it)"));
  // A refused reason's fix is the refusal's to give, not the explanation's.
  const std::vector<std::string> lines = report::plan_pair_lines(&host, refused);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].rfind("  - NODE: ", 0) == 0);
}
