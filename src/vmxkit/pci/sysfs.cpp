// SPDX-License-Identifier: Apache-2.0
// A sysfs tree laid out like /sys/bus/pci/devices: one entry per BDF with class, vendor, device,
// numa_node, resource, config, driver, iommu_group, sriov_* and infiniband/.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "vmxkit/core/error.h"
#include "vmxkit/pci/config_space.h"
#include "vmxkit/pci/host.h"
#include "vmxkit/pci/text.h"

namespace vmxkit::pci {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_small(const fs::path& p, std::size_t max = 1 << 16) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data(max, '\0');
  in.read(data.data(), static_cast<std::streamsize>(max));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

std::optional<std::uint64_t> read_number(const fs::path& p) {
  const auto text = read_small(p, 64);
  if (!text) return std::nullopt;
  return parse_c_number(trim(*text).substr(0, trim(*text).find('\n')));
}

std::string link_basename(const fs::path& p) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(p, ec);
  return ec ? std::string() : target.filename().string();
}

// "16.0 GT/s PCIe" -> "16GT/s"
std::string speed_text(std::string_view s) {
  s = trim(s);
  std::string_view num = s.substr(0, s.find(' '));
  if (num.size() > 2 && num.substr(num.size() - 2) == ".0") num.remove_suffix(2);
  return std::string(num) + "GT/s";
}

// The entry's real path shows the tree (.../pci0000:00/0000:00:01.0/0000:01:00.0): decides
// whether its parent is a bridge or a root bus, and names that root bus.
void place_by_real_path(Host& host, Device& d, const fs::path& p) {
  std::error_code ec;
  const fs::path real = fs::canonical(p, ec);
  if (ec) return;
  const std::string up = real.parent_path().filename().string();
  if (const auto parent = parse_bdf(up)) {
    d.given_parent = parent;
  } else if (up.rfind("pci", 0) == 0) {
    const auto colon = up.find(':');
    const auto dom = parse_hex(up.substr(3, colon - 3));
    const auto bus = colon == std::string::npos ? std::nullopt : parse_hex(up.substr(colon + 1));
    if (dom && bus && *dom <= 0xffff && *bus <= 0xff) {
      d.given_on_root_bus = true;
      host.add_root(static_cast<std::uint16_t>(*dom), static_cast<std::uint8_t>(*bus));
    }
  }
}

// The config space (capabilities), then the ids, class and NUMA node, whose files win over
// what the config space said.
void read_identity(Device& d, const fs::path& p) {
  if (const auto cfg = read_small(p / "config", 4096)) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(cfg->data());
    decode_config_space(std::span(data, cfg->size()), d);
  }
  if (const auto v = read_number(p / "vendor"); v && *v <= 0xffff) {
    d.vendor_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = read_number(p / "device"); v && *v <= 0xffff) {
    d.device_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = read_number(p / "subsystem_vendor"); v && *v <= 0xffff) {
    d.subsys_vendor_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = read_number(p / "subsystem_device"); v && *v <= 0xffff) {
    d.subsys_device_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = read_number(p / "class"); v && *v <= 0xffffff) {
    d.class_code = static_cast<std::uint16_t>(*v >> 8);
  }
  if (const auto text = read_small(p / "numa_node", 64)) {
    if (const auto n = parse_signed(trim(*text)); n && *n >= 0) d.numa_node = static_cast<int>(*n);
  }
}

// The `resource` file, one "start end flags" line per region: lines 0-5 are the BARs, 6 the
// expansion ROM (skipped), 7-12 the SR-IOV VF BARs.
void read_resources(Device& d, std::string_view text) {
  int i = 0;
  for (const std::string_view line : LineRange(text)) {
    const auto f = split_any(line, " ");
    if (f.size() == 3 && i != 6) {
      const auto start = parse_c_number(f[0]);
      const auto end = parse_c_number(f[1]);
      const auto flags = parse_c_number(f[2]);
      if (start && end && flags && *end > *start) {
        Bar bar;
        bar.index = i < 6 ? i : i - 7;
        bar.address = *start;
        bar.size = *end - *start + 1;
        bar.io = (*flags & 0x100) != 0;
        bar.prefetchable = (*flags & 0x2000) != 0;
        bar.is_64bit = (*flags & 0x100000) != 0;
        if (i < 6) {
          d.bars.push_back(bar);
        } else if (i >= 7 && i < 13) {
          if (!d.sriov) d.sriov = Sriov{};
          d.sriov->vf_bars.push_back(bar);
        }
      }
    }
    ++i;
  }
}

// Link speed and width (current and maximum), driver, IOMMU group and RDMA device name.
void read_links_and_driver(Device& d, const fs::path& p) {
  if (const auto s = read_small(p / "current_link_speed", 64)) {
    if (!d.link_sta) d.link_sta = Link{};
    d.link_sta->speed = speed_text(*s);
  }
  if (const auto w = read_number(p / "current_link_width"); w && d.link_sta) {
    d.link_sta->width = static_cast<unsigned>(*w);
  }
  if (const auto s = read_small(p / "max_link_speed", 64)) {
    if (!d.link_cap) d.link_cap = Link{};
    d.link_cap->speed = speed_text(*s);
  }
  if (const auto w = read_number(p / "max_link_width"); w && d.link_cap) {
    d.link_cap->width = static_cast<unsigned>(*w);
  }
  if (fs::is_symlink(p / "driver")) d.driver = link_basename(p / "driver");
  if (fs::is_symlink(p / "iommu_group")) {
    if (const auto g = parse_decimal(link_basename(p / "iommu_group"))) {
      d.iommu_group = static_cast<int>(*g);
    }
  }
  std::error_code ec;
  if (fs::is_directory(p / "infiniband", ec)) {
    for (const auto& ib : fs::directory_iterator(p / "infiniband", ec)) {
      d.rdma_name = ib.path().filename().string();
      break;
    }
  }
}

// The sriov_* files of a physical function: VF counts, offset, stride and VF device id.
void read_sriov(Device& d, const fs::path& p) {
  const auto t = read_number(p / "sriov_totalvfs");
  if (!t) return;
  if (!d.sriov) d.sriov = Sriov{};
  d.sriov->total_vfs = static_cast<unsigned>(*t);
  if (const auto n = read_number(p / "sriov_numvfs")) d.sriov->num_vfs = static_cast<unsigned>(*n);
  if (const auto o = read_number(p / "sriov_offset")) {
    d.sriov->vf_offset = static_cast<unsigned>(*o);
  }
  if (const auto s = read_number(p / "sriov_stride")) {
    d.sriov->vf_stride = static_cast<unsigned>(*s);
  }
  if (const auto text = read_small(p / "sriov_vf_device", 64)) {
    if (const auto id = parse_hex(trim(*text)); id && *id <= 0xffff) {
      d.sriov->vf_device_id = static_cast<std::uint16_t>(*id);
    }
  }
}

}  // namespace

void load_sysfs(Host& host, const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) throw Error(dir, "cannot read sysfs directory: " + ec.message());
  host.set_complete();
  std::size_t count = 0;
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    const auto bdf = parse_bdf(name);
    if (!bdf) continue;
    const fs::path p = entry.path();
    const std::size_t index = host.upsert(*bdf);
    ++count;
    Device& d = host.at(index);
    d.origins.push_back(Origin{p.string(), 0});
    place_by_real_path(host, d, p);
    read_identity(d, p);
    if (const auto text = read_small(p / "resource")) read_resources(d, *text);
    read_links_and_driver(d, p);
    read_sriov(d, p);
  }
  if (count == 0) throw Error(dir, "no PCI devices (entries named like 0000:3b:00.0) in the directory");
}

}  // namespace vmxkit::pci
