// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/vgpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "vmxkit/core/embedded.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"

namespace vmxkit {
extern const EmbeddedFile kVgpuTypes[];
extern const std::size_t kVgpuTypes_count;
}  // namespace vmxkit

namespace vmxkit::devices {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// A run of 1 to 7 digits as a number (7 digits cannot overflow `unsigned`).
std::optional<unsigned> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 7) return std::nullopt;
  unsigned n = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return n;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

// "48q" -> 48, "q"; nullopt unless digits, then one to three lowercase letters ("5cme": a MIG
// type with the media engines), then at most one digit ("1b4": four displays).
std::optional<std::pair<unsigned, std::string>> framebuffer_and_series(std::string_view last) {
  std::size_t digits = 0;
  while (digits < last.size() && is_digit(last[digits])) ++digits;
  std::string_view series = last.substr(digits);
  const auto fb = small_number(last.substr(0, digits));
  std::size_t letters = 0;
  while (letters < series.size() && is_lower(series[letters])) ++letters;
  const std::string_view tail = series.substr(letters);
  const bool media = series.substr(0, letters) == "cme";
  if (!fb || letters == 0 || (letters > 2 && !media) || tail.size() > 1 ||
      (!tail.empty() && !is_digit(tail[0]))) {
    return std::nullopt;
  }
  return std::pair(*fb, std::string(series));
}

// Levenshtein distance, for the nearest names (short strings).
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// A name without its `grid_` or `nvidia_` prefix: the part that says board and type.
std::string_view without_prefix(std::string_view name) {
  const std::size_t underscore = name.find('_');
  return underscore == std::string_view::npos ? name : name.substr(underscore + 1);
}

// The names of `candidates` closest to `name` (board and type; the prefix counts little), at
// most three, nearest first.
std::vector<std::string> nearest_of(std::string_view name,
                                    const std::vector<const VgpuType*>& candidates) {
  std::vector<std::pair<std::size_t, const VgpuType*>> scored;
  scored.reserve(candidates.size());
  for (const VgpuType* t : candidates) {
    scored.emplace_back(distance(without_prefix(name), without_prefix(t->profile)), t);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second->profile);
  return out;
}

Tri parse_tri(std::string_view s) {
  if (s == "yes") return Tri::yes;
  if (s == "no") return Tri::no;
  return Tri::unknown;
}

NameBasis parse_basis(std::string_view s) {
  if (s == "direct") return NameBasis::direct;
  if (s == "rule") return NameBasis::rule;
  if (s == "inferred") return NameBasis::inferred;
  return NameBasis::unknown;
}

VgpuType parse_row(const std::vector<std::string_view>& f, const std::string& where) {
  VgpuType t;
  t.profile = std::string(f[0]);
  t.type_name = std::string(f[1]);
  t.board = std::string(f[2]);
  for (const std::string_view id : split_any(f[3], ",")) {
    const auto hex = id.size() == 9 && id.starts_with("10de:") ? parse_hex(id.substr(5))
                                                               : std::optional<std::uint64_t>();
    if (!hex) throw Error(where, fmt::format("gpu_ids: expected 10de:dddd, got '{}'", id));
    t.device_ids.push_back(static_cast<std::uint16_t>(*hex));
  }
  const auto fb = small_number(f[4]);
  if (!fb || *fb == 0) throw Error(where, "framebuffer_mb: expected a number");
  t.framebuffer_mb = *fb;
  if (f[5].size() != 1) throw Error(where, "series: expected one letter");
  t.series = f[5][0];
  t.max_per_gpu = small_number(f[6]).value_or(0);
  t.mig_slices = small_number(f[7]).value_or(0);
  t.nvlink_p2p = parse_tri(f[8]);
  t.name_basis = parse_basis(f[10]);
  t.source = std::string(f[11]);
  if (!parse_vgpu_profile(t.profile)) {
    throw Error(where, fmt::format("profile '{}' is not in NVIDIA's form", t.profile));
  }
  return t;
}

}  // namespace

// By hand, not with std::regex: libstdc++'s matcher recurses per character and overflows the
// stack on a value of a few megabytes.
std::optional<VgpuProfile> parse_vgpu_profile(std::string_view name) {
  VgpuProfile p;
  for (const std::string_view prefix : {"grid_", "nvidia_"}) {
    if (name.starts_with(prefix)) {
      p.prefix = std::string(prefix.substr(0, prefix.size() - 1));
      name.remove_prefix(prefix.size());
    }
  }
  if (p.prefix.empty()) return std::nullopt;
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dash = name.find('-', start);
    parts.push_back(name.substr(start, dash == std::string_view::npos ? dash : dash - start));
    if (dash == std::string_view::npos) break;
    start = dash + 1;
  }
  if (parts.size() < 2 || parts.size() > 4) return std::nullopt;
  const auto last = framebuffer_and_series(parts.back());
  if (!last) return std::nullopt;
  std::size_t board_parts = parts.size() - 1;
  if (parts.size() >= 3 && all_digits(parts[parts.size() - 2])) {
    p.slices = *small_number(parts[parts.size() - 2]);
    --board_parts;
  }
  for (std::size_t i = 0; i < board_parts; ++i) {
    // "a100", "rtx6000-ada": lowercase letters and digits; a part after the first has a letter.
    if (parts[i].empty() || (i > 0 && all_digits(parts[i]))) return std::nullopt;
    for (const char c : parts[i]) {
      if (!is_digit(c) && !is_lower(c)) return std::nullopt;
    }
    if (i > 0) p.board += '-';
    p.board += parts[i];
  }
  p.framebuffer_gb = last->first;
  p.series = last->second;
  return p;
}

const VgpuTable& VgpuTable::builtin() {
  static const VgpuTable kTable = [] {
    VgpuTable t;
    for (std::size_t i = 0; i < kVgpuTypes_count; ++i) {
      VgpuTable part = parse(kVgpuTypes[i].data, std::string(kVgpuTypes[i].name));
      t.types_.insert(t.types_.end(), part.types_.begin(), part.types_.end());
    }
    return t;
  }();
  return kTable;
}

VgpuTable VgpuTable::parse(std::string_view text, const std::string& path) {
  VgpuTable t;
  std::uint32_t line_no = 0;
  for (const std::string_view line : LineRange(text)) {
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      const std::size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    const std::string where = fmt::format("{}:{}", path, line_no);
    if (fields.size() != 12) throw Error(where, "expected 12 tab-separated columns");
    t.types_.push_back(parse_row(fields, where));
  }
  return t;
}

VgpuLookup VgpuTable::lookup(std::string_view name) const {
  // Longer than any real name: no nearest names (their distance costs the product of lengths).
  constexpr std::size_t kLongestName = 64;
  VgpuLookup out;
  out.parts = parse_vgpu_profile(name);
  if (name.size() > kLongestName) {
    out.match = out.parts ? VgpuMatch::unknown_board : VgpuMatch::malformed;
    return out;
  }
  std::vector<const VgpuType*> all;
  all.reserve(types_.size());
  for (const VgpuType& t : types_) all.push_back(&t);
  if (!out.parts) {
    out.match = VgpuMatch::malformed;
    // `grid_H100-80C`: the name in lower case may be a real one (or one with the other prefix).
    const std::string lower = ascii_lowercase(name);
    if (lower != name) {
      const VgpuLookup again = lookup(lower);
      if (again.type != nullptr) {
        out.nearest = {again.type->profile};
        return out;
      }
    }
    out.nearest = nearest_of(lower, all);
    return out;
  }
  const std::string rest(name.substr(out.parts->prefix.size() + 1));
  std::vector<const VgpuType*> same_board;
  for (const VgpuType& t : types_) {
    if (t.profile == name) {
      out.match = VgpuMatch::known;
      out.type = &t;
      return out;
    }
    if (t.board == out.parts->board) same_board.push_back(&t);
  }
  for (const VgpuType* t : same_board) {
    if (t->profile.substr(t->profile.find('_') + 1) != rest) continue;
    const bool prefix_sure = t->name_basis == NameBasis::direct || t->name_basis == NameBasis::rule;
    out.match = prefix_sure ? VgpuMatch::wrong_prefix : VgpuMatch::known;
    out.type = t;
    if (prefix_sure) out.nearest = {t->profile};
    return out;
  }
  out.match = same_board.empty() ? VgpuMatch::unknown_board : VgpuMatch::unknown_type;
  out.nearest = nearest_of(name, same_board.empty() ? all : same_board);
  return out;
}

std::vector<const VgpuType*> VgpuTable::types_for_device(std::uint16_t device_id) const {
  std::vector<const VgpuType*> out;
  for (const VgpuType& t : types_) {
    if (std::find(t.device_ids.begin(), t.device_ids.end(), device_id) != t.device_ids.end()) {
      out.push_back(&t);
    }
  }
  return out;
}

std::vector<const VgpuType*> VgpuTable::offered(const std::vector<std::uint16_t>& device_ids,
                                                char series) const {
  std::vector<const VgpuType*> out;
  for (const VgpuType& t : types_) {
    if (t.series != series) continue;
    const bool on_board = std::any_of(device_ids.begin(), device_ids.end(), [&](std::uint16_t id) {
      return std::find(t.device_ids.begin(), t.device_ids.end(), id) != t.device_ids.end();
    });
    if (on_board) out.push_back(&t);
  }
  std::stable_sort(out.begin(), out.end(), [](const VgpuType* a, const VgpuType* b) {
    if ((a->mig_slices == 0) != (b->mig_slices == 0)) return a->mig_slices == 0;
    return a->framebuffer_mb > b->framebuffer_mb;
  });
  return out;
}

bool VgpuTable::knows_board(std::string_view board) const {
  return std::any_of(types_.begin(), types_.end(),
                     [&](const VgpuType& t) { return t.board == board; });
}

}  // namespace vmxkit::devices
