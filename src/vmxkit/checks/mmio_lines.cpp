// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/mmio_lines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>

#include "vmxkit/devices/catalog.h"

namespace vmxkit::checks {
namespace {

constexpr std::uint64_t kOneGiB = std::uint64_t{1} << 30;

std::string gib_text(std::uint64_t bytes) {
  if (bytes % kOneGiB == 0) return fmt::format("{} GiB", bytes / kOneGiB);
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / static_cast<double>(kOneGiB));
}

}  // namespace

std::string mmio_line(const pci::MmioResult& result, const pci::MmioStep& step) {
  using Step = pci::MmioStepKind;
  switch (step.kind) {
    case Step::bar: {
      const pci::MmioBar& b = result.bars[step.index];
      return fmt::format("{:>6} at +{:<8} {:<5} {}  [{}]", pci::format_size(b.size),
                         pci::format_size(b.offset), b.bar, b.device, b.source);
    }
    case Step::total:
      return fmt::format("total {} ({} bytes), packed with natural alignment",
                         gib_text(result.total_bytes), result.total_bytes);
    case Step::bars_size:
      return fmt::format("BARs: 64bitMMIOSizeGB = {} (the power of two >= {} GiB)", step.gb,
                         step.value);
    case Step::kb_rule:
      return fmt::format("KB 323402: 2 x {} GB total framebuffer = {} -> {}", step.value,
                         2 * step.value, step.gb);
    case Step::kb_unknown:
      return "KB 323402: not computed (framebuffer of a GPU not known)";
    case Step::kb_applies:
      return fmt::format("BAR sizes not known for {}: KB 323402 rule applies", step.text);
    case Step::unknown_gpu_floor:
      return fmt::format(
          "at least {} GB for {}: NVIDIA GPU BARs unknown; {} GB is the smallest window NVIDIA "
          "lists for a data-center GPU",
          step.gb, fmt::join(result.unknown_gpus, ", "), step.gb);
    case Step::result:
      return fmt::format("=> pciPassthru.64bitMMIOSizeGB = {}", step.gb);
    case Step::not_counted:
      return fmt::format("not counted: {} (BAR sizes unknown; give the host's lspci -vvv)",
                         step.text);
    case Step::below_4g:
      return fmt::format("below 4 GiB, not counted: {}", step.text);
    case Step::unassigned:
      return unassigned_text(result.unassigned[step.index]);
    case Step::minimum_reason:
      return step.text;
    case Step::minimum:
      return fmt::format(
          "=> pciPassthru.64bitMMIOSizeGB = {} (NVIDIA's minimum for a vGPU VM with 32 GB or "
          "more of memory)",
          step.gb);
  }
  return {};
}

std::string unassigned_text(const pci::MmioUnassigned& u) {
  return fmt::format(
      "dmesg {}: the kernel found no space for BAR{} ({}{}) of {}: in a VM the classic sign of "
      "pciPassthru.64bitMMIOSizeGB too small for the passthrough BARs (or 64-bit MMIO off); on "
      "bare metal, of Above 4G Decoding off in the firmware",
      u.bar.where.to_string(), u.bar.index, pci::format_size(u.bar.size),
      u.bar.is_64bit ? ", 64-bit" : "", u.device);
}

std::vector<std::string> mmio_lines(const pci::MmioResult& result) {
  std::vector<std::string> out;
  out.reserve(result.steps.size());
  for (const pci::MmioStep& step : result.steps) out.push_back(mmio_line(result, step));
  return out;
}

}  // namespace vmxkit::checks
