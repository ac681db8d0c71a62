// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/analysis/nvlink_note.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace vmxkit::pci {
namespace {

// Whether `field` (a part of a source text between `; `) starts with a tag: letters, digits
// and `+` up to a colon ("GDR:", "vGPU+NVLink:"). The tag, else empty.
std::string_view field_tag(std::string_view field) {
  std::size_t i = 0;
  while (i < field.size() &&
         (std::isalnum(static_cast<unsigned char>(field[i])) != 0 || field[i] == '+')) {
    ++i;
  }
  if (i == 0 || i >= field.size() || field[i] != ':') return {};
  return field.substr(0, i);
}

// The parts of a source text between the `; ` that stand outside parentheses.
std::vector<std::string_view> source_fields(std::string_view source) {
  std::vector<std::string_view> fields;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '(') ++depth;
    if (source[i] == ')' && depth > 0) --depth;
    if (depth == 0 && source.compare(i, 2, "; ") == 0) {
      fields.push_back(source.substr(start, i - start));
      start = i + 2;
    }
  }
  fields.push_back(source.substr(start));
  return fields;
}

bool noted(NvlinkSupport nvlink) {
  return nvlink == NvlinkSupport::bridge || nvlink == NvlinkSupport::baseboard;
}

}  // namespace

std::string_view nvlink_source(std::string_view source) {
  const std::vector<std::string_view> fields = source_fields(source);
  const auto first = std::find_if(fields.begin(), fields.end(), [](std::string_view f) {
    return field_tag(f).ends_with("NVLink");
  });
  if (first == fields.end()) return {};
  // Untagged fields after it continue it ("NVLink: A; B; GDR: C" gives "NVLink: A; B").
  auto last = first;
  while (last + 1 != fields.end() && field_tag(*(last + 1)).empty()) ++last;
  const auto begin = static_cast<std::size_t>(first->data() - source.data());
  const std::size_t end = static_cast<std::size_t>(last->data() - source.data()) + last->size();
  return source.substr(begin, end - begin);
}

std::vector<NvlinkNote> nvlink_notes(const Host& host, std::span<const std::size_t> gpus) {
  std::vector<NvlinkNote> notes;
  for (const std::size_t g : gpus) {
    const Device& d = host.at(g);
    if (d.role != Role::gpu || !d.model || !noted(d.model->nvlink) || host.smi_label(g)) continue;
    const std::string_view source = nvlink_source(d.model->source);
    // One model: the same board under two ids (A100 PCIe 40GB) shares name, value and source.
    const auto key = [](const CatalogEntry& e, std::string_view src) {
      return std::make_tuple(std::string_view(e.model), e.nvlink, e.nvlink_bridge_gpus, src);
    };
    auto it = std::find_if(notes.begin(), notes.end(), [&](const NvlinkNote& n) {
      return key(*n.model, n.source) == key(*d.model, source);
    });
    if (it == notes.end()) {
      notes.push_back(NvlinkNote{d.model, d.model->nvlink, {}, std::string(source)});
      it = notes.end() - 1;
    }
    it->gpus.push_back(g);
  }
  std::erase_if(notes, [](const NvlinkNote& n) { return n.gpus.size() < 2; });
  for (NvlinkNote& n : notes) {
    std::sort(n.gpus.begin(), n.gpus.end(),
              [&](std::size_t a, std::size_t b) { return host.at(a).bdf < host.at(b).bdf; });
  }
  return notes;
}

}  // namespace vmxkit::pci
