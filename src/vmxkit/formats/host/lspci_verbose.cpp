// SPDX-License-Identifier: Apache-2.0
// `lspci -v[v[v]]` output (with or without -nn, -n, -D; tabs or tabs expanded to spaces),
// pciutils 3.5 to 3.14. Format: pciutils lspci.c show_terse/show_verbose, ls-caps.c, ls-ecaps.c.
#include <fmt/format.h>

#include <array>
#include <map>

#include "vmxkit/core/error.h"
#include "vmxkit/devices/pci_names.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

struct LineCtx {
  const std::string& path;
  std::uint32_t line;
  std::string_view text;  ///< the whole line, for columns

  [[noreturn]] void fail(std::string_view at, const std::string& message) const {
    std::size_t col = 0;
    if (at.data() >= text.data() && at.data() <= text.data() + text.size()) {
      col = static_cast<std::size_t>(at.data() - text.data());
    }
    throw Error(path, line, static_cast<std::uint32_t>(col + 1), message);
  }
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "Region 1: Memory at 13000000000 (64-bit, prefetchable) [size=64G]" from after "Region N: ",
// or the -v form "Memory at ..." / "I/O ports at ...".
Bar parse_region(std::string_view body, int index, const LineCtx& ctx) {
  Bar bar;
  bar.index = index;
  std::string_view rest;
  if (starts_with(body, "Memory at ")) {
    rest = body.substr(10);
  } else if (starts_with(body, "I/O ports at ")) {
    bar.io = true;
    rest = body.substr(13);
  } else {
    ctx.fail(body, "expected 'Memory at' or 'I/O ports at' in a Region line");
  }
  const auto sp = rest.find(' ');
  const std::string_view addr = rest.substr(0, sp);
  if (addr.empty()) ctx.fail(rest, "expected an address after 'at'");
  if (addr.front() != '<') {
    const auto a = parse_hex(addr);
    if (!a) ctx.fail(addr, fmt::format("expected a hex address, found '{}'", addr));
    bar.address = *a;
  }
  rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
  if (!bar.io && starts_with(rest, "(")) {
    const auto close = rest.find(')');
    if (close == std::string_view::npos) ctx.fail(rest, "unterminated '(' in a Region line");
    const std::string_view flags = rest.substr(1, close - 1);
    bar.is_64bit = flags.find("64-bit") != std::string_view::npos;
    bar.prefetchable = flags.find("non-prefetchable") == std::string_view::npos &&
                       flags.find("prefetchable") != std::string_view::npos;
    rest = trim(rest.substr(close + 1));
  }
  while (!rest.empty()) {
    if (rest.front() != '[') break;
    const auto close = rest.find(']');
    if (close == std::string_view::npos) ctx.fail(rest, "unterminated '[' in a Region line");
    const std::string_view tag = rest.substr(1, close - 1);
    if (tag == "disabled") {
      bar.disabled = true;
    } else if (starts_with(tag, "size=")) {
      bar.size = parse_size(tag.substr(5));
      if (!bar.size) ctx.fail(tag, fmt::format("bad size '{}'", tag.substr(5)));
      if (*bar.size > kMaxBarBytes) {
        ctx.fail(tag, fmt::format("size '{}' is above {} (2^52 bytes): not a BAR's", tag.substr(5),
                                  format_size(kMaxBarBytes)));
      }
    }
    rest = trim(rest.substr(close + 1));
  }
  return bar;
}

// "Speed 16GT/s (downgraded), Width x16 (ok)" or "Port #0, Speed 16GT/s, Width x16, ASPM L1".
Link parse_link(std::string_view body) {
  Link link;
  if (const auto s = body.find("Speed "); s != std::string_view::npos) {
    std::string_view v = body.substr(s + 6);
    v = v.substr(0, v.find_first_of(", "));
    link.speed = std::string(v);
  }
  if (const auto w = body.find("Width x"); w != std::string_view::npos) {
    std::string_view v = body.substr(w + 7);
    v = v.substr(0, v.find_first_of(", "));
    if (const auto n = parse_decimal(v)) link.width = static_cast<unsigned>(*n);
  }
  return link;
}

std::uint16_t parse_acs_bits(std::string_view body) {
  static constexpr std::array<std::pair<std::string_view, std::uint16_t>, 7> kBits = {{
      {"SrcValid+", Acs::kSrcValid},
      {"TransBlk+", Acs::kTransBlk},
      {"ReqRedir+", Acs::kReqRedir},
      {"CmpltRedir+", Acs::kCmpltRedir},
      {"UpstreamFwd+", Acs::kUpstreamFwd},
      {"EgressCtrl+", Acs::kEgressCtrl},
      {"DirectTrans+", Acs::kDirectTrans},
  }};
  std::uint16_t bits = 0;
  for (const auto& [name, bit] : kBits) {
    if (body.find(name) != std::string_view::npos) bits = static_cast<std::uint16_t>(bits | bit);
  }
  return bits;
}

PortType parse_port_type(std::string_view t) {
  static constexpr std::array<std::pair<std::string_view, PortType>, 9> kTypes = {{
      {"Legacy Endpoint", PortType::legacy_endpoint},
      {"Endpoint", PortType::endpoint},
      {"Root Port", PortType::root_port},
      {"Upstream Port", PortType::upstream_port},
      {"Downstream Port", PortType::downstream_port},
      {"PCI-Express to PCI/PCI-X Bridge", PortType::pcie_to_pci_bridge},
      {"PCI/PCI-X to PCI-Express Bridge", PortType::pci_to_pcie_bridge},
      {"Root Complex Integrated Endpoint", PortType::rc_integrated_endpoint},
      {"Root Complex Event Collector", PortType::rc_event_collector},
  }};
  for (const auto& [name, type] : kTypes) {
    if (starts_with(t, name)) return type;
  }
  return PortType::unknown;
}

// "key: value" pairs separated by ", " ("Initial VFs: 16, Total VFs: 16, Number of VFs: 0").
std::optional<unsigned> field_number(std::string_view body, std::string_view key, int base) {
  const auto k = body.find(key);
  if (k == std::string_view::npos) return std::nullopt;
  std::string_view v = trim(body.substr(k + key.size()));
  v = v.substr(0, v.find_first_of(", "));
  const auto n = base == 16 ? parse_hex(v) : parse_decimal(v);
  if (!n || *n > 0xffffffffULL) return std::nullopt;
  return static_cast<unsigned>(*n);
}

void parse_header(Host& host, std::size_t index, std::string_view rest, const LineCtx& ctx) {
  Device& d = host.at(index);
  // "<class>[ [cccc]]: <vendor device>[ [vvvv:dddd]][ (rev xx)][ (prog-if xx [name])]"
  const auto colon = rest.find(": ");
  if (colon == std::string_view::npos) {
    ctx.fail(rest, "expected '<class>: <device name>' after the address");
  }
  const std::string_view cls = rest.substr(0, colon);
  std::string_view name = rest.substr(colon + 2);
  const NameIds cls_ids = split_class(cls);
  d.class_name = std::string(cls_ids.name);
  d.class_code = cls_ids.class_code;
  if (!d.class_code && !d.class_name.empty()) d.class_code = class_code_for_name(d.class_name);
  if (const auto p = name.find(" (prog-if "); p != std::string_view::npos) name = name.substr(0, p);
  if (const auto r = name.rfind(" (rev "); r != std::string_view::npos) {
    std::string_view rev = name.substr(r + 6);
    rev = rev.substr(0, rev.find(')'));
    if (const auto v = parse_hex(rev); v && *v <= 0xff) d.revision = static_cast<std::uint8_t>(*v);
    name = name.substr(0, r);
  }
  const NameIds ids = split_device_name(name);
  d.name = std::string(ids.name);
  if (ids.vendor_id) d.vendor_id = ids.vendor_id;
  if (ids.device_id) d.device_id = ids.device_id;
}

// Where the reader is: the device the indented lines describe, and which part of it.
struct Section {
  std::optional<std::size_t> device;
  bool in_sriov = false;  ///< inside the SR-IOV capability: Region lines are the VFs' BARs
  int plain_region = 0;   ///< -v "Memory at" lines so far, numbered -1, -2, ...
};

// A device line "[DDDD:]BB:DD.F <class>: <name>": decides which device the next indented lines
// describe, and reads its class, name, ids and revision. A second block for one address in one
// file is an error (`seen`: address -> line of its block); other inputs may describe it too.
std::size_t read_device_line(Host& host, std::string_view raw, const LineCtx& ctx,
                             std::map<Bdf, std::uint32_t>& seen) {
  const auto sp = raw.find(' ');
  const auto bdf = parse_bdf(raw.substr(0, sp));
  if (!bdf || sp == std::string_view::npos) {
    ctx.fail(raw, "expected a device line '[DDDD:]BB:DD.F <class>: <name>' (lspci -vvv output)");
  }
  if (const auto [it, inserted] = seen.try_emplace(*bdf, ctx.line); !inserted) {
    ctx.fail(raw, fmt::format("{} appears twice in this file (first at line {})", bdf->to_string(),
                              it->second));
  }
  const std::size_t index = host.upsert(*bdf);
  host.at(index).origins.push_back(Origin{ctx.path, ctx.line});
  parse_header(host, index, raw.substr(sp + 1), ctx);
  return index;
}

// A "Capabilities:" heading: decides whether the SR-IOV section starts (it ends at the next
// heading), and reads what the heading itself tells (PCIe port type, ATS or ACS present).
// Warns once per input when lspci could not read the capabilities.
void read_capability_heading(Host& host, Device& d, std::string_view body, Section& section,
                             bool& warned_denied, const LineCtx& ctx) {
  section.in_sriov = body.find("Single Root I/O Virtualization") != std::string_view::npos;
  if (section.in_sriov && !d.sriov) d.sriov = Sriov{};
  if (body.find("<access denied>") != std::string_view::npos && !warned_denied) {
    warned_denied = true;
    host.warn(Origin{ctx.path, ctx.line},
              "capabilities not readable (lspci run without root): port types, ACS, ATS and "
              "SR-IOV are unknown");
  }
  if (const auto e = body.find("] Express "); e != std::string_view::npos) {
    std::string_view t = body.substr(e + 10);
    if (starts_with(t, "(v")) t = trim(t.substr(t.find(')') + 1));
    d.port_type = parse_port_type(t);
    d.port_type_inferred = false;
  } else if (const auto s = body.find("] Subsystem: "); s != std::string_view::npos) {
    // A bridge's subsystem ids are in its Subsystem ID capability (type 1 headers have no
    // subsystem registers); Linux reads them from there into sysfs, where NCCL finds them to
    // tell a Broadcom PEX switch's two levels apart (ncclTopoFlattenBcmSwitches).
    if (!d.subsys_vendor_id) {
      const NameIds ids = split_device_name(trim(body.substr(s + 13)));
      d.subsystem = std::string(ids.name);
      d.subsys_vendor_id = ids.vendor_id;
      d.subsys_device_id = ids.device_id;
    }
  } else if (body.find("Address Translation Service (ATS)") != std::string_view::npos) {
    d.ats_present = true;
  } else if (body.find("Access Control Services") != std::string_view::npos) {
    if (!d.acs) d.acs = Acs{};
  }
}

// "Region N: ..." (-vv) and "Memory at ..." / "I/O ports at ..." (-v): decides whose BAR it is
// (the device's, or its VFs' inside the SR-IOV section). False for other lines.
bool read_region_line(Device& d, std::string_view body, Section& section, const LineCtx& ctx) {
  if (starts_with(body, "Region ")) {
    const auto c = body.find(':');
    const auto idx =
        c == std::string_view::npos ? std::nullopt : parse_decimal(body.substr(7, c - 7));
    if (!idx || *idx > 5) ctx.fail(body, "expected 'Region N:' with N from 0 to 5");
    Bar bar = parse_region(trim(body.substr(c + 1)), static_cast<int>(*idx), ctx);
    if (d.bars_from.path.empty()) d.bars_from = Origin{ctx.path, ctx.line};
    bar.line = ctx.line;
    if (section.in_sriov) {
      d.sriov->vf_bars.push_back(bar);
    } else {
      d.bars.push_back(bar);
    }
    return true;
  }
  if (starts_with(body, "Memory at ") || starts_with(body, "I/O ports at ")) {
    d.bars.push_back(parse_region(body, -1 - section.plain_region++, ctx));
    return true;
  }
  return false;
}

// "Bus: primary=XX, secondary=XX, subordinate=XX" of a bridge: decides which input's bus
// numbers win when two disagree (the first, with a warning).
void read_bus_line(Host& host, Device& d, std::string_view body, const LineCtx& ctx) {
  const auto p = field_number(body, "primary=", 16);
  const auto s = field_number(body, "secondary=", 16);
  const auto u = field_number(body, "subordinate=", 16);
  if (!p || !s || !u || *p > 0xff || *s > 0xff || *u > 0xff) {
    ctx.fail(body, "expected 'Bus: primary=XX, secondary=XX, subordinate=XX'");
  }
  if (d.secondary_bus && *d.secondary_bus != *s) {
    host.warn(Origin{ctx.path, ctx.line},
              fmt::format("{}: another input gives secondary bus {:02x}, this line says {:02x}",
                          d.bdf.to_string(), *d.secondary_bus, *s));
    return;  // keep the first input's (lspci -tv is given first, as the kernel enumerated)
  }
  d.primary_bus = static_cast<std::uint8_t>(*p);
  d.secondary_bus = static_cast<std::uint8_t>(*s);
  d.subordinate_bus = static_cast<std::uint8_t>(*u);
}

// The subsystem, NUMA node, IOMMU group, driver, modules and slot lines. The driver and module
// lines follow the capabilities, so they also end the SR-IOV section. False for other lines.
bool read_placement_line(Device& d, std::string_view body, Section& section, const LineCtx& ctx) {
  if (starts_with(body, "Subsystem:")) {
    const NameIds ids = split_device_name(trim(body.substr(10)));
    d.subsystem = std::string(ids.name);
    d.subsys_vendor_id = ids.vendor_id;
    d.subsys_device_id = ids.device_id;
  } else if (starts_with(body, "NUMA node:")) {
    const auto n = parse_signed(trim(body.substr(10)));
    if (!n) ctx.fail(body, "expected a number after 'NUMA node:'");
    if (*n >= 0) d.numa_node = static_cast<int>(*n);
  } else if (starts_with(body, "IOMMU group:")) {
    const auto n = parse_decimal(trim(body.substr(12)));
    if (n) d.iommu_group = static_cast<int>(*n);
  } else if (starts_with(body, "Flags:") && body.find("devsel") != std::string_view::npos) {
    if (const auto n = field_number(body, "NUMA node ", 10)) d.numa_node = static_cast<int>(*n);
    if (const auto g = field_number(body, "IOMMU group ", 10)) d.iommu_group = static_cast<int>(*g);
  } else if (starts_with(body, "Kernel driver in use:")) {
    d.driver = std::string(trim(body.substr(21)));
    section.in_sriov = false;
  } else if (starts_with(body, "Kernel modules:")) {
    d.modules.clear();
    for (const std::string_view m : split_any(body.substr(15), ",")) d.modules.emplace_back(m);
    section.in_sriov = false;
  } else if (starts_with(body, "Physical Slot:")) {
    d.physical_slot = std::string(trim(body.substr(14)));
  } else {
    return false;
  }
  return true;
}

// The link, ACS and ATS register lines of the PCIe capabilities. False for other lines.
bool read_register_line(Device& d, std::string_view body, const LineCtx& ctx) {
  if (starts_with(body, "LnkCap:")) {
    d.link_cap = parse_link(body.substr(7));
  } else if (starts_with(body, "LnkSta:")) {
    d.link_sta = parse_link(body.substr(7));
  } else if (starts_with(body, "ACSCap:")) {
    if (!d.acs) d.acs = Acs{};
    d.acs->cap = parse_acs_bits(body.substr(7));
  } else if (starts_with(body, "ACSCtl:")) {
    if (!d.acs) d.acs = Acs{};
    d.acs->ctl = parse_acs_bits(body.substr(7));
  } else if (starts_with(body, "ATSCtl:")) {
    d.ats_present = true;
    const std::string_view v = trim(body.substr(7));
    if (starts_with(v, "Enable+")) {
      d.ats_enabled = true;
    } else if (starts_with(v, "Enable-")) {
      d.ats_enabled = false;
    } else {
      ctx.fail(v, "expected 'Enable+' or 'Enable-' after 'ATSCtl:'");
    }
  } else {
    return false;
  }
  return true;
}

// The VF counts, offset, stride and device id inside the SR-IOV section.
void read_sriov_line(Sriov& sriov, std::string_view body, const LineCtx& ctx) {
  if (starts_with(body, "Initial VFs:")) {
    sriov.initial_vfs = field_number(body, "Initial VFs:", 10);
    sriov.total_vfs = field_number(body, "Total VFs:", 10);
    sriov.num_vfs = field_number(body, "Number of VFs:", 10);
    if (!sriov.total_vfs || !sriov.num_vfs) {
      ctx.fail(body, "expected 'Initial VFs: N, Total VFs: N, Number of VFs: N'");
    }
  } else if (starts_with(body, "VF offset:")) {
    sriov.vf_offset = field_number(body, "VF offset:", 10);
    sriov.vf_stride = field_number(body, "stride:", 10);
    if (const auto id = field_number(body, "Device ID:", 16); id && *id <= 0xffff) {
      sriov.vf_device_id = static_cast<std::uint16_t>(*id);
    }
  }
}

// A line as a warning shows it: printable ASCII, at most 120 characters.
std::string shown(std::string_view line) {
  constexpr std::size_t kMax = 120;
  std::string out;
  for (const char c : line.substr(0, kMax)) out += c >= ' ' && c <= '~' ? c : '?';
  if (line.size() > kMax) out += "...";
  return out;
}

}  // namespace

void load_lspci_verbose(Host& host, std::string_view text, const std::string& path) {
  Section section;
  std::map<Bdf, std::uint32_t> seen;
  bool warned_denied = false;
  std::uint32_t line_no = 0;
  std::size_t parsed = 0;
  bool numa_lines = false;
  bool sysfs_lines = false;
  // A device line starts at the margin; indented lines describe it.
  std::size_t device_lines = 0;
  for (const std::string_view raw : LineRange(text)) {
    device_lines += !raw.empty() && raw.front() != ' ' && raw.front() != '\t';
  }
  host.reserve(device_lines);
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const LineCtx ctx{path, line_no, raw};
    if (trim(raw).empty()) continue;
    if (raw.front() != ' ' && raw.front() != '\t') {
      if (is_tool_message(raw)) {
        // Kept out of the device that precedes it; the lines after it still belong there.
        host.warn({path, line_no},
                  fmt::format("skipped a tool message, not lspci output: {}", shown(trim(raw))));
        continue;
      }
      section = Section{read_device_line(host, raw, ctx, seen)};
      ++parsed;
      continue;
    }
    if (!section.device) ctx.fail(raw, "indented line before the first device line");
    Device& d = host.at(*section.device);
    const std::string_view body = trim(raw);
    numa_lines = numa_lines || starts_with(body, "NUMA node:");
    sysfs_lines = sysfs_lines || starts_with(body, "Kernel driver in use:") ||
                  starts_with(body, "IOMMU group:");
    if (starts_with(body, "Capabilities:")) {
      read_capability_heading(host, d, body, section, warned_denied, ctx);
    } else if (starts_with(body, "Bus: primary=")) {
      read_bus_line(host, d, body, ctx);
    } else if (!read_region_line(d, body, section, ctx) &&
               !read_placement_line(d, body, section, ctx) && !read_register_line(d, body, ctx) &&
               section.in_sriov) {
      read_sriov_line(*d.sriov, body, ctx);
    }
  }
  if (parsed == 0) throw Error(path, "no devices in lspci output");
  // lspci prints `NUMA node:`, like `Kernel driver in use:` and `IOMMU group:`, from sysfs; a
  // capture with those lines and no NUMA line was read from a kernel that knew one node. A
  // config-space dump (`lspci -F`) has none of them and says nothing about NUMA.
  if (!numa_lines && sysfs_lines && host.numa().no_numa_lines_in.empty()) {
    host.numa().no_numa_lines_in = path;
  }
}

}  // namespace vmxkit::pci
