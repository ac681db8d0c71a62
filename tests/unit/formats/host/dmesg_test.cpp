// SPDX-License-Identifier: Apache-2.0
// The kernel log as a HOST input: ids, classes, BAR sizes from the ranges and the BARs the
// kernel found no space for, in the wording of drivers/pci/probe.c and setup-res.c before 6.8
// (`reg 0x10: [mem ...]`, `BAR 1: no space for [...]`) and since (`BAR 2 [mem ...]`,
// `BAR 1 [mem size ...]: can't assign; no space`).
#include <catch2/catch.hpp>

#include "support/support.h"
#include "vmxkit/analysis/mmio.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"

using vmxkit::Bdf;
using vmxkit::pci::InputFormat;

namespace {

std::string guest_dmesg() {
  return vmxkit::test::source_path("tests/data/pci/dmesg/guest-4x-h100-kernel-6.12.dmesg.txt")
      .string();
}

vmxkit::pci::Host host_of(const std::string& text) {
  vmxkit::pci::Host host;
  vmxkit::pci::load_text(host, text, "dmesg.txt");
  host.finalize();
  return host;
}

}  // namespace

TEST_CASE("kernel logs are told apart by content: time stamps, syslog, plain pci lines",
          "[pci][dmesg]") {
  using vmxkit::pci::detect_format;
  CHECK(detect_format("[    0.000000] Linux version 6.12.1\n", "a") == InputFormat::dmesg);
  CHECK(detect_format("pci 0000:3b:00.0: [10de:2330] type 00 class 0x030200\n", "a") ==
        InputFormat::dmesg);
  CHECK(detect_format("Dec 03 10:00:01 gpu01 kernel: pci 0000:3b:00.0: BAR 0 [mem "
                      "0x9c000000-0x9cffffff]\n",
                      "a") == InputFormat::dmesg);
  CHECK(detect_format("[Thu Dec  3 10:00:01 2026] pci_bus 0000:00: root bus resource\n", "a") ==
        InputFormat::dmesg);
}

TEST_CASE("a 6.12 guest's log of four passthrough H100s gives their ids and BAR sizes",
          "[pci][dmesg]") {
  const vmxkit::pci::Host host = vmxkit::pci::load_host({guest_dmesg()});
  const vmxkit::pci::Device* gpu = host.find(Bdf{0, 6, 0, 0});
  REQUIRE(gpu != nullptr);
  CHECK(gpu->vendor_id == 0x10de);
  CHECK(gpu->device_id == 0x2330);
  CHECK(gpu->class_code == 0x0302);
  CHECK(gpu->role == vmxkit::pci::Role::gpu);
  REQUIRE(gpu->kernel_bars.size() == 3);
  CHECK(gpu->kernel_bars[0].index == 0);
  CHECK(gpu->kernel_bars[0].size == std::uint64_t{16} << 20);
  CHECK(gpu->kernel_bars[1].index == 2);
  CHECK(gpu->kernel_bars[1].size == std::uint64_t{128} << 30);
  CHECK(gpu->kernel_bars[1].is_64bit);
  CHECK(gpu->kernel_bars[1].prefetchable);
  CHECK(gpu->kernel_bars[2].size == std::uint64_t{32} << 20);
  CHECK(gpu->unassigned_bars.empty());
  // `PCI bridge to [bus 06]` places it below its root port; the ROM line is not a BAR.
  REQUIRE(gpu->parent);
  CHECK(host.at(*gpu->parent).bdf == Bdf{0, 0, 1, 5});
  CHECK(host.find(Bdf{0, 1, 0, 0}) == nullptr);  // named by its ROM line only

  const auto r = vmxkit::pci::size_64bit_mmio(host, {Bdf{0, 6, 0, 0}, Bdf{0, 7, 0, 0}});
  CHECK(r.size_gb == 512);
  REQUIRE_FALSE(r.bars.empty());
  CHECK(r.bars[0].source.find("dmesg ") == 0);
  CHECK(r.bars[0].source.find(".dmesg.txt:") != std::string::npos);
  CHECK(r.unassigned.empty());
}

TEST_CASE("the older wording: reg 0x.. ranges, `assigned`, and `no space for` a BAR",
          "[pci][dmesg]") {
  // Linux before 6.8: probe.c `reg 0x%x: %pR`, setup-res.c `BAR %d: assigned %pR`,
  // `BAR %d: no space for [%s size %#llx]`, `BAR %d: failed to assign [...]`.
  const auto host = host_of(
      "[    1.000000] pci 0000:3b:00.0: [10de:20b5] type 00 class 0x030200\n"
      "[    1.000100] pci 0000:3b:00.0: reg 0x10: [mem 0x00000000-0x00ffffff]\n"
      "[    1.000200] pci 0000:3b:00.0: reg 0x14: [mem 0x00000000-0x1fffffffff 64bit pref]\n"
      "[    1.000300] pci 0000:3b:00.0: reg 0x1c: [mem 0x00000000-0x01ffffff 64bit pref]\n"
      "[    1.000400] pci 0000:3b:00.0: reg 0x30: [mem 0x00000000-0x0007ffff pref]\n"
      "[    2.000000] pci 0000:3b:00.0: BAR 0: assigned [mem 0x9c000000-0x9cffffff]\n"
      "[    2.000100] pci 0000:3b:00.0: BAR 1: no space for [mem size 0x2000000000 64bit pref]\n"
      "[    2.000200] pci 0000:3b:00.0: BAR 1: failed to assign [mem size 0x2000000000 64bit "
      "pref]\n"
      "[    2.000300] pci 0000:3b:00.0: BAR 3: assigned [mem 0xa0000000-0xa1ffffff 64bit pref]\n");
  const vmxkit::pci::Device* gpu = host.find(Bdf{0, 0x3b, 0, 0});
  REQUIRE(gpu != nullptr);
  REQUIRE(gpu->kernel_bars.size() == 3);  // BAR0, BAR1, BAR3; not the ROM (reg 0x30)
  CHECK(gpu->kernel_bars[1].index == 1);
  CHECK(gpu->kernel_bars[1].size == std::uint64_t{128} << 30);
  REQUIRE(gpu->unassigned_bars.size() == 1);  // `no space` and `failed to assign`: one failure
  CHECK(gpu->unassigned_bars[0].index == 1);
  CHECK(gpu->unassigned_bars[0].size == std::uint64_t{128} << 30);
  CHECK(gpu->unassigned_bars[0].where.line == 7);

  const auto r = vmxkit::pci::size_64bit_mmio(host, {Bdf{0, 0x3b, 0, 0}});
  CHECK(r.size_gb == 256);
  REQUIRE(r.unassigned.size() == 1);
  CHECK(r.unassigned[0].bar.index == 1);
  CHECK(r.unassigned[0].bar.where.line == 7);
  CHECK(r.unassigned[0].device.starts_with("0000:3b:00.0"));
}

TEST_CASE("the 6.8+ wording of a BAR without space, as a Tesla M40 without Above 4G shows it",
          "[pci][dmesg]") {
  // The two `can't assign; no space` lines as posted for a Tesla M40 (10de:17fd) on a board
  // without Above 4G Decoding; setup-res.c since 6.8: `%s %pR: can't assign; no space`.
  const auto host = host_of(
      "pci 0000:01:00.0: [10de:17fd] type 00 class 0x030200 PCIe Legacy Endpoint\n"
      "pci 0000:01:00.0: BAR 1 [mem size 0x400000000 64bit pref]: can't assign; no space\n"
      "pci 0000:01:00.0: BAR 1 [mem size 0x400000000 64bit pref]: failed to assign\n"
      "pci 0000:01:00.0: BAR 3 [mem size 0x02000000 64bit pref]: can't assign; no space\n");
  const vmxkit::pci::Device* gpu = host.find(Bdf{0, 1, 0, 0});
  REQUIRE(gpu != nullptr);
  REQUIRE(gpu->unassigned_bars.size() == 2);
  CHECK(gpu->unassigned_bars[0].size == std::uint64_t{16} << 30);
  CHECK(gpu->unassigned_bars[1].index == 3);
  // The failure lines carry the sizes: the window is still sized from them.
  const auto r = vmxkit::pci::size_64bit_mmio(host, {Bdf{0, 1, 0, 0}});
  CHECK(r.size_gb == 32);
  CHECK(r.unassigned.size() == 2);
}

TEST_CASE("lspci's Region lines win over the kernel log's ranges for one device", "[pci][dmesg]") {
  vmxkit::pci::Host host;
  vmxkit::pci::load_text(host,
                         "pci 0000:3b:00.0: [10de:2331] type 00 class 0x030200\n"
                         "pci 0000:3b:00.0: BAR 1 [mem 0x00000000-0x0fffffffff 64bit pref]\n",
                         "k.txt");
  vmxkit::pci::load_text(
      host,
      "0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
      "\tRegion 1: Memory at 52000000000 (64-bit, prefetchable) [size=128G]\n",
      "l.txt");
  host.finalize();
  const auto r = vmxkit::pci::size_64bit_mmio(host, {Bdf{0, 0x3b, 0, 0}});
  REQUIRE(r.bars.size() == 1);
  CHECK(r.bars[0].size == std::uint64_t{128} << 30);
  CHECK(r.bars[0].source == "lspci l.txt:2");
}

TEST_CASE("a kernel log without pci lines warns that it named no device", "[pci][dmesg]") {
  const auto host = host_of("[    0.000000] Linux version 6.8.0\n[    0.1] Command line: ro\n");
  CHECK(host.devices().empty());
  REQUIRE(host.warnings().size() == 1);
  CHECK(host.warnings()[0].message.find("without `pci 0000:...` lines") != std::string::npos);
}
