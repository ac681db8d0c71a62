// SPDX-License-Identifier: Apache-2.0
// The words of the 64-bit MMIO window's arithmetic (checks::mmio_lines): each kind of step
// exactly as `vmxkit mmio`, the MMIO rules' notes and generate's comment block print it, worded
// from the steps size_64bit_mmio() and apply_minimum() keep.
#include "vmxkit/checks/mmio_lines.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "vmxkit/analysis/mmio.h"

using vmxkit::checks::mmio_lines;
using vmxkit::pci::MmioBar;
using vmxkit::pci::MmioResult;
using vmxkit::pci::MmioStepKind;

TEST_CASE("each step of the MMIO window's arithmetic is worded from its facts", "[checks][mmio]") {
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
  MmioResult r;
  r.bars.push_back(MmioBar{"0000:18:00.0 (H100 PCIe)", "BAR1", 128 * kGiB, 0, "lspci h.txt:12"});
  r.bars.push_back(
      MmioBar{"0000:18:00.0 (H100 PCIe)", "BAR3", 32 << 20, 128 * kGiB, "lspci h.txt:13"});
  r.total_bytes = 128 * kGiB + (32 << 20);
  r.unknown_gpus = {"10de:ffff", "10de:fffe"};
  r.unassigned.push_back(
      {"0000:3b:00.0 (H100 PCIe)", {1, 128 * kGiB, true, vmxkit::pci::Origin{"k.txt", 3}}});
  r.steps = {{MmioStepKind::bar, 0, 0, 0, {}},
             {MmioStepKind::bar, 1, 0, 0, {}},
             {MmioStepKind::total, 0, 0, 0, {}},
             {MmioStepKind::bars_size, 0, 129, 256, {}},
             {MmioStepKind::kb_rule, 0, 80, 256, {}},
             {MmioStepKind::kb_unknown, 0, 0, 0, {}},
             {MmioStepKind::kb_applies, 0, 0, 0, "L40S (48 GB framebuffer)"},
             {MmioStepKind::unknown_gpu_floor, 0, 0, 64, {}},
             {MmioStepKind::result, 0, 0, 256, {}},
             {MmioStepKind::not_counted, 0, 0, 0, "15b3:ffff"},
             {MmioStepKind::below_4g, 0, 0, 0, "0000:18:00.0 BAR0 16 MiB (32-bit)"},
             {MmioStepKind::unassigned, 0, 0, 0, {}},
             {MmioStepKind::minimum_reason, 0, 0, 0, "a vGPU in a VM of 65536 MB"},
             {MmioStepKind::minimum, 0, 0, 64, {}}};
  CHECK(mmio_lines(r) ==
        std::vector<std::string>{
            "  128G at +0        BAR1  0000:18:00.0 (H100 PCIe)  [lspci h.txt:12]",
            "   32M at +128G     BAR3  0000:18:00.0 (H100 PCIe)  [lspci h.txt:13]",
            "total 128.03 GiB (137472507904 bytes), packed with natural alignment",
            "BARs: 64bitMMIOSizeGB = 256 (the power of two >= 129 GiB)",
            "KB 323402: 2 x 80 GB total framebuffer = 160 -> 256",
            "KB 323402: not computed (framebuffer of a GPU not known)",
            "BAR sizes not known for L40S (48 GB framebuffer): KB 323402 rule applies",
            "at least 64 GB for 10de:ffff, 10de:fffe: NVIDIA GPU BARs unknown; 64 GB is the "
            "smallest window NVIDIA lists for a data-center GPU",
            "=> pciPassthru.64bitMMIOSizeGB = 256",
            "not counted: 15b3:ffff (BAR sizes unknown; give the host's lspci -vvv)",
            "below 4 GiB, not counted: 0000:18:00.0 BAR0 16 MiB (32-bit)",
            "dmesg k.txt:3: the kernel found no space for BAR1 (128G, 64-bit) of 0000:3b:00.0 "
            "(H100 PCIe): in a VM the classic sign of pciPassthru.64bitMMIOSizeGB too small for "
            "the passthrough BARs (or 64-bit MMIO off); on bare metal, of Above 4G Decoding off "
            "in the firmware",
            "a vGPU in a VM of 65536 MB",
            "=> pciPassthru.64bitMMIOSizeGB = 64 (NVIDIA's minimum for a vGPU VM with 32 GB or "
            "more of memory)"});
}

TEST_CASE("size_64bit_mmio() keeps its arithmetic as steps, the window last", "[checks][mmio]") {
  const auto& catalog = vmxkit::pci::Catalog::builtin();
  const MmioResult r = vmxkit::pci::size_64bit_mmio(catalog, {{0x10de, 0x2331}});
  REQUIRE_FALSE(r.steps.empty());
  CHECK(r.steps.back().kind == MmioStepKind::result);
  CHECK(r.steps.back().gb == r.size_gb);
  const std::vector<std::string> lines = mmio_lines(r);
  CHECK(lines.back() == "=> pciPassthru.64bitMMIOSizeGB = " + std::to_string(r.size_gb));
}
