// SPDX-License-Identifier: Apache-2.0
// The kernel log's PCI lines (`dmesg`, `dmesg -T`, `journalctl -k`, syslog), in the wording of
// Linux drivers/pci/probe.c and setup-res.c, in both its forms:
//   until 6.7: `pci 0000:3b:00.0: reg 0x1c: [mem 0x...-0x... 64bit pref]` (probe),
//              `BAR 1: assigned [mem ...]`, `BAR 1: no space for [mem size 0x... 64bit pref]`,
//              `BAR 1: failed to assign [mem size ...]`;
//   since 6.8: `BAR 1 [mem 0x...-0x... 64bit pref]` (probe), `BAR 1 [mem ...]: assigned`,
//              `BAR 1 [mem size 0x... 64bit pref]: can't assign; no space`, `...: failed to
//              assign` (the resource named first, pci_resource_name()).
// And `pci 0000:3b:00.0: [10de:2330] type 00 class 0x030200` (ids, header type, class),
// `PCI bridge to [bus 3c-3d]`, `pci_bus 0000:00: root bus resource ...`. VF BARs, ROMs and
// bridge windows are not the device's BARs and are skipped.
#include <fmt/format.h>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

// The message of a kernel log line: past `<6>`, a syslog/journal prefix (`... kernel: `) and
// the `[    1.234567]` (or `dmesg -T`) time stamp.
std::string_view message_of(std::string_view t) {
  if (t.size() > 3 && t[0] == '<' && t[2] == '>') t = t.substr(3);
  if (const auto k = t.find(" kernel: "); k != std::string_view::npos) t = t.substr(k + 9);
  if (t.starts_with('[')) {
    if (const auto e = t.find("] "); e != std::string_view::npos && e < 48) t = t.substr(e + 2);
  }
  return trim(t);
}

// A resource as %pR prints it: `[mem 0xa-0xb 64bit pref]` or `[mem size 0xs 64bit pref]`.
struct Resource {
  bool mem = false;
  std::uint64_t size = 0;
  std::uint64_t start = 0;
  bool is_64bit = false;
  bool pref = false;
};

std::optional<Resource> parse_resource(std::string_view s) {
  const auto open = s.find('[');
  const auto close = s.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return std::nullopt;
  const auto w = split_any(s.substr(open + 1, close - open - 1), " ");
  if (w.size() < 2) return std::nullopt;
  Resource r;
  r.mem = w[0] == "mem";
  std::size_t i = 1;
  if (w[1] == "size" && w.size() >= 3) {
    const auto n = parse_c_number(w[2]);
    if (!n) return std::nullopt;
    r.size = *n;
    i = 3;
  } else {
    const auto dash = w[1].find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const auto a = parse_c_number(w[1].substr(0, dash));
    const auto b = parse_c_number(w[1].substr(dash + 1));
    if (!a || !b || *b < *a) return std::nullopt;
    r.start = *a;
    r.size = *b - *a + 1;
    i = 2;
  }
  for (; i < w.size(); ++i) {
    r.is_64bit = r.is_64bit || w[i] == "64bit";
    r.pref = r.pref || w[i] == "pref";
  }
  return r;
}

void set_kernel_bar(Device& d, int index, const Resource& r, const Origin& at) {
  if (d.kernel_bars.empty()) d.kernel_bars_from = at;
  Bar b;
  b.index = index;
  b.address = r.start;
  b.size = r.size;
  b.is_64bit = r.is_64bit;
  b.prefetchable = r.pref;
  b.line = at.path == d.kernel_bars_from.path ? at.line : 0;
  for (Bar& old : d.kernel_bars) {
    if (old.index == index) {
      old = b;
      return;
    }
  }
  d.kernel_bars.push_back(b);
}

// `BAR N...` and `reg 0xNN:` messages: the BAR's index and the rest of the message, for the
// device's BARs 0-5 only.
std::optional<std::pair<int, std::string_view>> bar_message(std::string_view m) {
  std::optional<std::uint64_t> index;
  std::string_view rest;
  if (m.starts_with("BAR ")) {
    const auto end = m.find_first_of(" :", 4);
    index = parse_decimal(m.substr(4, end == std::string_view::npos ? end : end - 4));
    rest = end == std::string_view::npos ? std::string_view() : m.substr(end);
  } else if (m.starts_with("reg 0x")) {
    const auto end = m.find(':');
    const auto reg = parse_c_number(m.substr(4, end == std::string_view::npos ? end : end - 4));
    if (reg && *reg >= 0x10 && *reg <= 0x24 && *reg % 4 == 0) index = (*reg - 0x10) / 4;
    rest = end == std::string_view::npos ? std::string_view() : m.substr(end);
  }
  if (!index || *index > 5) return std::nullopt;
  return std::pair{static_cast<int>(*index), rest};
}

void read_bar(Device& d, int index, std::string_view rest, const Origin& at) {
  const auto r = parse_resource(rest);
  if (!r || !r->mem || r->size == 0) return;
  if (contains(rest, "no space") || contains(rest, "failed to assign")) {
    for (const UnassignedBar& u : d.unassigned_bars) {
      if (u.index == index) return;  // `no space` then `failed to assign`: one failure
    }
    d.unassigned_bars.push_back(UnassignedBar{index, r->size, r->is_64bit, at});
    Resource sized = *r;
    sized.start = 0;
    bool known = false;
    for (const Bar& b : d.kernel_bars) known = known || b.index == index;
    if (!known) set_kernel_bar(d, index, sized, at);
    return;
  }
  set_kernel_bar(d, index, *r, at);
}

// `[10de:2330] type 00 class 0x030200`: ids, and the class (a type 01 header is a bridge).
void read_ids(Device& d, std::string_view m) {
  const auto vendor = parse_hex(m.substr(1, 4));
  const auto device = parse_hex(m.substr(6, 4));
  if (!vendor || !device) return;
  d.vendor_id = static_cast<std::uint16_t>(*vendor);
  d.device_id = static_cast<std::uint16_t>(*device);
  if (const auto c = m.find(" class 0x"); c != std::string_view::npos) {
    const auto w = split_any(m.substr(c + 7), " ");
    if (const auto code = w.empty() ? std::nullopt : parse_c_number(w[0]);
        code && *code <= 0xffffff)
      d.class_code = static_cast<std::uint16_t>(*code >> 8);
  }
}

// `PCI bridge to [bus 3c-3d]` or `[bus 3c]`.
void read_bridge(Device& d, std::string_view m) {
  const auto b = m.find("[bus ");
  if (b == std::string_view::npos) return;
  const std::string_view range = m.substr(b + 5, m.find(']', b) - b - 5);
  const auto dash = range.find('-');
  const auto sec = parse_hex(range.substr(0, dash));
  const auto sub = dash == std::string_view::npos ? sec : parse_hex(range.substr(dash + 1));
  if (!sec || !sub || *sec > 0xff || *sub > 0xff) return;
  d.secondary_bus = static_cast<std::uint8_t>(*sec);
  d.subordinate_bus = static_cast<std::uint8_t>(*sub);
  if (!d.class_code) d.class_code = 0x0604;
}

// `pci_bus 0000:00: root bus resource ...`: bus 00 of domain 0000 is a root bus.
void read_bus(Host& host, std::string_view m) {
  const auto colon = m.find(": ");
  if (colon == std::string_view::npos || !contains(m.substr(colon), "root bus resource")) return;
  const std::string_view id = m.substr(0, colon);
  const auto c = id.find(':');
  const auto domain = parse_hex(id.substr(0, c));
  const auto bus = c == std::string_view::npos ? std::nullopt : parse_hex(id.substr(c + 1));
  if (domain && bus && *domain <= 0xffff && *bus <= 0xff) {
    host.add_root(static_cast<std::uint16_t>(*domain), static_cast<std::uint8_t>(*bus));
  }
}

void read_device_line(Host& host, std::string_view m, const Origin& at) {
  const auto colon = m.find(": ");
  if (colon == std::string_view::npos) return;
  const auto bdf = parse_bdf(m.substr(0, colon));
  if (!bdf) return;
  const std::string_view msg = m.substr(colon + 2);
  const bool ids = msg.size() > 11 && msg[0] == '[' && msg[5] == ':' && msg[10] == ']';
  const auto bar = bar_message(msg);
  const bool bridge = msg.starts_with("PCI bridge to [bus ");
  if (!ids && !bar && !bridge) return;
  Device& d = host.at(host.upsert(*bdf));
  if (d.origins.empty() || d.origins.back().path != at.path) d.origins.push_back(at);
  if (ids) read_ids(d, msg);
  if (bar) read_bar(d, bar->first, bar->second, at);
  if (bridge) read_bridge(d, msg);
}

}  // namespace

bool is_kernel_log_line(std::string_view t) {
  // `dmesg -r`: the level first, `<6>`.
  if (t.size() > 3 && t[0] == '<' && t[1] >= '0' && t[1] <= '7' && t[2] == '>') t = t.substr(3);
  if (t.starts_with("Linux version ") || t.starts_with("pci_bus ") || contains(t, " kernel: ")) {
    return true;
  }
  if (t.starts_with("pci ")) return parse_bdf(t.substr(4, t.find(": ") - 4)).has_value();
  if (!t.starts_with('[')) return false;
  const auto e = t.find("] ");
  return e != std::string_view::npos && e < 48 && e > 1;
}

void load_dmesg(Host& host, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  bool any = false;
  for (const std::string_view raw : LineRange(text)) {
    ++n;
    const std::string_view m = message_of(trim(raw));
    if (m.starts_with("pci ")) {
      read_device_line(host, m.substr(4), Origin{path, n});
      any = true;
    } else if (m.starts_with("pci_bus ")) {
      read_bus(host, m.substr(8));
    }
  }
  if (!any) {
    host.warn(Origin{path, 0},
              "a kernel log without `pci 0000:...` lines: no device read (dmesg after the boot "
              "messages rolled out of the ring buffer? `journalctl -k -b` keeps them)");
  }
}

}  // namespace vmxkit::pci
