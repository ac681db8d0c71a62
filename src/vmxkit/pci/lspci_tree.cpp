// SPDX-License-Identifier: Apache-2.0
// `lspci -t[v][nn]` tree output (pciutils ls-tree.c). Tree only: bus numbers, parents, names.
#include <fmt/format.h>

#include <map>

#include "vmxkit/core/error.h"
#include "vmxkit/pci/host.h"
#include "vmxkit/pci/lspci_names.h"
#include "vmxkit/pci/text.h"

namespace vmxkit::pci {
namespace {

// Where children drawn from a branch point sit: the top (root buses) or a bus.
struct Parent {
  bool top = true;
  std::uint16_t domain = 0;
  std::uint8_t bus = 0;
  std::optional<Bdf> bridge;  ///< nullopt for a root bus
};

bool is_connector(char c) { return c == '-' || c == '+' || c == '\\' || c == '`'; }
bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

void load_lspci_tree(Host& host, std::string_view text, const std::string& path) {
  std::map<std::size_t, Parent> branches;
  std::uint32_t line_no = 0;
  std::size_t devices = 0;
  bool first = true;
  for (const std::string_view line : LineRange(text)) {
    ++line_no;
    if (trim(line).empty()) continue;
    auto fail = [&](std::size_t col, const std::string& message) {
      throw Error(path, line_no, static_cast<std::uint32_t>(col + 1), message);
    };
    if (line.size() >= 3 && line.substr(line.size() - 3) == "...") {
      host.warn(Origin{path, line_no}, "line cut at 1023 characters by lspci; devices after the cut are missing");
    }
    std::size_t pos = 0;
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '|')) ++pos;
    if (pos == line.size()) continue;
    Parent parent;
    bool have_parent = first;  // the first line hangs from the top
    first = false;
    while (pos < line.size()) {
      // A connector run, and the branch point ('+' or '\') right before the next item.
      std::optional<std::size_t> branch;
      const std::size_t run_start = pos;
      while (pos < line.size() && is_connector(line[pos])) {
        if (line[pos] != '-') branch = pos;
        ++pos;
      }
      if (pos == line.size()) break;  // a bridge with nothing below: "-[13]--"
      if (!have_parent) {
        // Continuation line: the branch point says which open parent this is.
        if (!branch) fail(run_start, "expected '+-' or '\\-' starting a tree line");
        auto it = branches.find(*branch);
        if (it == branches.end()) it = branches.find(*branch + 1);  // pasted without the leading space
        if (it == branches.end()) {
          fail(*branch, "this branch does not continue any line above (not lspci -t output?)");
        }
        parent = it->second;
        have_parent = true;
      } else if (branch) {
        branches[*branch] = parent;
      }
      if (line[pos] == '[') {
        // A root bus: [DDDD:BB]
        const auto close = line.find(']', pos);
        const std::string_view inner =
            close == std::string_view::npos ? std::string_view{} : line.substr(pos + 1, close - pos - 1);
        const auto colon = inner.find(':');
        const auto dom = colon == std::string_view::npos ? std::nullopt : parse_hex(inner.substr(0, colon));
        const auto bus = colon == std::string_view::npos ? std::nullopt : parse_hex(inner.substr(colon + 1));
        if (!parent.top || !dom || !bus || *dom > 0xffff || *bus > 0xff) {
          fail(pos, "expected a root bus '[DDDD:BB]'");
        }
        parent = Parent{false, static_cast<std::uint16_t>(*dom), static_cast<std::uint8_t>(*bus), std::nullopt};
        host.add_root(parent.domain, parent.bus);
        pos = close + 1;
        continue;
      }
      // A device: DD.F
      if (parent.top) {
        // Single-bus trees (lspci -t without roots) start straight with devices of bus 00.
        parent = Parent{false, 0, 0, std::nullopt};
        host.add_root(0, 0);
      }
      if (pos + 4 > line.size() || !is_hex(line[pos]) || !is_hex(line[pos + 1]) ||
          line[pos + 2] != '.' || !is_hex(line[pos + 3])) {
        fail(pos, "expected a device 'DD.F' in the tree");
      }
      const auto dev = parse_hex(line.substr(pos, 2));
      const auto fn = parse_hex(line.substr(pos + 3, 1));
      if (*dev > 31 || *fn > 7) fail(pos, "device number above 1f or function above 7");
      const Bdf bdf{parent.domain, parent.bus, static_cast<std::uint8_t>(*dev),
                    static_cast<std::uint8_t>(*fn)};
      const std::size_t index = host.upsert(bdf);
      ++devices;
      Device& d = host.at(index);
      d.origins.push_back(Origin{path, line_no});
      if (parent.bridge) {
        d.given_parent = parent.bridge;
      } else {
        d.given_on_root_bus = true;
      }
      pos += 4;
      if (pos + 1 < line.size() && line[pos] == '-' && line[pos + 1] == '[') {
        const auto close = line.find(']', pos);
        if (close == std::string_view::npos) fail(pos + 1, "unterminated bus range '[SS-UU]'");
        const std::string_view range = line.substr(pos + 2, close - pos - 2);
        const auto dash = range.find('-');
        const auto sec = parse_hex(range.substr(0, dash));
        const auto sub = dash == std::string_view::npos ? sec : parse_hex(range.substr(dash + 1));
        if (!sec || !sub || *sec > 0xff || *sub > 0xff || *sub < *sec) {
          fail(pos + 1, "expected a bus range '[SS]' or '[SS-UU]'");
        }
        if (d.secondary_bus && *d.secondary_bus != *sec) {
          host.warn(Origin{path, line_no},
                    fmt::format("{}: another input gives secondary bus {:02x}, the tree says {:02x}; "
                                "using the tree",
                                bdf.to_string(), *d.secondary_bus, *sec));
        }
        d.secondary_bus = static_cast<std::uint8_t>(*sec);
        d.subordinate_bus = static_cast<std::uint8_t>(*sub);
        d.primary_bus = parent.bus;
        parent = Parent{false, parent.domain, static_cast<std::uint8_t>(*sec), bdf};
        pos = close + 1;
        continue;
      }
      if (pos + 1 < line.size() && line[pos] == ' ' && line[pos + 1] == ' ') {
        const NameIds ids = split_device_name(trim(line.substr(pos + 2)));
        if (d.name.empty()) d.name = std::string(ids.name);
        if (ids.vendor_id && !d.vendor_id) d.vendor_id = ids.vendor_id;
        if (ids.device_id && !d.device_id) d.device_id = ids.device_id;
        break;
      }
      if (pos < line.size() && !is_connector(line[pos])) fail(pos, "unexpected text after a device");
    }
  }
  if (devices == 0 && line_no == 0) throw Error(path, "empty lspci -t output");
}

}  // namespace vmxkit::pci
