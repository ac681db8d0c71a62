// SPDX-License-Identifier: Apache-2.0
// GPUs whose NVLink the host's PCI inputs cannot show: the catalogue says their model takes an
// NVLink bridge or sits on an NVLink baseboard, and no `nvidia-smi topo -m` covers them. Data
// for one note per model on a host; report/ writes its prose.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/devices/catalog.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {

/// GPUs of one catalogue model whose GPU<->GPU verdicts are PCIe-only although NVLink may join
/// them. Never changes a verdict: a bridge is possible, not known.
struct NvlinkNote {
  const CatalogEntry* model = nullptr;  ///< the catalogue row of the GPUs (never null)
  /// bridge: a PCIe board that takes an NVLink bridge (model->nvlink_bridge_gpus, when sourced,
  /// the most boards one bridge set joins); baseboard: NVLink/NVSwitch on an SXM/OAM baseboard.
  NvlinkSupport kind = NvlinkSupport::unknown;
  std::vector<std::size_t> gpus;  ///< device indices of the host, in PCI address order
  /// The row's NVLink source: its source text from `NVLink:` to the next field (`; GDR: ...`).
  std::string source;
};

/// The notes for `gpus` (device indices of `host`): per catalogue model (the model's name, its
/// nvlink value and its NVLink source: two ids of one board are one model) whose nvlink is
/// bridge/bridge:N or baseboard, its GPUs that no `nvidia-smi topo -m` of the host covers (not
/// matched to a label: no matrix, or one whose GPU count differs), when there are at least two
/// of them (one GPU has no GPU<->GPU verdict). In the order of each model's first GPU.
std::vector<NvlinkNote> nvlink_notes(const Host& host, std::span<const std::size_t> gpus);

/// The part of a catalogue source text that names the NVLink source: from `NVLink:` up to the
/// next `; ` (outside parentheses) that starts another field (`GDR: `); empty when it has none.
std::string_view nvlink_source(std::string_view source);

}  // namespace vmxkit::pci
