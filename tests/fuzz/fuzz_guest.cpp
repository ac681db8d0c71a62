// SPDX-License-Identifier: Apache-2.0
// Guest-input fuzzer for guest::Guest::load_text (lspci, lsmod, /proc/cmdline, nvidia-smi,
// ibv_devinfo, uname -r, module versions, ... in one file after shell prompt lines, kinds
// detected by content): any bytes either load, finalize and run every guest check and NCCL's
// view, or throw vmxkit::Error; no crash, leak, sanitizer report or other exception.
#include <cstdint>
#include <string>
#include <string_view>

#include "vmxkit/analysis/nccl_view.h"
#include "vmxkit/checks/guest_context.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/guest/load.h"
#include "vmxkit/model/guest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    vmxkit::guest::Guest g;
    load_text(g, text, "fuzz");
    g.finalize();
    for (const vmxkit::checks::Finding& f : vmxkit::checks::check_guest(g)) {
      (void)f.check->id;
      (void)f.where.path.size();
    }
    for (const vmxkit::guest::NcclPair& p : vmxkit::guest::nccl_view(g)) {
      if (p.gpu_index) (void)g.pci().describe(*p.gpu_index);
    }
  } catch (const vmxkit::Error&) {
  }
  return 0;
}
