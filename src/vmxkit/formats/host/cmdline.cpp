// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/host/cmdline.h"

#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/text.h"

namespace vmxkit::pci {
namespace {

// Splits a command line on spaces, keeping quoted parts together.
void split_args(std::string_view s, std::vector<std::string>& out) {
  std::string cur;
  bool quoted = false;
  for (const char c : s) {
    if (c == '"') {
      quoted = !quoted;
    } else if ((c == ' ' || c == '\t') && !quoted) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
}

}  // namespace

KernelCmdline parse_kernel_cmdline(std::string_view text, const std::string& path) {
  KernelCmdline c;
  c.path = path;
  std::uint32_t line_no = 0;
  bool grub = false;
  for (const std::string_view raw : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(raw);
    for (const std::string_view key : {"GRUB_CMDLINE_LINUX_DEFAULT=", "GRUB_CMDLINE_LINUX="}) {
      if (t.substr(0, key.size()) == key) {
        grub = true;
        std::string_view v = t.substr(key.size());
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
          v = v.substr(1, v.size() - 2);
        }
        split_args(v, c.args);
        if (c.line == 0) c.line = line_no;
      }
    }
  }
  if (grub) {
    c.from_grub = true;
    return c;
  }
  for (const std::string_view raw : LineRange(text)) {
    const std::string_view t = trim(raw);
    if (t.empty() || t.front() == '#') continue;
    split_args(t, c.args);
    c.line = 1;
    break;
  }
  if (c.args.empty()) {
    throw Error(path,
                "no kernel command line: expected /proc/cmdline or /etc/default/grub with "
                "GRUB_CMDLINE_LINUX_DEFAULT");
  }
  return c;
}

}  // namespace vmxkit::pci
