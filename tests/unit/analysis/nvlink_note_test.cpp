// SPDX-License-Identifier: Apache-2.0
// The host-level NVLink note: GPUs whose catalogue model takes an NVLink bridge or sits on an
// NVLink baseboard, with no `nvidia-smi topo -m` covering them, get one note per model; topo
// (text and JSON) prints it once, and no verdict changes.
#include "vmxkit/analysis/nvlink_note.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/host_util.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/report/topology_json.h"
#include "vmxkit/report/topology_text.h"

using vmxkit::pci::NvlinkSupport;
using vmxkit::test::host_from;
using vmxkit::test::socket;

namespace {

std::vector<vmxkit::pci::NvlinkNote> notes_of(const vmxkit::pci::Host& host) {
  return vmxkit::pci::nvlink_notes(host, vmxkit::pci::analyze(host, {}).gpus);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Two sockets, an H100 PCIe on each (0000:13:00.0, 0000:93:00.0), with a `nvidia-smi topo -m`
// matrix of `gpus` GPUs whose cells between GPUs are `cell`.
std::vector<std::pair<std::string, std::string>> with_matrix(const std::string& cell,
                                                             unsigned gpus = 2) {
  std::string smi;
  for (unsigned i = 0; i < gpus; ++i) smi += "\tGPU" + std::to_string(i);
  smi += "\tCPU Affinity\n";
  for (unsigned i = 0; i < gpus; ++i) {
    smi += "GPU" + std::to_string(i);
    for (unsigned j = 0; j < gpus; ++j) smi += i == j ? "\t X " : "\t" + cell;
    smi += "\t0\n";
  }
  return {{"lspci.txt", socket(0x10, 0, {"gpu"}) + socket(0x90, 1, {"gpu"})}, {"smi.txt", smi}};
}

}  // namespace

TEST_CASE("the NVLink source is the catalogue source's NVLink field with its continuations",
          "[nvlink][catalog]") {
  using vmxkit::pci::nvlink_source;
  CHECK(nvlink_source("pci.ids; FB nominal; NVLink: A (x; y); B; GDR: C") == "NVLink: A (x; y); B");
  CHECK(nvlink_source("vGPU yes; vGPU+NVLink: NVAIE6 lists H800-80C; GDR: doc") ==
        "vGPU+NVLink: NVAIE6 lists H800-80C");
  CHECK(nvlink_source("NVLink: only") == "NVLink: only");
  CHECK(nvlink_source("pci.ids; FB nominal (NVLink: not a field)").empty());
  CHECK(nvlink_source("").empty());
  // Every built-in row the note can name cites an NVLink source without the fields after it.
  for (const auto& e : vmxkit::pci::Catalog::builtin().entries()) {
    if (e.nvlink != NvlinkSupport::bridge && e.nvlink != NvlinkSupport::baseboard) continue;
    INFO(e.id_string());
    const std::string_view s = nvlink_source(e.source);
    CHECK(s.find("NVLink: ") != std::string_view::npos);
    CHECK(s.find("GDR:") == std::string_view::npos);
  }
}

TEST_CASE("two GPUs of a model that takes an NVLink bridge, lspci alone: one note for the host",
          "[nvlink][topology]") {
  // Two H100 PCIe (bridge) and a NIC under one switch.
  const auto host = host_from({{"l.txt", socket(0x10, 0, {"gpu", "gpu", "nic"})}});
  const auto notes = notes_of(host);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].kind == NvlinkSupport::bridge);
  CHECK(notes[0].model->model == "H100 PCIe");
  CHECK(notes[0].gpus == std::vector<std::size_t>{*host.index_of(vmxkit::Bdf{0, 0x13, 0, 0}),
                                                  *host.index_of(vmxkit::Bdf{0, 0x14, 0, 0})});
  CHECK(notes[0].source ==
        "NVLink: NVAIE6 P2P table lists H100-80C (H100 PCIe 80GB: a PCIe "
        "board, so a bridge)");
  const auto topo = vmxkit::pci::analyze(host, {});
  // No verdict changes: the pair keeps its PCIe reason alone.
  REQUIRE(topo.pairs.size() == 3);
  CHECK(topo.pairs[0].verdict == vmxkit::pci::Verdict::ok);
  CHECK(topo.pairs[0].reasons.size() == 1);
  const std::string text = vmxkit::report::render_topology_text(host, topo);
  CHECK(count(text, "NVLink bridge") == 1);
  CHECK(text.find("\nNote: GPUs 0000:13:00.0, 0000:14:00.0 (H100 PCIe) take an NVLink bridge, "
                  "which the PCI inputs cannot show (a bridge is not a PCI device): the GPU<->GPU "
                  "verdicts here are PCIe-only; give `nvidia-smi topo -m` with --host to include "
                  "NVLink (catalogue 10de:2331; NVLink: NVAIE6 P2P table lists H100-80C") !=
        std::string::npos);
  CHECK(text.find("GPU Legend:") < text.find("Note: GPUs"));
  CHECK(text.find("Note: GPUs") < text.find("P2P verdicts:"));
  const auto json = vmxkit::report::topology_json(host, topo);
  REQUIRE(json["nvlink_notes"].size() == 1);
  const auto& note = json["nvlink_notes"][0];
  CHECK(note["model"] == "H100 PCIe");
  CHECK(note["vendor_device"] == "10de:2331");
  CHECK(note["nvlink"] == "bridge");
  CHECK(note["bridge_gpus"].is_null());
  CHECK(note["gpus"] == vmxkit::report::Json::array({"GPU0", "GPU1"}));
  CHECK(note["bdfs"] == vmxkit::report::Json::array({"0000:13:00.0", "0000:14:00.0"}));
  CHECK(note["text"].get<std::string>().find("GPUs 0000:13:00.0, 0000:14:00.0 (H100 PCIe)") == 0);
}

TEST_CASE("bridge:N says how many boards one bridge set joins, and a small BAR1 still degrades",
          "[nvlink][topology]") {
  const auto host = host_from({{"l.txt", socket(0x10, 0, {"gpu-small-bar", "gpu-small-bar"})}});
  const auto topo = vmxkit::pci::analyze(host, {});
  CHECK(topo.pairs[0].verdict == vmxkit::pci::Verdict::degraded);
  const std::string text = vmxkit::report::render_topology_text(host, topo);
  CHECK(text.find("(RTX A6000) take an NVLink bridge (one bridge set joins at most 2 boards)") !=
        std::string::npos);
  CHECK(vmxkit::report::topology_json(host, topo)["nvlink_notes"][0]["bridge_gpus"] == 2);
}

TEST_CASE("GPUs on an NVLink baseboard: their PCIe verdicts understate GPU<->GPU P2P",
          "[nvlink][topology]") {
  // Two H100 SXM5 on two sockets: SYS stays unsupported, the note says why that understates.
  const auto host =
      host_from({{"l.txt", socket(0x10, 0, {"gpu-sxm"}) + socket(0x90, 1, {"gpu-sxm"})}});
  const auto notes = notes_of(host);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].kind == NvlinkSupport::baseboard);
  const auto topo = vmxkit::pci::analyze(host, {});
  CHECK(topo.pairs[0].verdict == vmxkit::pci::Verdict::unsupported);
  const std::string text = vmxkit::report::render_topology_text(host, topo);
  CHECK(text.find("Note: GPUs 0000:13:00.0, 0000:93:00.0 (H100 SXM5 80GB) are joined by NVLink or "
                  "NVSwitches on their baseboard, which the PCI inputs cannot show: the GPU<->GPU "
                  "verdicts here are PCIe-only and understate their P2P; give `nvidia-smi topo "
                  "-m` with --host to include NVLink (catalogue 10de:2330; NVLink: NVAIE6 P2P "
                  "table lists H100XM-80C; nvidia.com H100 page") != std::string::npos);
  CHECK(vmxkit::report::topology_json(host, topo)["nvlink_notes"][0]["nvlink"] == "baseboard");
}

TEST_CASE("no NVLink note for models without NVLink or not sourced, one GPU, or two models",
          "[nvlink][topology]") {
  for (const std::vector<std::string>& endpoints :
       std::vector<std::vector<std::string>>{{"gpu-l40s", "gpu-l40s"},  // nvlink no
                                             {"gpu-a30", "gpu-a30"},    // nvlink - (not sourced)
                                             {"gpu-geforce", "gpu-geforce"},  // nvlink -
                                             {"gpu", "nic"},  // one H100 PCIe: no GPU<->GPU verdict
                                             {"gpu-sxm", "nic"},        // one H100 SXM5
                                             {"gpu", "gpu-small-bar"},  // two models, one of each
                                             {"gpu", "gpu-sxm"}}) {
    INFO(endpoints[0] << " " << endpoints[1]);
    const auto host = host_from({{"l.txt", socket(0x10, 0, endpoints)}});
    CHECK(notes_of(host).empty());
    const auto topo = vmxkit::pci::analyze(host, {});
    CHECK(vmxkit::report::render_topology_text(host, topo).find("Note:") == std::string::npos);
    CHECK(vmxkit::report::topology_json(host, topo)["nvlink_notes"].empty());
  }
  // Two models of two each: a note per model, in PCI address order.
  const auto host =
      host_from({{"l.txt", socket(0x10, 0, {"gpu-small-bar", "gpu", "gpu-small-bar", "gpu"})}});
  const auto notes = notes_of(host);
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].model->model == "RTX A6000");
  CHECK(notes[1].model->model == "H100 PCIe");
}

TEST_CASE("no NVLink note where nvidia-smi topo -m covers the GPUs, whatever its cells",
          "[nvlink][topology][smi]") {
  CHECK(notes_of(host_from(with_matrix("SYS"))).empty());   // known: no NVLink
  CHECK(notes_of(host_from(with_matrix("NV12"))).empty());  // known: NVLink
  const auto host = host_from(with_matrix("NV12"));
  const std::string text =
      vmxkit::report::render_topology_text(host, vmxkit::pci::analyze(host, {}));
  CHECK(text.find("NVLink bridge") == std::string::npos);
  // A matrix whose GPU count differs matches no GPU: the note stays.
  const auto unmatched = host_from(with_matrix("SYS", 3));
  REQUIRE_FALSE(unmatched.smi_mismatch().empty());
  CHECK(notes_of(unmatched).size() == 1);
}

TEST_CASE("a large host listed by nearest peers still gets the NVLink note once",
          "[nvlink][topology][large]") {
  // 65 H100 PCIe, 13 under each of 5 switches: more than kFullMatrixLimit GPUs and NICs.
  std::string lspci;
  for (unsigned rb = 0x10; rb < 0xb0; rb += 0x20) {
    lspci += socket(rb, 0, std::vector<std::string>(13, "gpu"));
  }
  const auto host = host_from({{"l.txt", lspci}});
  const auto topo = vmxkit::pci::analyze(host, {});
  REQUIRE(topo.listed);
  const std::string text = vmxkit::report::render_topology_text(host, topo);
  CHECK(count(text, "take an NVLink bridge") == 1);
  CHECK(vmxkit::report::topology_json(host, topo)["nvlink_notes"][0]["gpus"].size() == 65);
}
