// SPDX-License-Identifier: Apache-2.0
// `esxcli hardware pci list`: one block per device, an address line then indented
// `Key: Value` lines (ids, names, NUMA node, owner, passthrough capability, parent device).
#include <fmt/format.h>

#include <map>

#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

// One line of the output, for columns in errors.
struct EsxcliLine {
  const std::string& path;
  std::uint32_t number;
  std::string_view raw;

  [[noreturn]] void fail(const std::string& message) const {
    throw Error(path, number, static_cast<std::uint32_t>(raw.size() - trim(raw).size() + 1),
                message);
  }
};

// "Parent Device: PCI s:b:d:f" (decimal): the bridge the device hangs from, or, when empty,
// that it sits on a root bus.
void read_parent_device(Device& d, std::string_view value, const EsxcliLine& line) {
  if (value.empty()) {
    d.given_on_root_bus = true;
    return;
  }
  std::string_view v = value;
  if (v.starts_with("PCI ") || v.starts_with("pci ")) v = v.substr(4);
  const auto parts = split_any(v, ":");
  std::optional<std::uint64_t> n[4];
  if (parts.size() == 4) {
    for (std::size_t i = 0; i < 4; ++i) n[i] = parse_decimal(parts[i]);
  }
  if (parts.size() != 4 || !n[0] || !n[1] || !n[2] || !n[3] || *n[0] > 0xffff || *n[1] > 0xff ||
      *n[2] > 31 || *n[3] > 7) {
    line.fail(fmt::format("expected 'Parent Device: PCI s:b:d:f' (decimal), found '{}'", value));
  }
  d.given_parent = Bdf{static_cast<std::uint16_t>(*n[0]), static_cast<std::uint8_t>(*n[1]),
                       static_cast<std::uint8_t>(*n[2]), static_cast<std::uint8_t>(*n[3])};
}

// One `Key: Value` line of a device block: the keys vmxkit reads, others are skipped. Numbers
// are C-style (0x hex or decimal) and must fit their field.
void read_field(Device& d, std::string_view key, std::string_view value, const EsxcliLine& line) {
  auto number = [&](std::uint64_t max) -> std::optional<std::uint64_t> {
    const auto n = parse_c_number(value);
    if (!n || *n > max) {
      line.fail(fmt::format("expected a number for '{}', found '{}'", key, value));
    }
    return n;
  };
  if (key == "Vendor ID") {
    d.vendor_id = static_cast<std::uint16_t>(*number(0xffff));
  } else if (key == "Device ID") {
    d.device_id = static_cast<std::uint16_t>(*number(0xffff));
  } else if (key == "SubVendor ID") {
    d.subsys_vendor_id = static_cast<std::uint16_t>(*number(0xffff));
  } else if (key == "SubDevice ID") {
    d.subsys_device_id = static_cast<std::uint16_t>(*number(0xffff));
  } else if (key == "Device Class") {
    d.class_code = static_cast<std::uint16_t>(*number(0xffff));
  } else if (key == "Device Class Name") {
    d.class_name = std::string(value);
  } else if (key == "Vendor Name") {
    d.name = value.empty() ? d.name : std::string(value) + (d.name.empty() ? "" : " " + d.name);
  } else if (key == "Device Name") {
    d.name = d.name.empty() ? std::string(value) : d.name + " " + std::string(value);
  } else if (key == "Revision ID") {
    d.revision = static_cast<std::uint8_t>(*number(0xff));
  } else if (key == "Spawned Bus") {
    const auto bus = *number(0xff);
    if (bus != 0) d.secondary_bus = static_cast<std::uint8_t>(bus);
  } else if (key == "NUMA Node") {
    if (const auto n = parse_signed(value); n && *n >= 0) d.numa_node = static_cast<int>(*n);
  } else if (key == "Module Name") {
    if (value != "None") d.driver = std::string(value);
  } else if (key == "Configured Owner") {
    d.configured_owner = std::string(value);
  } else if (key == "Current Owner") {
    d.current_owner = std::string(value);
  } else if (key == "Passthru Capable") {
    if (value == "true") d.passthru_capable = true;
    if (value == "false") d.passthru_capable = false;
  } else if (key == "VMkernel Name") {
    if (!value.empty()) d.rdma_name = std::string(value);
  } else if (key == "Parent Device") {
    read_parent_device(d, value, line);
  }
}

}  // namespace

void load_esxcli(Host& host, std::string_view text, const std::string& path) {
  host.set_complete();
  std::optional<std::size_t> cur;
  std::map<Bdf, std::uint32_t> seen;  // address -> line of its block: one block per device
  std::uint32_t line_no = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    if (t.empty()) continue;
    const EsxcliLine line{path, line_no, raw};
    if (raw.front() != ' ' && raw.front() != '\t') {
      const auto bdf = parse_bdf(t);
      if (!bdf) {
        line.fail("expected a device address line like '0000:02:00.1' (esxcli hardware pci list)");
      }
      if (const auto [it, inserted] = seen.try_emplace(*bdf, line_no); !inserted) {
        line.fail(fmt::format("{} appears twice in this file (first at line {})", bdf->to_string(),
                              it->second));
      }
      cur = host.upsert(*bdf);
      host.at(*cur).origins.push_back(Origin{path, line_no});
      continue;
    }
    if (!cur) line.fail("indented line before the first device address");
    const auto colon = t.find(':');
    if (colon == std::string_view::npos) line.fail("expected 'Key: Value'");
    read_field(host.at(*cur), t.substr(0, colon), trim(t.substr(colon + 1)), line);
  }
  if (!cur) throw Error(path, "no devices in esxcli output");
}

}  // namespace vmxkit::pci
