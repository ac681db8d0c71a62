// SPDX-License-Identifier: Apache-2.0
// Guest input detection and the loaders of the command outputs that are not PCI listings.
// Formats: lsmod/procfs (kernel/module/main.c m_show), nvidia-smi (its table and -q log),
// ibv_devinfo (rdma-core libibverbs/examples/devinfo.c), uname, modinfo (kmod), ofed_info.
#include "vmxkit/formats/guest/loaders.h"

#include <fmt/format.h>

#include <algorithm>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/host/cmdline.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/nvidia_smi_topo.h"
#include "vmxkit/formats/host/text.h"

namespace vmxkit::guest {
namespace {

// Where a loader is, for errors with a column.
struct At {
  const std::string& path;
  std::uint32_t line;
  std::string_view text;

  [[noreturn]] void fail(std::string_view where, const std::string& message) const {
    std::size_t col = 0;
    if (where.data() >= text.data() && where.data() <= text.data() + text.size()) {
      col = static_cast<std::size_t>(where.data() - text.data());
    }
    throw Error(path, line, static_cast<std::uint32_t>(col + 1), message);
  }
  pci::Origin origin() const { return pci::Origin{path, line}; }
};

std::vector<std::string_view> words(std::string_view s) { return split_any(s, " \t"); }

// "key : value" / "key: value": the trimmed key and value, split at the first ':'.
std::optional<std::pair<std::string_view, std::string_view>> key_value(std::string_view line) {
  const auto c = line.find(':');
  if (c == std::string_view::npos) return std::nullopt;
  return std::pair{trim(line.substr(0, c)), trim(line.substr(c + 1))};
}

// A version-looking token: digits and dots (and dashes after the first dot), "550.54.15".
bool looks_like_version(std::string_view t) {
  if (t.empty() || t.front() < '0' || t.front() > '9') return false;
  bool dot = false;
  for (const char c : t) {
    if (c == '.') {
      dot = true;
    } else if (!((c >= '0' && c <= '9') || (dot && c == '-'))) {
      return false;
    }
  }
  return dot;
}

// "131072 MiB" -> bytes.
std::optional<std::uint64_t> mib_value(std::string_view v) {
  const auto w = words(v);
  if (w.size() != 2 || w[1] != "MiB") return std::nullopt;
  const auto n = parse_decimal(w[0]);
  if (!n || *n > (std::uint64_t{1} << 40)) return std::nullopt;
  return *n << 20;
}

// nvidia-smi's bus id "00000000:03:00.0" (an 8-digit domain), or any form parse_bdf reads.
std::optional<Bdf> parse_bus_id(std::string_view id) {
  const auto colon = id.find(':');
  if (colon != std::string_view::npos && colon > 4 && id.find(':', colon + 1) != id.npos &&
      id.substr(0, colon - 4).find_first_not_of('0') == std::string_view::npos) {
    id.remove_prefix(colon - 4);
  }
  return parse_bdf(id);
}

bool is_lsmod_header(std::string_view t) {
  return t.starts_with("Module") && contains(t, "Size") && contains(t, "Used by");
}

// /proc/modules: "name size refcount deps state address".
bool is_proc_modules_line(std::string_view t) {
  const auto w = words(t);
  return w.size() >= 5 && parse_decimal(w[1]) &&
         (w[4] == "Live" || w[4] == "Loading" || w[4] == "Unloading");
}

// "host:1234:1234 [0] NCCL INFO ..." (NCCL's debug.cc prefix), or a WARN line.
bool is_nccl_log_line(std::string_view line) {
  return contains(line, " NCCL INFO ") || contains(line, " NCCL WARN ");
}

// `NAME=value` (env, printenv), or `export NAME=value` / `declare -x NAME="value"`.
std::string_view env_assignment(std::string_view t) {
  for (const std::string_view prefix : {"export ", "declare -x "}) {
    if (t.starts_with(prefix)) t = trim(t.substr(prefix.size()));
  }
  return t;
}

bool is_env_line(std::string_view t) {
  t = env_assignment(t);
  const auto eq = t.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  const char first = t.front();
  if (!(first == '_' || (first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z'))) {
    return false;
  }
  return std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
}

std::string_view unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    return v.substr(1, v.size() - 2);
  }
  return v;
}

// NCCL's topology XML (NCCL_TOPO_DUMP_FILE, or a topology file): starts with an element or an
// XML declaration or comment, and has NCCL's root `<system version=...>` (xmlTopoDump,
// src/graph/xml.cc).
bool is_nccl_topo_xml(std::string_view text) {
  const std::string_view t = trim(text);
  return t.starts_with("<") && contains(t, "<system version=");
}

bool single_line(std::string_view text) {
  std::size_t n = 0;
  for (const std::string_view l : LineRange(text)) n += !trim(l).empty();
  return n == 1;
}

}  // namespace

std::optional<std::pair<unsigned, unsigned>> parse_release(std::string_view release) {
  const auto dot = release.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto major = parse_decimal(release.substr(0, dot));
  std::string_view rest = release.substr(dot + 1);
  const auto end = rest.find_first_not_of("0123456789");
  const auto minor = parse_decimal(rest.substr(0, end));
  if (!major || !minor || *major > 1000 || *minor > 1000) return std::nullopt;
  return std::pair{static_cast<unsigned>(*major), static_cast<unsigned>(*minor)};
}

InputKind detect_kind(std::string_view text, const std::string& path) {
  std::uint32_t line_no = 0;
  std::uint32_t meaningful = 0;
  // NCCL's log is mixed with what the program prints (nccl-tests' `# nThread 1 ...` header).
  for (const std::string_view line : LineRange(text)) {
    if (is_nccl_log_line(line)) return InputKind::nccl_log;
    if (!trim(line).empty() && ++meaningful >= 40) break;
  }
  if (is_nccl_topo_xml(text)) return InputKind::nccl_topo_dump;
  meaningful = 0;
  // The plain nvidia-smi table starts with a date line; look a few lines ahead for its banner.
  for (const std::string_view line : LineRange(text)) {
    if (contains(line, "NVIDIA-SMI ") && contains(line, "Driver Version")) {
      return InputKind::nvidia_smi;
    }
    if (!trim(line).empty() && ++meaningful >= 4) break;
  }
  for (const std::string_view line : LineRange(text)) {
    ++line_no;
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    if (is_lsmod_header(t) || is_proc_modules_line(t)) return InputKind::lsmod;
    if (t.starts_with("=") && contains(t, "NVSMI LOG")) return InputKind::nvidia_smi_query;
    if (pci::is_smi_topo_header(t)) return InputKind::nvidia_smi_topo;
    if (t.starts_with("hca_id:") || t == "No IB devices found") return InputKind::ibv_devinfo;
    if (t.starts_with("/sys/module/") && contains(t, "/version:")) {
      return InputKind::module_versions;
    }
    if (t.starts_with("NVRM version:")) return InputKind::nvidia_version;
    if (t.starts_with("filename:")) return InputKind::modinfo;
    if (t.starts_with("MLNX_OFED_LINUX-") || t.starts_with("OFED-internal-")) {
      return InputKind::ofed_info;
    }
    if (single_line(text)) {
      const auto w = words(t);
      if (w.size() == 1 && parse_release(w[0])) return InputKind::uname;
      if (w.size() >= 3 && w[0] == "Linux" && parse_release(w[2])) return InputKind::uname;
      if (std::any_of(w.begin(), w.end(), [](std::string_view a) {
            return a.starts_with("BOOT_IMAGE=") || a.starts_with("root=");
          })) {
        return InputKind::cmdline;
      }
    }
    if (is_env_line(t)) return InputKind::environment;
    // lspci listings: a device line "BB:DD.F class: name", or an lspci -tv tree.
    const auto sp = t.find(' ');
    if (sp != std::string_view::npos && parse_bdf(t.substr(0, sp)) &&
        contains(t.substr(sp), ": ")) {
      return InputKind::lspci;
    }
    if (t.starts_with("-[") || t.starts_with("-+-[") || t.starts_with("+-[") ||
        t.starts_with("\\-[")) {
      return InputKind::lspci_tree;
    }
    const auto col = static_cast<std::uint32_t>(line.size() - trim(line).size() + 1);
    throw Error(path, line_no, line[0] == ' ' || line[0] == '\t' ? col : 1,
                "unknown guest input: expected the output of lspci (-vvv, -tv), lsmod, "
                "/proc/modules, /proc/cmdline, nvidia-smi (-q, topo -m), ibv_devinfo, uname -r, "
                "`grep . /sys/module/*/version`, /proc/driver/nvidia/version, modinfo, "
                "ofed_info -s, env, NCCL's log or NCCL's topology dump (NCCL_TOPO_DUMP_FILE)");
  }
  throw Error(path, "empty guest input");
}

void load_lsmod(Guest& g, std::string_view text, const std::string& path) {
  std::vector<Module> mods;
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const std::string_view t = trim(line);
    if (t.empty() || is_lsmod_header(t)) continue;
    const At at{path, n, line};
    const auto w = words(t);
    if (w.size() < 2) at.fail(t, "expected 'MODULE SIZE ...' (lsmod or /proc/modules)");
    if (!parse_decimal(w[1])) {
      at.fail(w[1], fmt::format("expected the module size (a number), found '{}'", w[1]));
    }
    mods.push_back(Module{std::string(w[0]), at.origin()});
  }
  g.set_modules(std::move(mods));
}

void load_cmdline(Guest& g, std::string_view text, const std::string& path) {
  pci::KernelCmdline c = pci::parse_kernel_cmdline(text, path);
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    if (!trim(line).empty()) break;
  }
  c.line = n;
  // The kernel release from the image name, for when uname -r is not given.
  if (const auto image = c.value("BOOT_IMAGE")) {
    const auto v = image->find("vmlinuz-");
    if (v != std::string::npos) {
      const std::string release = image->substr(v + 8);
      if (const auto mm = parse_release(release)) {
        g.set_kernel_fallback(KernelRelease{release, mm->first, mm->second, {path, n}});
      }
    }
  }
  g.set_cmdline(std::move(c));
}

void load_nvidia_smi(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  bool banner = false;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const At at{path, n, line};
    if (contains(line, "NVIDIA-SMI ") && contains(line, "Driver Version")) {
      banner = true;
      for (const auto& [key, setter] :
           {std::pair<std::string_view, int>{"Driver Version:", 0}, {"CUDA Version:", 1}}) {
        const auto k = line.find(key);
        if (k == std::string_view::npos) continue;
        const auto w = words(line.substr(k + key.size()));
        if (w.empty() || !looks_like_version(w[0])) {
          at.fail(line.substr(k + key.size()), fmt::format("expected a version after '{}'", key));
        }
        Fact f{std::string(w[0]), at.origin()};
        if (setter == 0) {
          g.set_driver_version(std::move(f));
        } else {
          g.set_cuda_version(std::move(f));
        }
      }
      continue;
    }
    // "|   0  Tesla P100-PCIE...  Off  | 00000000:03:00.0 Off |   0 |"
    if (!line.starts_with("|")) continue;
    const auto cells = split_any(line, "|");
    if (cells.size() < 2) continue;
    const auto id = words(cells[1]);
    if (id.empty()) continue;
    const auto bdf = parse_bus_id(id[0]);
    if (!bdf) continue;
    auto name = words(cells[0]);
    std::string product;
    for (std::size_t i = 1; i + 1 < name.size(); ++i) {
      if (!product.empty()) product += ' ';
      product += name[i];
    }
    g.add_smi_gpu(SmiGpu{bdf, product, std::nullopt, at.origin()});
  }
  if (!banner) throw Error(path, "nvidia-smi output without its 'NVIDIA-SMI ... Driver Version'");
}

void load_nvidia_smi_query(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  std::optional<SmiGpu> gpu;
  bool in_bar1 = false;
  std::size_t bar1_indent = 0;
  bool driver = false;
  auto flush = [&] {
    if (gpu) g.add_smi_gpu(std::move(*gpu));
    gpu.reset();
  };
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const At at{path, n, line};
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    const std::size_t indent = line.find_first_not_of(" \t");
    if (indent == 0 && t.starts_with("GPU ")) {
      flush();
      const std::string_view id = trim(t.substr(4));
      const auto bdf = parse_bus_id(id);
      if (!bdf) at.fail(id, fmt::format("expected a PCI bus id after 'GPU', found '{}'", id));
      gpu = SmiGpu{bdf, {}, std::nullopt, at.origin()};
      in_bar1 = false;
      continue;
    }
    if (in_bar1 && indent <= bar1_indent) in_bar1 = false;
    const auto kv = key_value(t);
    if (!kv) {
      if (t == "BAR1 Memory Usage") {
        in_bar1 = true;
        bar1_indent = indent;
      }
      continue;
    }
    const auto [key, value] = *kv;
    if (key == "BAR1 Memory Usage") {
      in_bar1 = true;
      bar1_indent = indent;
    } else if (key == "Driver Version") {
      if (!looks_like_version(value)) at.fail(value, "expected a version after 'Driver Version'");
      g.set_driver_version(Fact{std::string(value), at.origin()});
      driver = true;
    } else if (key == "CUDA Version") {
      if (looks_like_version(value)) g.set_cuda_version(Fact{std::string(value), at.origin()});
    } else if (key == "Product Name" && gpu) {
      gpu->product = std::string(value);
    } else if (key == "Total" && in_bar1 && gpu) {
      const auto bytes = mib_value(value);
      if (!bytes) at.fail(value, fmt::format("expected 'N MiB' as BAR1 Total, found '{}'", value));
      gpu->bar1_total = bytes;
    }
  }
  flush();
  if (!driver) throw Error(path, "nvidia-smi -q output without a 'Driver Version' line");
}

void load_nvidia_smi_topo(Guest& g, std::string_view text, const std::string& path) {
  g.set_smi_topo(pci::parse_nvidia_smi_topo(text, path));
}

void load_ibv_devinfo(Guest& g, std::string_view text, const std::string& path) {
  std::vector<IbDevice> devices;
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const At at{path, n, line};
    const std::string_view t = trim(line);
    if (t.empty() || t == "No IB devices found") continue;
    const auto kv = key_value(t);
    if (!kv) continue;  // "max_..." tables of -v have key: value too; others are skipped
    const auto [key, value] = *kv;
    if (key == "hca_id") {
      if (value.empty()) at.fail(t, "expected a device name after 'hca_id:'");
      devices.push_back(IbDevice{std::string(value), {}, {}, {}, at.origin()});
      continue;
    }
    if (devices.empty()) at.fail(t, "expected 'hca_id:' before the device's fields");
    IbDevice& d = devices.back();
    if (key == "transport") {
      d.transport = std::string(value);
    } else if (key == "fw_ver") {
      d.fw_ver = std::string(value);
    } else if (key == "port") {
      const auto num = parse_decimal(value);
      if (!num || *num > 255) at.fail(value, "expected a port number after 'port:'");
      d.ports.push_back(IbPort{static_cast<unsigned>(*num), {}, {}, at.origin()});
    } else if (key == "state" && !d.ports.empty()) {
      d.ports.back().state = std::string(value.substr(0, value.find(' ')));
    } else if (key == "link_layer" && !d.ports.empty()) {
      d.ports.back().link_layer = std::string(value);
    }
  }
  g.set_ib_devices(std::move(devices));
}

void load_uname(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    const At at{path, n, line};
    const auto w = words(t);
    const std::string_view release = w.size() == 1 ? w[0] : w.size() >= 3 ? w[2] : t;
    const auto mm = parse_release(release);
    if (!mm) at.fail(release, fmt::format("expected a kernel release, found '{}'", release));
    g.set_kernel(KernelRelease{std::string(release), mm->first, mm->second, at.origin()});
    return;
  }
}

void load_module_versions(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    const At at{path, n, line};
    constexpr std::string_view kPrefix = "/sys/module/";
    const auto v = t.find("/version:");
    if (!t.starts_with(kPrefix) || v == std::string_view::npos || v <= kPrefix.size()) {
      at.fail(t, "expected '/sys/module/NAME/version:VERSION' (grep . /sys/module/*/version)");
    }
    const std::string_view name = t.substr(kPrefix.size(), v - kPrefix.size());
    const std::string_view version = trim(t.substr(v + 9));
    if (name.find('/') != std::string_view::npos) {
      at.fail(name, fmt::format("expected a module name, found '{}'", name));
    }
    if (version.empty()) at.fail(t.substr(v + 9), "expected a version after ':'");
    g.set_module_version(std::string(name), Fact{std::string(version), at.origin()});
    if (name == "nvidia") g.set_driver_version(Fact{std::string(version), at.origin()});
  }
}

void load_nvidia_version(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const std::string_view t = trim(line);
    if (!t.starts_with("NVRM version:")) continue;
    const At at{path, n, line};
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ..."
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..."
    g.set_open_kernel_module(contains(t, "Open Kernel Module"), at.origin());
    for (const std::string_view w : words(t.substr(13))) {
      if (looks_like_version(w)) {
        g.set_driver_version(Fact{std::string(w), at.origin()});
        return;
      }
    }
    at.fail(t, "expected the driver version in the NVRM version line");
  }
  throw Error(path, "no 'NVRM version:' line");
}

void load_modinfo(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  std::string name;
  pci::Origin where;
  std::string version;
  std::string license;
  auto flush = [&] {
    if (name.empty()) return;
    g.set_modinfo(name, Fact{version, where});
    if (name == "nvidia") {
      // The open GPU kernel modules are "Dual MIT/GPL"; the proprietary one is "NVIDIA".
      if (!license.empty()) g.set_open_kernel_module(contains(license, "MIT"), where);
      if (looks_like_version(version)) g.set_driver_version(Fact{version, where});
    }
    name.clear();
    version.clear();
    license.clear();
  };
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    const At at{path, n, line};
    const auto kv = key_value(t);
    if (!kv) at.fail(t, "expected 'field: value' (modinfo output)");
    const auto [key, value] = *kv;
    if (key == "filename") {
      flush();
      // "/lib/modules/5.15.0-91-generic/updates/dkms/nvidia.ko(.xz|.zst)"
      std::string_view base = value.substr(value.rfind('/') + 1);
      const auto ko = base.find(".ko");
      if (ko == std::string_view::npos || ko == 0) {
        at.fail(value, fmt::format("expected a module file name (NAME.ko), found '{}'", base));
      }
      name = std::string(base.substr(0, ko));
      std::replace(name.begin(), name.end(), '-', '_');
      where = at.origin();
    } else if (name.empty()) {
      at.fail(t, "expected 'filename:' first (modinfo output)");
    } else if (key == "version") {
      version = std::string(value);
    } else if (key == "license") {
      license = std::string(value);
    }
  }
  flush();
}

void load_ofed_info(Guest& g, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    std::string_view t = trim(line);
    if (t.empty()) continue;
    const At at{path, n, line};
    if (t.back() == ':') t.remove_suffix(1);
    const auto dash = t.find('-');
    const std::string_view kind = t.substr(0, dash);
    std::string_view version = dash == std::string_view::npos ? "" : t.substr(dash + 1);
    if (kind == "OFED") version = version.substr(version.find('-') + 1);  // OFED-internal-X
    if (version.empty() || version.front() < '0' || version.front() > '9') {
      at.fail(t, "expected 'MLNX_OFED_LINUX-VERSION:' (ofed_info -s)");
    }
    g.set_ofed_version(Fact{std::string(t), at.origin()});
    return;
  }
}

void load_nccl_log(Guest& g, std::string_view text, const std::string& path) {
  // INFO(NCCL_ENV, "NCCL_TOPO_FILE set by environment to %s") in ncclTopoGetSystem
  // (src/graph/topo.cc); INFO(NCCL_GRAPH, "Loading topology file %s") in
  // ncclTopoGetXmlFromFile (src/graph/xml.cc), which also reads the default
  // /var/run/nvidia-topologyd/virtualTopology.xml.
  constexpr std::string_view kSet = "NCCL_TOPO_FILE set by environment to ";
  constexpr std::string_view kLoading = "Loading topology file ";
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    for (const std::string_view key : {kSet, kLoading}) {
      const auto at = line.find(key);
      if (at == std::string_view::npos || !is_nccl_log_line(line)) continue;
      const std::string_view value = trim(line.substr(at + key.size()));
      if (!value.empty() && !g.nccl_topo_file()) {
        g.set_nccl_topo_file(Fact{std::string(value), pci::Origin{path, n}});
      }
    }
  }
  load_nccl_decisions(g.mutable_nccl_log(), text, path);
}

void load_environment(Guest& g, std::string_view text, const std::string& path) {
  constexpr std::string_view kKey = "NCCL_TOPO_FILE=";
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const std::string_view t = env_assignment(trim(line));
    if (!t.starts_with(kKey)) continue;
    const std::string_view value = unquote(t.substr(kKey.size()));
    if (!value.empty()) g.set_nccl_topo_file(Fact{std::string(value), pci::Origin{path, n}});
  }
}

}  // namespace vmxkit::guest
