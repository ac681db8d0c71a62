// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/text_edit.h"

#include <algorithm>
#include <numeric>

#include "vmxkit/core/error.h"

namespace vmxkit {
namespace {

std::vector<std::size_t> sorted_order(std::span<const TextEdit> edits) {
  std::vector<std::size_t> order(edits.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return edits[a].begin < edits[b].begin; });
  return order;
}

bool disjoint_in_order(std::span<const TextEdit> edits, const std::vector<std::size_t>& order) {
  std::size_t covered_to = 0;
  for (std::size_t i : order) {
    const TextEdit& e = edits[i];
    if (e.begin < covered_to) return false;
    covered_to = std::max(covered_to, e.end);
  }
  return true;
}

}  // namespace

bool edits_are_disjoint(std::span<const TextEdit> edits) {
  return disjoint_in_order(edits, sorted_order(edits));
}

std::string apply_edits(std::string_view text, std::span<const TextEdit> edits) {
  const auto order = sorted_order(edits);
  for (const TextEdit& e : edits) {
    if (e.begin > e.end || e.end > text.size()) throw Error("internal: text edit out of range");
  }
  if (!disjoint_in_order(edits, order)) throw Error("internal: overlapping text edits");
  std::string out;
  std::size_t growth = 0;
  for (const TextEdit& e : edits) growth += e.replacement.size();
  out.reserve(text.size() + growth);
  std::size_t pos = 0;
  for (std::size_t i : order) {
    const TextEdit& e = edits[i];
    out.append(text.substr(pos, e.begin - pos));
    out.append(e.replacement);
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace vmxkit
