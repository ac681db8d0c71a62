// SPDX-License-Identifier: Apache-2.0
// Format detection, `esxcli hardware pci list`, `esxcli hardware memory get`,
// `esxcli hardware pci pcipassthru list` and `numactl --hardware`.
#include <fmt/format.h>

#include "vmxkit/core/error.h"
#include "vmxkit/pci/host.h"
#include "vmxkit/pci/text.h"

namespace vmxkit::pci {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "0 1 2 3 8 9" -> "0-3,8-9"
std::string compress_cpus(std::string_view list) {
  std::string out;
  long long start = -1;
  long long prev = -2;
  auto flush = [&] {
    if (start < 0) return;
    if (!out.empty()) out += ',';
    out += start == prev ? fmt::format("{}", start) : fmt::format("{}-{}", start, prev);
  };
  for (const std::string_view tok : split_any(list, " ")) {
    const auto n = parse_decimal(tok);
    if (!n) continue;
    const auto v = static_cast<long long>(*n);
    if (v != prev + 1) {
      flush();
      start = v;
    }
    prev = v;
  }
  flush();
  return out;
}

}  // namespace

InputFormat detect_format(std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  for (const std::string_view line : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    if (starts_with(t, "-[") || starts_with(t, "-+-[") || starts_with(t, "+-[") ||
        starts_with(t, "\\-[") || starts_with(t, "-+-") || starts_with(t, "+-")) {
      return InputFormat::lspci_tree;
    }
    if (starts_with(t, "available:") && t.find("nodes") != std::string_view::npos) {
      return InputFormat::numactl;
    }
    if (starts_with(t, "Physical Memory:") || starts_with(t, "Reliable Memory:") ||
        starts_with(t, "NUMA Node Count:")) {
      return InputFormat::esxcli_memory;
    }
    if (starts_with(t, "Device ID") && t.find("Enabled") != std::string_view::npos) {
      return InputFormat::esxcli_passthru;
    }
    if (parse_bdf(t)) return InputFormat::esxcli;
    const auto sp = t.find(' ');
    if (sp != std::string_view::npos && parse_bdf(t.substr(0, sp))) return InputFormat::lspci_verbose;
    const auto col = static_cast<std::uint32_t>(line.size() - trim(line).size() + 1);
    throw Error(path, line_no, line[0] == ' ' || line[0] == '\t' ? col : 1,
                "unknown host input: expected `lspci -vvv`, `lspci -tv`, `esxcli hardware pci "
                "list`, `esxcli hardware pci pcipassthru list`, `esxcli hardware memory get` or "
                "`numactl --hardware` output");
  }
  throw Error(path, "empty host input");
}

void load_esxcli(Host& host, std::string_view text, const std::string& path) {
  host.set_complete();
  std::optional<std::size_t> cur;
  std::uint32_t line_no = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    if (t.empty()) continue;
    auto fail = [&](const std::string& message) {
      throw Error(path, line_no, static_cast<std::uint32_t>(raw.size() - trim(raw).size() + 1), message);
    };
    if (raw.front() != ' ' && raw.front() != '\t') {
      const auto bdf = parse_bdf(t);
      if (!bdf) fail("expected a device address line like '0000:02:00.1' (esxcli hardware pci list)");
      cur = host.upsert(*bdf);
      host.at(*cur).origins.push_back(Origin{path, line_no});
      continue;
    }
    if (!cur) fail("indented line before the first device address");
    const auto colon = t.find(':');
    if (colon == std::string_view::npos) fail("expected 'Key: Value'");
    const std::string_view key = t.substr(0, colon);
    const std::string_view value = trim(t.substr(colon + 1));
    Device& d = host.at(*cur);
    auto number = [&](std::uint64_t max) -> std::optional<std::uint64_t> {
      const auto n = parse_c_number(value);
      if (!n || *n > max) fail(fmt::format("expected a number for '{}', found '{}'", key, value));
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
      if (value.empty()) {
        d.given_on_root_bus = true;
        continue;
      }
      // "PCI s:b:d:f", decimal.
      std::string_view v = value;
      if (starts_with(v, "PCI ") || starts_with(v, "pci ")) v = v.substr(4);
      const auto parts = split_any(v, ":");
      std::optional<std::uint64_t> n[4];
      if (parts.size() == 4) {
        for (std::size_t i = 0; i < 4; ++i) n[i] = parse_decimal(parts[i]);
      }
      if (parts.size() != 4 || !n[0] || !n[1] || !n[2] || !n[3] || *n[0] > 0xffff || *n[1] > 0xff ||
          *n[2] > 31 || *n[3] > 7) {
        fail(fmt::format("expected 'Parent Device: PCI s:b:d:f' (decimal), found '{}'", value));
      }
      d.given_parent = Bdf{static_cast<std::uint16_t>(*n[0]), static_cast<std::uint8_t>(*n[1]),
                           static_cast<std::uint8_t>(*n[2]), static_cast<std::uint8_t>(*n[3])};
    }
  }
  if (!cur) throw Error(path, "no devices in esxcli output");
}

void load_numactl(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    if (starts_with(t, "available:")) {
      const auto n = parse_decimal(trim(t.substr(10)).substr(0, trim(t.substr(10)).find(' ')));
      if (!n || *n == 0 || *n > 1024) {
        throw Error(path, line_no, 11, "expected 'available: N nodes'");
      }
      host.numa().node_count = static_cast<unsigned>(*n);
    } else if (starts_with(t, "node ") && t.find(" cpus:") != std::string_view::npos) {
      const auto c = t.find(" cpus:");
      const auto node = parse_decimal(t.substr(5, c - 5));
      if (node && *node < 1024) host.numa().cpus[static_cast<int>(*node)] = compress_cpus(t.substr(c + 6));
    }
  }
  if (!host.numa().node_count) throw Error(path, "no 'available: N nodes' line in numactl output");
}

void load_esxcli_memory(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    constexpr std::string_view kKey = "NUMA Node Count:";
    if (!starts_with(t, kKey)) continue;
    const auto n = parse_decimal(trim(t.substr(kKey.size())));
    if (!n || *n == 0 || *n > 1024) {
      const auto col = static_cast<std::uint32_t>(raw.size() - t.size() + kKey.size() + 1);
      throw Error(path, line_no, col, "expected 'NUMA Node Count: N' with N from 1 to 1024");
    }
    host.numa().node_count = static_cast<unsigned>(*n);
  }
  if (!host.numa().node_count) {
    throw Error(path, "no 'NUMA Node Count: N' line in esxcli hardware memory get output");
  }
}

void load_esxcli_passthru(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  bool rows = false;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    if (t.empty() || starts_with(t, "Device ID") ||
        t.find_first_not_of("- ") == std::string_view::npos) {
      continue;  // the header and its dashes
    }
    const auto col = [&](std::string_view part) {
      return static_cast<std::uint32_t>(part.data() - raw.data() + 1);
    };
    const auto parts = split_any(t, " \t");
    const auto bdf = parts.empty() ? std::nullopt : parse_bdf(parts[0]);
    if (parts.size() < 2 || !bdf || (parts[1] != "true" && parts[1] != "false")) {
      throw Error(
          path, line_no, col(t),
          "expected a 'DDDD:BB:DD.F  true|false' row (esxcli hardware pci pcipassthru list)");
    }
    Device& d = host.at(host.upsert(*bdf));
    d.passthru_enabled = parts[1] == "true";
    d.origins.push_back(Origin{path, line_no});
    rows = true;
  }
  if (!rows) throw Error(path, "no device rows in esxcli hardware pci pcipassthru list output");
}

}  // namespace vmxkit::pci
