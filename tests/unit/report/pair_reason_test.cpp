// SPDX-License-Identifier: Apache-2.0
// The words of a pair verdict's reasons: each kind as topo prints it, worded from the reason's
// facts (devices, bridges, BAR1, NVLink count, NCCL's AMD rule), for a PCI host and for a host
// known only from `nvidia-smi topo -m`.
#include "vmxkit/report/pair_reason.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/smi_topology.h"
#include "vmxkit/formats/host/nvidia_smi_topo.h"

using vmxkit::Bdf;
using vmxkit::pci::AmdTwoGpus;
using vmxkit::pci::Reason;
using vmxkit::pci::ReasonKind;
using vmxkit::pci::Traffic;
using vmxkit::pci::Verdict;
using vmxkit::report::reason_fix;
using vmxkit::report::reason_text;
using vmxkit::test::host_from;
using vmxkit::test::socket;

namespace {

constexpr const char* kOneSwitch = "tests/data/rules/host-one-switch-acs-ats-geforce.txt";

vmxkit::pci::Host one_switch_host() {
  return host_from({{kOneSwitch, vmxkit::test::read_bytes(vmxkit::test::source_path(kOneSwitch))}});
}

const Reason& reason_of(const vmxkit::pci::PairVerdict& v, ReasonKind kind) {
  for (const Reason& r : v.reasons) {
    if (r.kind == kind) return r;
  }
  FAIL("no reason of kind " << vmxkit::pci::to_string(kind));
  return v.reasons.front();
}

}  // namespace

TEST_CASE("each reason of a pair is worded as topo prints it, its fix apart", "[report][reason]") {
  const auto host = one_switch_host();
  const auto v = vmxkit::pci::judge_pair(host, *host.index_of(Bdf{0, 0x1a, 0, 0}),
                                         *host.index_of(Bdf{0, 0x1b, 0, 0}), {});
  const Reason& path = reason_of(v, ReasonKind::path);
  CHECK(reason_text(host, v, path) ==
        "PIX: through one switch below 0000:16:00.0; GPUDirect RDMA stays below the host bridge");
  CHECK(reason_fix(host, v, path).empty());
  const Reason& acs = reason_of(v, ReasonKind::acs_redirect);
  CHECK(reason_text(host, v, acs) ==
        "ACS redirects P2P to the root complex on 0000:17:03.0 (SrcValid+ ReqRedir+ CmpltRedir+ "
        "UpstreamFwd+)");
  CHECK(reason_fix(host, v, acs) ==
        "on bare metal: setpci -s 0000:17:03.0 ECAP_ACS+0x6.w=0000 (or disable ACS/IOMMU in "
        "firmware); in a VM keep ACS, enable ATS on the NIC and DirectTrans on the bridge "
        "(NVIDIA's VM configuration: ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
        "DirectTrans+)");
  const Reason& geforce = reason_of(v, ReasonKind::gpu_no_gdr);
  CHECK(reason_text(host, v, geforce) ==
        "0000:1a:00.0 (GeForce RTX 3090) has no GPUDirect RDMA/P2P support");
  CHECK(reason_fix(host, v, geforce) == "use a data-center or professional GPU");
  const Reason& ats = reason_of(v, ReasonKind::ats_disabled);
  CHECK(reason_text(host, v, ats) ==
        "ATS is off on 0000:1b:00.0 (ATSCtl Enable-): in a VM, where ACS stays on, P2P goes "
        "through the root complex");
  CHECK(reason_fix(host, v, ats) ==
        "mlxconfig -d 0000:1b:00.0 set ATS_ENABLED=true, then reboot the host");
}

TEST_CASE("a reason's words follow its facts, not a text of its own", "[report][reason]") {
  const auto host = one_switch_host();
  const std::size_t gpu = *host.index_of(Bdf{0, 0x1a, 0, 0});
  const std::size_t nic = *host.index_of(Bdf{0, 0x1b, 0, 0});
  const auto v = vmxkit::pci::judge_pair(host, gpu, nic, {});
  Reason r = reason_of(v, ReasonKind::path);
  r.traffic = Traffic::gpu_p2p;
  r.bcm_flattened = true;
  CHECK(reason_text(host, v, r) ==
        "PIX: through one switch below 0000:16:00.0; GPU P2P stays below the host bridge; NCCL "
        "counts the two levels of this Broadcom PEX switch as one (ncclTopoFlattenBcmSwitches) "
        "and sees PIX");
  // The device a reason is about is the one it names.
  r = reason_of(v, ReasonKind::ats_disabled);
  r.subject = gpu;
  CHECK(reason_fix(host, v, r) ==
        "mlxconfig -d 0000:1a:00.0 set ATS_ENABLED=true, then reboot the host");
  r = Reason{};
  r.kind = ReasonKind::small_bar1;
  r.effect = Verdict::degraded;
  r.subject = gpu;
  r.bar1_bytes = std::uint64_t{256} << 20;
  CHECK(reason_text(host, v, r) ==
        "0000:1a:00.0 has a 256M BAR1: GPUDirect can map only that much GPU memory at once");
  r.kind = ReasonKind::vf;
  r.subject = nic;
  CHECK(reason_text(host, v, r) == "0000:1b:00.0 is an SR-IOV VF; it shares its PF's path");
  r.pf = gpu;
  CHECK(reason_text(host, v, r) ==
        "0000:1b:00.0 is an SR-IOV VF of 0000:1a:00.0; it shares the PF's path");
  CHECK(reason_fix(host, v, r).empty());
  r = Reason{};
  r.kind = ReasonKind::acs_direct_translated;
  r.initiators = {nic, gpu};
  CHECK(reason_text(host, v, r) ==
        "ACS redirects P2P on 0000:17:03.0 (SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+), but "
        "DirectTrans+ there lets the translated requests of 0000:1b:00.0 and 0000:1a:00.0 (ATS "
        "on) go peer to peer, as NVIDIA's VM configuration has it");
}

TEST_CASE("GPU P2P through the CPU on AMD is worded by NCCL's rule for 2 GPUs",
          "[report][reason]") {
  const auto host = host_from(
      {{"h.txt", socket(0x10, 0, {"gpu"}) + socket(0x30, 0, {"gpu"}) + socket(0x90, 1, {"gpu"})}});
  const auto node = vmxkit::pci::judge_pair(host, *host.index_of(Bdf{0, 0x13, 0, 0}),
                                            *host.index_of(Bdf{0, 0x33, 0, 0}), {});
  Reason r = reason_of(node, ReasonKind::path);
  REQUIRE(r.amd_two_gpus == AmdTwoGpus::no);  // an Intel host
  CHECK(reason_fix(host, node, r) == "place both devices under one PCIe switch");
  r.amd_two_gpus = AmdTwoGpus::own_vm;
  CHECK(reason_fix(host, node, r) ==
        "place both devices under one PCIe switch; or give these 2 GPUs a VM of their own: NCCL "
        "allows P2P up to SYS on AMD CPUs when it sees at most 2 GPUs");
  const auto sys = vmxkit::pci::judge_pair(host, *host.index_of(Bdf{0, 0x13, 0, 0}),
                                           *host.index_of(Bdf{0, 0x93, 0, 0}), {});
  r = reason_of(sys, ReasonKind::path);
  CHECK(reason_fix(host, sys, r) == "use devices on one NUMA node, best under one PCIe switch");
  r.amd_two_gpus = AmdTwoGpus::used;
  CHECK(reason_text(host, sys, r) ==
        "SYS: host bridges 0000:10 (NUMA node 0) and 0000:90 (NUMA node 1); GPU P2P goes through "
        "the CPU and across the sockets: NCCL uses it all the same, as "
        "it allows P2P up to SYS between at most 2 GPUs on AMD CPUs");
  CHECK(reason_fix(host, sys, r) == "place both GPUs under one PCIe switch for full P2P bandwidth");
}

TEST_CASE("an NVLink pair names its links and the nvidia-smi topo -m they come from",
          "[report][reason][smi]") {
  const std::string smi =
      "\tGPU0\tGPU1\tCPU Affinity\n"
      "GPU0\t X \tNV1\t0-23\n"
      "GPU1\tNV1\t X \t24-47\n";
  const auto host = host_from(
      {{"lspci.txt", socket(0x10, 0, {"gpu"}) + socket(0x90, 1, {"gpu"})}, {"smi.txt", smi}});
  const auto v = vmxkit::pci::judge_pair(host, *host.index_of(Bdf{0, 0x13, 0, 0}),
                                         *host.index_of(Bdf{0, 0x93, 0, 0}), {});
  const Reason& r = reason_of(v, ReasonKind::nvlink);
  CHECK(r.nvlinks == 1);
  CHECK(reason_text(host, v, r) ==
        "NV1: joined by 1 bonded NVLink (smi.txt:1 nvidia-smi topo -m): GPU P2P goes over NVLink, "
        "which NCCL prefers to any PCIe path (PATH_NVL); the PCIe path (SYS) does not limit it");

  // The matrix alone: the words of its cells.
  const auto t = vmxkit::pci::parse_nvidia_smi_topo(
      "\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\n"
      "GPU0\t X \tNV4\tSYS\tPHB\t0-23\n"
      "GPU1\tNV4\t X \tSOC\tPIX\t0-23\n"
      "GPU2\tSYS\tSOC\t X \tWAT\t24-47\n"
      "NIC0\tPHB\tPIX\tWAT\t X \n",
      "m.txt");
  const auto m = vmxkit::pci::judge_smi_matrix(t);
  auto words = [&](std::size_t pair) {
    const auto& p = m.pairs.at(pair);
    REQUIRE(p.reasons.size() == 1);
    return reason_text(t, p, p.reasons[0]) + " | " + reason_fix(t, p, p.reasons[0]);
  };
  CHECK(words(0) ==
        "NV4: joined by 4 bonded NVLinks: GPU P2P goes over NVLink, which NCCL prefers to any "
        "PCIe path (PATH_NVL) | ");
  CHECK(words(1) ==
        "SYS: GPU P2P across the SMP interconnect is not supported (NCCL allows GPU P2P up to SYS "
        "between at most 2 GPUs on AMD CPUs; the CPU vendor is not in nvidia-smi topo -m) | use "
        "devices on one NUMA node, best under one PCIe switch");
  CHECK(words(3) ==
        "PHB: GPUDirect RDMA goes through the CPU (works, P2P reads are slow; NCCL's default "
        "level PXB will not use it) | place both devices under one PCIe switch");
  CHECK(words(4) == "PIX: GPUDirect RDMA stays below the host bridge | ");
  CHECK(words(5) == "`WAT` between GPU2 and NIC0 is not a path class vmxkit knows | ");
}
