// SPDX-License-Identifier: Apache-2.0
// `lspci -t[v][nn]` tree output (pciutils ls-tree.c). Tree only: bus numbers, parents, names.
#include <fmt/format.h>

#include <map>

#include "vmxkit/core/error.h"
#include "vmxkit/devices/pci_names.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

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

// One line of the tree, for columns in errors.
struct TreeLine {
  const std::string& path;
  std::uint32_t number;
  std::string_view text;

  [[noreturn]] void fail(std::size_t col, const std::string& message) const {
    throw Error(path, number, static_cast<std::uint32_t>(col + 1), message);
  }
};

// A continuation line: decides which open parent it hangs from, by the column of its branch
// point ('+' or '\') under a branch point of a line above.
Parent continued_parent(const std::map<std::size_t, Parent>& branches,
                        std::optional<std::size_t> branch, std::size_t run_start,
                        const TreeLine& line) {
  if (!branch) line.fail(run_start, "expected '+-' or '\\-' starting a tree line");
  auto it = branches.find(*branch);
  if (it == branches.end()) it = branches.find(*branch + 1);  // pasted without the leading space
  if (it == branches.end()) {
    line.fail(*branch, "this branch does not continue any line above (not lspci -t output?)");
  }
  return it->second;
}

// A root bus "[DDDD:BB]" at `pos` (only at the top): the parent of the devices drawn after it.
Parent read_root_bus(Host& host, const Parent& parent, const TreeLine& line, std::size_t& pos) {
  const std::string_view text = line.text;
  const auto close = text.find(']', pos);
  const std::string_view inner =
      close == std::string_view::npos ? std::string_view{} : text.substr(pos + 1, close - pos - 1);
  const auto colon = inner.find(':');
  const auto dom =
      colon == std::string_view::npos ? std::nullopt : parse_hex(inner.substr(0, colon));
  const auto bus =
      colon == std::string_view::npos ? std::nullopt : parse_hex(inner.substr(colon + 1));
  if (!parent.top || !dom || !bus || *dom > 0xffff || *bus > 0xff) {
    line.fail(pos, "expected a root bus '[DDDD:BB]'");
  }
  const Parent root{false, static_cast<std::uint16_t>(*dom), static_cast<std::uint8_t>(*bus),
                    std::nullopt};
  host.add_root(root.domain, root.bus);
  pos = close + 1;
  return root;
}

// A device "DD.F" at `pos` on the parent's bus: the device, and whether it hangs from a bridge
// or straight from the root bus.
std::size_t read_tree_device(Host& host, const Parent& parent, const TreeLine& line,
                             std::size_t& pos) {
  const std::string_view text = line.text;
  if (pos + 4 > text.size() || !is_hex(text[pos]) || !is_hex(text[pos + 1]) ||
      text[pos + 2] != '.' || !is_hex(text[pos + 3])) {
    line.fail(pos, "expected a device 'DD.F' in the tree");
  }
  const auto dev = parse_hex(text.substr(pos, 2));
  const auto fn = parse_hex(text.substr(pos + 3, 1));
  if (*dev > 31 || *fn > 7) line.fail(pos, "device number above 1f or function above 7");
  const Bdf bdf{parent.domain, parent.bus, static_cast<std::uint8_t>(*dev),
                static_cast<std::uint8_t>(*fn)};
  const std::size_t index = host.upsert(bdf);
  Device& d = host.at(index);
  d.origins.push_back(Origin{line.path, line.number});
  if (parent.bridge) {
    d.given_parent = parent.bridge;
  } else {
    d.given_on_root_bus = true;
  }
  pos += 4;
  return index;
}

// A bridge's bus range "-[SS-UU]" at `pos`: its bus numbers, and the parent of the devices
// drawn after it. Where another input gave another secondary bus, the tree wins (with a warning).
Parent read_bus_range(Host& host, std::size_t index, const Parent& parent, const TreeLine& line,
                      std::size_t& pos) {
  const std::string_view text = line.text;
  const auto close = text.find(']', pos);
  if (close == std::string_view::npos) line.fail(pos + 1, "unterminated bus range '[SS-UU]'");
  const std::string_view range = text.substr(pos + 2, close - pos - 2);
  const auto dash = range.find('-');
  const auto sec = parse_hex(range.substr(0, dash));
  const auto sub = dash == std::string_view::npos ? sec : parse_hex(range.substr(dash + 1));
  if (!sec || !sub || *sec > 0xff || *sub > 0xff || *sub < *sec) {
    line.fail(pos + 1, "expected a bus range '[SS]' or '[SS-UU]'");
  }
  Device& d = host.at(index);
  if (d.secondary_bus && *d.secondary_bus != *sec) {
    host.warn(Origin{line.path, line.number},
              fmt::format("{}: another input gives secondary bus {:02x}, the tree says {:02x}; "
                          "using the tree",
                          d.bdf.to_string(), *d.secondary_bus, *sec));
  }
  d.secondary_bus = static_cast<std::uint8_t>(*sec);
  d.subordinate_bus = static_cast<std::uint8_t>(*sub);
  d.primary_bus = parent.bus;
  pos = close + 1;
  return Parent{false, parent.domain, static_cast<std::uint8_t>(*sec), d.bdf};
}

// The "  name [vvvv:dddd]" after a device (lspci -tv): fills what other inputs did not give.
void read_tree_name(Device& d, std::string_view name) {
  const NameIds ids = split_device_name(name);
  if (d.name.empty()) d.name = std::string(ids.name);
  if (ids.vendor_id && !d.vendor_id) d.vendor_id = ids.vendor_id;
  if (ids.device_id && !d.device_id) d.device_id = ids.device_id;
}

// The items of one line from `pos`, left to right, each hanging from the one before it; the
// first item hangs from the top (first line) or from the branch it continues. Records the
// line's branch points for the lines below. Returns how many devices the line names.
std::size_t read_tree_items(Host& host, std::map<std::size_t, Parent>& branches,
                            const TreeLine& line, std::size_t pos, bool first) {
  const std::string_view text = line.text;
  Parent parent;
  bool have_parent = first;
  std::size_t devices = 0;
  while (pos < text.size()) {
    // A connector run, and the branch point ('+' or '\') right before the next item.
    std::optional<std::size_t> branch;
    const std::size_t run_start = pos;
    while (pos < text.size() && is_connector(text[pos])) {
      if (text[pos] != '-') branch = pos;
      ++pos;
    }
    if (pos == text.size()) break;  // a bridge with nothing below: "-[13]--"
    if (!have_parent) {
      parent = continued_parent(branches, branch, run_start, line);
      have_parent = true;
    } else if (branch) {
      branches[*branch] = parent;
    }
    if (text[pos] == '[') {
      parent = read_root_bus(host, parent, line, pos);
      continue;
    }
    if (parent.top) {
      // Single-bus trees (lspci -t without roots) start straight with devices of bus 00.
      parent = Parent{false, 0, 0, std::nullopt};
      host.add_root(0, 0);
    }
    const std::size_t index = read_tree_device(host, parent, line, pos);
    ++devices;
    if (pos + 1 < text.size() && text[pos] == '-' && text[pos + 1] == '[') {
      parent = read_bus_range(host, index, parent, line, pos);
      continue;
    }
    if (pos + 1 < text.size() && text[pos] == ' ' && text[pos + 1] == ' ') {
      read_tree_name(host.at(index), trim(text.substr(pos + 2)));
      break;
    }
    if (pos < text.size() && !is_connector(text[pos])) {
      line.fail(pos, "unexpected text after a device");
    }
  }
  return devices;
}

}  // namespace

void load_lspci_tree(Host& host, std::string_view text, const std::string& path) {
  std::map<std::size_t, Parent> branches;  // column of a branch point -> what hangs there
  std::uint32_t line_no = 0;
  std::size_t devices = 0;
  bool first = true;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    if (trim(raw).empty()) continue;
    const TreeLine line{path, line_no, raw};
    if (raw.size() >= 3 && raw.substr(raw.size() - 3) == "...") {
      host.warn(Origin{path, line_no},
                "line cut at 1023 characters by lspci; devices after the cut are missing");
    }
    const std::size_t pos = raw.find_first_not_of(" |");
    if (pos == std::string_view::npos) continue;
    devices += read_tree_items(host, branches, line, pos, first);
    first = false;
  }
  if (devices == 0 && line_no == 0) throw Error(path, "empty lspci -t output");
}

}  // namespace vmxkit::pci
