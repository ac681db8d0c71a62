// SPDX-License-Identifier: Apache-2.0
// Layout: PCI Local Bus 3.0 / PCIe Base spec; offsets as pciutils lib/header.h names them.
#include "vmxkit/formats/host/config_space.h"

#include <fmt/format.h>

namespace vmxkit::pci {
namespace {

struct Reader {
  std::span<const std::uint8_t> b;
  bool has(std::size_t off, std::size_t n) const { return off + n <= b.size(); }
  std::uint8_t u8(std::size_t off) const { return has(off, 1) ? b[off] : 0; }
  std::uint16_t u16(std::size_t off) const {
    return static_cast<std::uint16_t>(u8(off) | (u8(off + 1) << 8));
  }
  std::uint32_t u32(std::size_t off) const {
    return static_cast<std::uint32_t>(u16(off)) | (static_cast<std::uint32_t>(u16(off + 2)) << 16);
  }
};

std::string speed_name(unsigned code) {
  switch (code) {
    case 1:
      return "2.5GT/s";
    case 2:
      return "5GT/s";
    case 3:
      return "8GT/s";
    case 4:
      return "16GT/s";
    case 5:
      return "32GT/s";
    case 6:
      return "64GT/s";
    default:
      return fmt::format("unknown ({})", code);
  }
}

PortType port_type(unsigned code) {
  switch (code) {
    case 0:
      return PortType::endpoint;
    case 1:
      return PortType::legacy_endpoint;
    case 4:
      return PortType::root_port;
    case 5:
      return PortType::upstream_port;
    case 6:
      return PortType::downstream_port;
    case 7:
      return PortType::pcie_to_pci_bridge;
    case 8:
      return PortType::pci_to_pcie_bridge;
    case 9:
      return PortType::rc_integrated_endpoint;
    case 10:
      return PortType::rc_event_collector;
    default:
      return PortType::unknown;
  }
}

}  // namespace

void decode_config_space(std::span<const std::uint8_t> config, Device& d) {
  const Reader r{config};
  if (!r.has(0, 64)) return;
  d.vendor_id = r.u16(0x00);
  d.device_id = r.u16(0x02);
  d.revision = r.u8(0x08);
  d.class_code = r.u16(0x0a);
  const unsigned header = r.u8(0x0e) & 0x7fU;
  if (header == 0) {
    d.subsys_vendor_id = r.u16(0x2c);
    d.subsys_device_id = r.u16(0x2e);
  } else if (header == 1) {
    d.primary_bus = r.u8(0x18);
    d.secondary_bus = r.u8(0x19);
    d.subordinate_bus = r.u8(0x1a);
  }
  if ((r.u16(0x06) & 0x10) != 0) {
    std::size_t ptr = r.u8(0x34) & 0xfcU;
    for (int guard = 0; ptr >= 0x40 && ptr + 2 <= config.size() && guard < 48; ++guard) {
      const unsigned id = r.u8(ptr);
      if (id == 0x10 && r.has(ptr, 0x14)) {
        d.port_type = port_type((r.u16(ptr + 2) >> 4) & 0xfU);
        d.port_type_inferred = false;
        const std::uint32_t lnkcap = r.u32(ptr + 0x0c);
        const std::uint16_t lnksta = r.u16(ptr + 0x12);
        d.link_cap = Link{speed_name(lnkcap & 0xfU), (lnkcap >> 4) & 0x3fU};
        d.link_sta = Link{speed_name(lnksta & 0xfU), (lnksta >> 4) & 0x3fU};
      }
      ptr = r.u8(ptr + 1) & 0xfcU;
    }
  }
  std::size_t ext = 0x100;
  for (int guard = 0; ext >= 0x100 && r.has(ext, 4) && guard < 96; ++guard) {
    const std::uint32_t head = r.u32(ext);
    if (head == 0 || head == 0xffffffffU) break;
    const unsigned id = head & 0xffffU;
    if (id == 0x0d && r.has(ext, 8)) {
      d.acs = Acs{r.u16(ext + 4), r.u16(ext + 6)};
    } else if (id == 0x0f && r.has(ext, 8)) {
      d.ats_present = true;
      d.ats_enabled = (r.u16(ext + 6) & 0x8000U) != 0;
    } else if (id == 0x10 && r.has(ext, 0x3c)) {
      Sriov s;
      s.initial_vfs = r.u16(ext + 0x0c);
      s.total_vfs = r.u16(ext + 0x0e);
      s.num_vfs = r.u16(ext + 0x10);
      s.vf_offset = r.u16(ext + 0x14);
      s.vf_stride = r.u16(ext + 0x16);
      s.vf_device_id = r.u16(ext + 0x1a);
      for (int i = 0; i < 6; ++i) {
        const std::uint32_t lo = r.u32(ext + 0x24 + static_cast<std::size_t>(i) * 4);
        if (lo == 0) continue;
        Bar bar;
        bar.index = i;
        bar.is_64bit = ((lo >> 1) & 3U) == 2;
        bar.prefetchable = (lo & 8U) != 0;
        bar.address = lo & ~std::uint64_t{0xf};
        if (bar.is_64bit && i < 5) {
          bar.address |=
              static_cast<std::uint64_t>(r.u32(ext + 0x24 + static_cast<std::size_t>(i + 1) * 4))
              << 32;
        }
        s.vf_bars.push_back(bar);
        if (bar.is_64bit) ++i;
      }
      d.sriov = s;
    }
    ext = (head >> 20) & 0xffcU;
  }
}

}  // namespace vmxkit::pci
