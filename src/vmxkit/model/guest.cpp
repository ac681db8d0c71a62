// SPDX-License-Identifier: Apache-2.0
// A guest capture: split at shell prompt lines, each part detected by its content and read by
// its loader (loaders.cpp; the PCI listings by the pci module's loaders).
#include "vmxkit/model/guest.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/guest/loaders.h"
#include "vmxkit/formats/host/text.h"

namespace vmxkit::guest {
namespace {

// Commands whose output guest-check reads; a prompt line must run one of them. NCCL's log comes
// from a program that runs NCCL: an nccl-tests binary (`all_reduce_perf`), or a launcher.
constexpr std::array<std::string_view, 20> kCommands = {
    "lspci",   "lsmod",     "cat",    "nvidia-smi", "ibv_devinfo", "uname", "grep",
    "modinfo", "ofed_info", "sudo",   "head",       "tail",        "env",   "printenv",
    "mpirun",  "torchrun",  "python", "python3",    "srun",        "export"};

// `NAME=value`, as a shell takes an assignment before a command.
bool is_assignment(std::string_view word) {
  const auto eq = word.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
}

bool known_command(std::string_view cmd) {
  cmd = trim(cmd);
  std::string_view word = cmd.substr(0, cmd.find_first_of(" \t|"));
  while (is_assignment(word) && word.size() < cmd.size()) {
    cmd = trim(cmd.substr(word.size()));
    word = cmd.substr(0, cmd.find_first_of(" \t|"));
  }
  return std::find(kCommands.begin(), kCommands.end(), word) != kCommands.end() ||
         word.ends_with("_perf");
}

// The command of a shell prompt line (`$ lsmod`, `# lsmod`, `[root@vm ~]# lsmod`,
// `user@vm:~$ lsmod`), or nullopt when the line is not one.
std::optional<std::string_view> prompt_command(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() < 3) return std::nullopt;
  std::string_view cmd;
  if ((t[0] == '$' || t[0] == '#') && t[1] == ' ') {
    cmd = t.substr(2);
  } else {
    // `[user@host dir]# cmd`, `user@host:dir$ cmd`: a prefix without spaces but the one inside
    // the brackets, holding '@', then "# " or "$ ".
    std::size_t end = std::string_view::npos;
    for (const std::string_view mark : {"]# ", "]$ ", "# ", "$ "}) {
      const std::size_t at = t.find(mark);
      if (at != std::string_view::npos && (end == std::string_view::npos || at < end)) {
        end = at + mark.size();
      }
    }
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view prefix = t.substr(0, end - 2);
    if (prefix.find('@') == std::string_view::npos) return std::nullopt;
    if (prefix.front() != '[' && prefix.find(' ') != std::string_view::npos) return std::nullopt;
    cmd = t.substr(end);
  }
  if (!known_command(cmd)) return std::nullopt;
  return trim(cmd);
}

// `[... cut ...]`, `[...]`: a line someone put in to say output was left out.
bool elision_marker(std::string_view line) {
  const std::string_view t = trim(line);
  return t.size() >= 5 && t.front() == '[' && t.back() == ']' &&
         (t.substr(1, 3) == "..." || t.substr(1, 3) == "\xe2\x80\xa6");
}

// The value of an `NCCL_TOPO_FILE=...` assignment on a command line, quotes removed.
std::optional<std::string_view> topo_file_assignment(std::string_view command) {
  constexpr std::string_view kKey = "NCCL_TOPO_FILE=";
  const auto at = command.find(kKey);
  if (at == std::string_view::npos || (at > 0 && command[at - 1] != ' ')) return std::nullopt;
  std::string_view v = command.substr(at + kKey.size());
  v = v.substr(0, v.find_first_of(" \t;|&"));
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  if (v.empty()) return std::nullopt;
  return v;
}

bool is_filtered(std::string_view command) { return command.find('|') != std::string_view::npos; }

}  // namespace

std::string_view to_string(InputKind kind) {
  switch (kind) {
    case InputKind::lspci:
      return "lspci";
    case InputKind::lspci_tree:
      return "lspci -tv";
    case InputKind::lsmod:
      return "lsmod";
    case InputKind::cmdline:
      return "/proc/cmdline";
    case InputKind::nvidia_smi:
      return "nvidia-smi";
    case InputKind::nvidia_smi_query:
      return "nvidia-smi -q";
    case InputKind::nvidia_smi_topo:
      return "nvidia-smi topo -m";
    case InputKind::ibv_devinfo:
      return "ibv_devinfo";
    case InputKind::uname:
      return "uname -r";
    case InputKind::module_versions:
      return "/sys/module/*/version";
    case InputKind::nvidia_version:
      return "/proc/driver/nvidia/version";
    case InputKind::modinfo:
      return "modinfo";
    case InputKind::ofed_info:
      return "ofed_info -s";
    case InputKind::nccl_log:
      return "NCCL log";
    case InputKind::environment:
      return "env";
    case InputKind::nccl_topo_dump:
      return "NCCL topology dump";
  }
  return "unknown";
}

bool same_module(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] == '-' ? '_' : a[i];
    const char y = b[i] == '-' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

Guest::Guest() : host_(pci::Catalog::builtin()) {}

bool Guest::has(InputKind kind) const {
  return std::any_of(inputs_.begin(), inputs_.end(),
                     [&](const InputRead& r) { return r.kind == kind; });
}

bool Guest::has_full_lspci() const {
  return std::any_of(inputs_.begin(), inputs_.end(), [](const InputRead& r) {
    return (r.kind == InputKind::lspci || r.kind == InputKind::lspci_tree) && !r.filtered;
  });
}

void Guest::set_modules(std::vector<Module> modules) {
  if (!modules_) {
    modules_ = std::move(modules);
    return;
  }
  for (Module& m : modules) modules_->push_back(std::move(m));
}

void Guest::set_driver_version(Fact f) {
  if (!driver_version_) driver_version_ = std::move(f);
}

void Guest::add_smi_gpu(SmiGpu gpu) {
  for (SmiGpu& g : smi_gpus_) {
    if (g.bus_id && gpu.bus_id && *g.bus_id == *gpu.bus_id) {
      if (!g.bar1_total) g.bar1_total = gpu.bar1_total;
      if (g.product.empty()) g.product = std::move(gpu.product);
      return;
    }
  }
  smi_gpus_.push_back(std::move(gpu));
}

void Guest::set_ib_devices(std::vector<IbDevice> devices) {
  if (!ib_devices_) ib_devices_.emplace();
  for (IbDevice& d : devices) ib_devices_->push_back(std::move(d));
}

void Guest::set_module_version(const std::string& name, Fact f) {
  module_versions_[name] = std::move(f);
}

void Guest::set_open_kernel_module(bool open, pci::Origin where) {
  if (!open_module_) open_module_ = Fact{open ? "open" : "proprietary", std::move(where)};
}

std::optional<bool> Guest::module_loaded(std::string_view name) const {
  bool filtered_lsmod = false;
  for (const InputRead& r : inputs_) filtered_lsmod |= r.kind == InputKind::lsmod && r.filtered;
  if (modules_) {
    for (const Module& m : *modules_) {
      if (same_module(m.name, name)) return true;
    }
    if (!filtered_lsmod) return false;
  }
  for (const auto& [mod, fact] : module_versions_) {
    if (same_module(mod, name)) return true;
  }
  for (const pci::Device& d : host_.devices()) {
    if (!d.driver.empty() && same_module(d.driver, name)) return true;
  }
  return std::nullopt;
}

void Guest::load_text(std::string_view text, const std::string& path) {
  if (finalized_) throw Error("guest inputs added after finalize()");
  // Sections: the text between prompt lines. Lines before the first prompt form a section with
  // no command. Elision markers and blank lines are dropped (kept as empty lines, so every
  // loader's line numbers are the file's).
  struct Part {
    std::string command;
    std::vector<std::pair<std::uint32_t, std::string_view>> lines;  // line number, line
  };
  std::vector<Part> parts(1);
  std::uint32_t line_no = 0;
  bool any_prompt = false;
  for (const std::string_view line : LineRange(text)) {
    ++line_no;
    if (const auto cmd = prompt_command(line)) {
      any_prompt = true;
      if (const auto topo = topo_file_assignment(*cmd); topo && !nccl_topo_file_) {
        nccl_topo_file_ = Fact{std::string(*topo), pci::Origin{path, line_no}};
      }
      parts.push_back(Part{std::string(*cmd), {}});
      continue;
    }
    if (elision_marker(line) || trim(line).empty()) continue;
    parts.back().lines.emplace_back(line_no, line);
  }
  std::size_t read = 0;
  for (const Part& p : parts) {
    if (p.lines.empty()) continue;
    // The part's lines at their own line numbers, so every loader's positions are the file's.
    std::string body;
    std::uint32_t at = 1;
    for (const auto& [n, line] : p.lines) {
      body.append(n - at, '\n');
      body.append(line.data(), line.size());
      body += '\n';
      at = n + 1;
    }
    load_section(body, path, p.lines.front().first, p.command);
    ++read;
  }
  if (read == 0) {
    throw Error(path, any_prompt ? "no command output after the shell prompts"
                                 : "empty guest input: expected the output of a command run in "
                                   "the guest (lspci -vvv, lsmod, nvidia-smi -q, ...)");
  }
}

void Guest::load_section(std::string_view text, const std::string& path, std::uint32_t first_line,
                         const std::string& command) {
  const InputKind kind = detect_kind(text, path);
  InputRead read{kind, pci::Origin{path, first_line}, command, is_filtered(command)};
  switch (kind) {
    case InputKind::lspci:
      pci::load_lspci_verbose(host_, text, path);
      if (text.find("\n\t") != std::string_view::npos ||
          text.find("\n        ") != std::string_view::npos) {
        lspci_verbose_ = true;
      }
      break;
    case InputKind::lspci_tree:
      pci::load_lspci_tree(host_, text, path);
      break;
    case InputKind::lsmod:
      load_lsmod(*this, text, path);
      break;
    case InputKind::cmdline:
      load_cmdline(*this, text, path);
      break;
    case InputKind::nvidia_smi:
      load_nvidia_smi(*this, text, path);
      break;
    case InputKind::nvidia_smi_query:
      load_nvidia_smi_query(*this, text, path);
      break;
    case InputKind::nvidia_smi_topo:
      load_nvidia_smi_topo(*this, text, path);
      break;
    case InputKind::ibv_devinfo:
      load_ibv_devinfo(*this, text, path);
      break;
    case InputKind::uname:
      load_uname(*this, text, path);
      break;
    case InputKind::module_versions:
      load_module_versions(*this, text, path);
      break;
    case InputKind::nvidia_version:
      load_nvidia_version(*this, text, path);
      break;
    case InputKind::modinfo:
      load_modinfo(*this, text, path);
      break;
    case InputKind::ofed_info:
      load_ofed_info(*this, text, path);
      break;
    case InputKind::nccl_log:
      load_nccl_log(*this, text, path);
      break;
    case InputKind::environment:
      load_environment(*this, text, path);
      break;
    case InputKind::nccl_topo_dump:
      set_nccl_topo_dump(NcclTopoDumpText{std::string(text), pci::Origin{path, first_line}});
      break;
  }
  inputs_.push_back(std::move(read));
}

void Guest::finalize() {
  if (finalized_) return;
  finalized_ = true;
  host_.finalize();
}

Guest load_guest(const std::vector<std::string>& paths) {
  Guest g;
  for (const std::string& p : paths) g.load_text(read_file(p), p);
  g.finalize();
  return g;
}

}  // namespace vmxkit::guest
