// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/devices/pci_names.h"

#include <array>

#include "vmxkit/core/text.h"
#include "vmxkit/devices/catalog.h"

namespace vmxkit::pci {
namespace {

bool is_hex4(std::string_view s) { return s.size() == 4 && parse_hex(s).has_value(); }

// "vvvv:dddd"
bool parse_pair(std::string_view s, std::uint16_t& vendor, std::uint16_t& device) {
  if (s.size() != 9 || s[4] != ':' || !is_hex4(s.substr(0, 4)) || !is_hex4(s.substr(5)))
    return false;
  vendor = static_cast<std::uint16_t>(*parse_hex(s.substr(0, 4)));
  device = static_cast<std::uint16_t>(*parse_hex(s.substr(5)));
  return true;
}

}  // namespace

NameIds split_class(std::string_view text) {
  NameIds out;
  text = trim(text);
  if (is_hex4(text)) {
    out.class_code = static_cast<std::uint16_t>(*parse_hex(text));
    return out;
  }
  out.name = text;
  if (text.size() > 6 && text.back() == ']' && text[text.size() - 6] == '[' &&
      is_hex4(text.substr(text.size() - 5, 4))) {
    out.class_code = static_cast<std::uint16_t>(*parse_hex(text.substr(text.size() - 5, 4)));
    out.name = trim(text.substr(0, text.size() - 6));
  }
  return out;
}

NameIds split_device_name(std::string_view text) {
  NameIds out;
  text = trim(text);
  std::uint16_t v = 0;
  std::uint16_t d = 0;
  if (parse_pair(text, v, d)) {  // -n
    out.vendor_id = v;
    out.device_id = d;
    return out;
  }
  out.name = text;
  if (text.size() > 11 && text.back() == ']' && text[text.size() - 11] == '[' &&
      parse_pair(text.substr(text.size() - 10, 9), v, d)) {  // -nn
    out.vendor_id = v;
    out.device_id = d;
    out.name = trim(text.substr(0, text.size() - 11));
    return out;
  }
  if (text.size() == 16 && text.substr(0, 7) == "Device " && parse_pair(text.substr(7), v, d)) {
    out.vendor_id = v;
    out.device_id = d;
    return out;
  }
  // "<Vendor> Device dddd": pci.ids knows the vendor but not the device.
  if (text.size() > 12 && text.substr(text.size() - 12, 8) == " Device " &&
      is_hex4(text.substr(text.size() - 4))) {
    out.device_id = static_cast<std::uint16_t>(*parse_hex(text.substr(text.size() - 4)));
    const std::string_view vendor = text.substr(0, text.size() - 12);
    for (const int id : {0x10de, 0x15b3, 0x1000, 0x10b5, 0x104c}) {
      if (Catalog::vendor_name(static_cast<std::uint16_t>(id)) == vendor)
        out.vendor_id = static_cast<std::uint16_t>(id);
    }
  }
  return out;
}

std::optional<std::uint16_t> class_code_for_name(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::uint16_t>, 22> kClasses = {{
      {"VGA compatible controller", 0x0300},
      {"XGA compatible controller", 0x0301},
      {"3D controller", 0x0302},
      {"Display controller", 0x0380},
      {"Ethernet controller", 0x0200},
      {"Token ring network controller", 0x0201},
      {"Infiniband controller", 0x0207},
      {"Fabric controller", 0x0208},
      {"Network controller", 0x0280},
      {"Host bridge", 0x0600},
      {"ISA bridge", 0x0601},
      {"PCI bridge", 0x0604},
      {"CardBus bridge", 0x0607},
      {"Bridge", 0x0680},
      {"Non-Volatile memory controller", 0x0108},
      {"SATA controller", 0x0106},
      {"RAID bus controller", 0x0104},
      {"Serial Attached SCSI controller", 0x0107},
      {"Audio device", 0x0403},
      {"USB controller", 0x0c03},
      {"System peripheral", 0x0880},
      {"Processing accelerators", 0x1200},
  }};
  for (const auto& [n, code] : kClasses) {
    if (n == name) return code;
  }
  return std::nullopt;
}

}  // namespace vmxkit::pci
