// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "vmxkit/core/embedded.h"
#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/core/text.h"

namespace vmxkit {
extern const EmbeddedFile kPciCatalogFiles[];
extern const std::size_t kPciCatalogFiles_count;
}  // namespace vmxkit

namespace vmxkit::pci {
namespace {

constexpr std::size_t kColumns = 12;
// The columns before `nvlink` was added after `gdr`: such a line is still read (nvlink -).
constexpr std::size_t kColumnsWithoutNvlink = 11;
constexpr std::size_t kNvlinkColumn = 9;
// The most boards one NVLink bridge set joins that the column accepts (NVIDIA's largest is 4).
constexpr unsigned kMaxNvlinkBridgeGpus = 8;

// A field that does not parse: which one (0-based) and why.
struct FieldError : std::invalid_argument {
  FieldError(std::size_t index, const std::string& message)
      : std::invalid_argument(message), field(index) {}
  std::size_t field;
};

Role parse_role(std::string_view text) {
  if (text == "gpu") return Role::gpu;
  if (text == "rdma-nic") return Role::rdma_nic;
  if (text == "nic-vf") return Role::nic_vf;
  if (text == "nic") return Role::nic;
  if (text == "bridge") return Role::bridge;
  if (text == "other") return Role::other;
  throw FieldError(3, "role must be gpu, rdma-nic, nic-vf, nic, bridge or other");
}

std::optional<std::uint16_t> parse_id_field(std::string_view text, std::size_t field) {
  if (text == "-") return std::nullopt;
  const auto v = parse_hex(text);
  if (!v || *v > 0xffff || text.size() > 4) throw FieldError(field, "expected a hex id");
  return static_cast<std::uint16_t>(*v);
}

// A BAR size: lspci's form, at most kMaxBarBytes.
std::optional<std::uint64_t> parse_bar_size(std::string_view text) {
  const auto size = parse_size(text);
  if (!size || *size == 0 || *size > kMaxBarBytes) return std::nullopt;
  return size;
}

// The other 64-bit BARs: "3:32M,5:16M".
std::vector<Bar> parse_other_bars(std::string_view text) {
  std::vector<Bar> bars;
  for (std::string_view item : split_any(text, ",")) {
    const auto c = item.find(':');
    const auto index = parse_decimal(item.substr(0, c));
    const auto size =
        c == std::string_view::npos ? std::nullopt : parse_bar_size(item.substr(c + 1));
    if (!index || !size || *index > 5) {
      throw FieldError(7, fmt::format("bars must be like 3:32M,5:16M (sizes at most {})",
                                      format_size(kMaxBarBytes)));
    }
    Bar bar;
    bar.index = static_cast<int>(*index);
    bar.size = size;
    bar.is_64bit = true;
    bar.prefetchable = true;
    bars.push_back(bar);
  }
  return bars;
}

// The nvlink column: no, bridge, bridge:N (N boards, 2 to 8, joined by one bridge set),
// baseboard, or - (unknown; `unknown` is read as it is for gdr).
void parse_nvlink(std::string_view text, CatalogEntry& e) {
  if (text == "-" || text == "unknown") return;
  if (text == "no") {
    e.nvlink = NvlinkSupport::no;
  } else if (text == "baseboard") {
    e.nvlink = NvlinkSupport::baseboard;
  } else if (text == "bridge") {
    e.nvlink = NvlinkSupport::bridge;
  } else if (text.substr(0, 7) == "bridge:") {
    const auto n = parse_decimal(text.substr(7));
    if (!n || *n < 2 || *n > kMaxNvlinkBridgeGpus) {
      throw FieldError(9, fmt::format("nvlink bridge:N takes a number of boards from 2 to {}",
                                      kMaxNvlinkBridgeGpus));
    }
    e.nvlink = NvlinkSupport::bridge;
    e.nvlink_bridge_gpus = static_cast<unsigned>(*n);
  } else {
    throw FieldError(9, "nvlink must be no, bridge, bridge:N, baseboard or -");
  }
}

CatalogEntry parse_entry(const std::vector<std::string_view>& f) {
  CatalogEntry e;
  const auto colon = f[0].find(':');
  if (colon == std::string_view::npos) throw FieldError(0, "id must be vvvv:dddd");
  const auto vendor = parse_id_field(f[0].substr(0, colon), 0);
  const auto device = parse_id_field(f[0].substr(colon + 1), 0);
  if (!vendor || !device) throw FieldError(0, "id must be vvvv:dddd");
  e.vendor_id = *vendor;
  e.device_id = *device;
  if (f[1] != "-") e.alias = std::string(f[1]);
  e.model = std::string(f[2]);
  e.role = parse_role(f[3]);
  if (f[4] != "-") e.lspci_name = std::string(f[4]);
  if (f[5] != "-") {
    const auto fb = parse_decimal(f[5]);
    if (!fb) throw FieldError(5, "framebuffer_gb must be a number or -");
    if (*fb > kMaxFramebufferGb) {
      throw FieldError(5, fmt::format("framebuffer_gb {} is above {} (16 TiB): not a GPU's", f[5],
                                      kMaxFramebufferGb));
    }
    e.framebuffer_gb = static_cast<unsigned>(*fb);
  }
  if (f[6] != "-") {
    e.bar1_bytes = parse_bar_size(f[6]);
    if (!e.bar1_bytes) {
      throw FieldError(6, fmt::format("bar1 must be a size like 64G (at most {}) or -",
                                      format_size(kMaxBarBytes)));
    }
  }
  if (f[7] != "-") e.other_bars = parse_other_bars(f[7]);
  if (f[8] == "yes") {
    e.gdr = GdrSupport::yes;
  } else if (f[8] == "no") {
    e.gdr = GdrSupport::no;
  } else if (f[8] != "unknown" && f[8] != "-") {
    throw FieldError(8, "gdr must be yes, no or unknown");
  }
  parse_nvlink(f[9], e);
  e.vf_device_id = parse_id_field(f[10], 10);
  e.source = std::string(f[11]);
  return e;
}

}  // namespace

std::string_view to_string(GdrSupport gdr) {
  switch (gdr) {
    case GdrSupport::yes:
      return "yes";
    case GdrSupport::no:
      return "no";
    case GdrSupport::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view to_string(NvlinkSupport nvlink) {
  switch (nvlink) {
    case NvlinkSupport::no:
      return "no";
    case NvlinkSupport::bridge:
      return "bridge";
    case NvlinkSupport::baseboard:
      return "baseboard";
    case NvlinkSupport::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string CatalogEntry::id_string() const {
  return fmt::format("{:04x}:{:04x}", vendor_id, device_id);
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t mult = 1;
  switch (text.back()) {
    case 'K':
      mult = std::uint64_t{1} << 10;
      break;
    case 'M':
      mult = std::uint64_t{1} << 20;
      break;
    case 'G':
      mult = std::uint64_t{1} << 30;
      break;
    case 'T':
      mult = std::uint64_t{1} << 40;
      break;
    default:
      break;
  }
  if (mult != 1) text.remove_suffix(1);
  const auto n = parse_decimal(text);
  if (!n || *n > (~std::uint64_t{0}) / mult) return std::nullopt;
  return *n * mult;
}

std::string format_size(std::uint64_t bytes) {
  static constexpr std::string_view kSuffix[] = {"", "K", "M", "G", "T"};
  std::size_t i = 0;
  while (i + 1 < std::size(kSuffix) && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return fmt::format("{}{}", bytes, kSuffix[i]);
}

Catalog Catalog::parse(std::string_view text, const std::string& path) {
  Catalog catalog;
  std::uint32_t line_no = 0;
  for (std::string_view line : LineRange(text)) {
    ++line_no;
    if (line.empty() || line.front() == '#' || trim(line).empty()) continue;
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    std::vector<std::uint32_t> columns;
    for (;;) {
      const auto tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      columns.push_back(static_cast<std::uint32_t>(start + 1));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (fields.size() == kColumnsWithoutNvlink) {
      // Errors never point at the `-` put in; the vf_id's column keeps its place.
      const std::uint32_t vf_id_column = columns[kNvlinkColumn];
      fields.insert(fields.begin() + kNvlinkColumn, "-");
      columns.insert(columns.begin() + kNvlinkColumn, vf_id_column);
    }
    if (fields.size() != kColumns) {
      throw Error(path, line_no, 1,
                  fmt::format("expected {} tab-separated columns (id alias model role lspci_name "
                              "framebuffer_gb bar1 other_64bit_bars gdr nvlink vf_id source; or "
                              "the {} without nvlink), found {}",
                              kColumns, kColumnsWithoutNvlink, fields.size()));
    }
    try {
      CatalogEntry entry = parse_entry(fields);
      entry.origin = path == "built-in" ? path : fmt::format("{}:{}", path, line_no);
      catalog.entries_.push_back(std::move(entry));
    } catch (const FieldError& e) {
      throw Error(path, line_no, columns[e.field], e.what());
    }
  }
  return catalog;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    Catalog c;
    for (std::size_t i = 0; i < kPciCatalogFiles_count; ++i) {
      c.merge(parse(kPciCatalogFiles[i].data, "built-in"));
    }
    return c;
  }();
  return catalog;
}

void Catalog::merge(const Catalog& overrides) {
  for (const CatalogEntry& e : overrides.entries_) {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const CatalogEntry& x) {
      return x.vendor_id == e.vendor_id && x.device_id == e.device_id;
    });
    if (it != entries_.end()) {
      *it = e;
    } else {
      entries_.push_back(e);
    }
  }
}

const CatalogEntry* Catalog::find(std::uint16_t vendor_id, std::uint16_t device_id) const {
  for (const CatalogEntry& e : entries_) {
    if (e.vendor_id == vendor_id && e.device_id == device_id) return &e;
  }
  return nullptr;
}

const CatalogEntry* Catalog::find_name(std::string_view lspci_name) const {
  for (const CatalogEntry& e : entries_) {
    if (e.lspci_name.empty()) continue;
    const std::string_view vendor = vendor_name(e.vendor_id);
    if (vendor.empty()) continue;
    if (lspci_name.size() <= vendor.size() + 1 || lspci_name.substr(0, vendor.size()) != vendor ||
        lspci_name[vendor.size()] != ' ') {
      continue;
    }
    const std::string_view device = lspci_name.substr(vendor.size() + 1);
    std::string_view names = e.lspci_name;
    for (;;) {
      const auto bar = names.find(" | ");
      if (names.substr(0, bar) == device) return &e;
      if (bar == std::string_view::npos) break;
      names.remove_prefix(bar + 3);
    }
  }
  return nullptr;
}

const CatalogEntry* Catalog::find_alias(std::string_view alias) const {
  for (const CatalogEntry& e : entries_) {
    if (!e.alias.empty() && iequals(e.alias, alias)) return &e;
  }
  const auto colon = alias.find(':');
  if (colon != std::string_view::npos && alias.size() == 9) {
    const auto v = parse_hex(alias.substr(0, colon));
    const auto d = parse_hex(alias.substr(colon + 1));
    if (v && d) return find(static_cast<std::uint16_t>(*v), static_cast<std::uint16_t>(*d));
  }
  return nullptr;
}

Catalog catalog_with(const std::vector<std::string>& user_files) {
  Catalog c = Catalog::builtin();
  for (const std::string& f : user_files) c.merge(Catalog::parse(read_file(f), f));
  return c;
}

std::string_view Catalog::vendor_name(std::uint16_t vendor_id) {
  switch (vendor_id) {
    case 0x10de:
      return "NVIDIA Corporation";
    case 0x15b3:
      return "Mellanox Technologies";
    case 0x1000:
      return "Broadcom / LSI";
    case 0x10b5:
      return "PLX Technology, Inc.";
    case 0x104c:
      return "Texas Instruments";
    default:
      return {};
  }
}

}  // namespace vmxkit::pci
