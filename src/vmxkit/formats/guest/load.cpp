// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/guest/load.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/core/io.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/guest/loaders.h"
#include "vmxkit/formats/host/load.h"

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

void load_section(Guest& g, std::string_view text, const std::string& path,
                  std::uint32_t first_line, const std::string& command) {
  const InputKind kind = detect_kind(text, path);
  InputRead read{kind, pci::Origin{path, first_line}, command, is_filtered(command)};
  switch (kind) {
    case InputKind::lspci:
      pci::load_lspci_verbose(g.mutable_pci(), text, path);
      if (text.find("\n\t") != std::string_view::npos ||
          text.find("\n        ") != std::string_view::npos) {
        g.set_lspci_verbose();
      }
      break;
    case InputKind::lspci_tree:
      pci::load_lspci_tree(g.mutable_pci(), text, path);
      break;
    case InputKind::lsmod:
      load_lsmod(g, text, path);
      break;
    case InputKind::cmdline:
      load_cmdline(g, text, path);
      break;
    case InputKind::nvidia_smi:
      load_nvidia_smi(g, text, path);
      break;
    case InputKind::nvidia_smi_query:
      load_nvidia_smi_query(g, text, path);
      break;
    case InputKind::nvidia_smi_topo:
      load_nvidia_smi_topo(g, text, path);
      break;
    case InputKind::ibv_devinfo:
      load_ibv_devinfo(g, text, path);
      break;
    case InputKind::uname:
      load_uname(g, text, path);
      break;
    case InputKind::module_versions:
      load_module_versions(g, text, path);
      break;
    case InputKind::nvidia_version:
      load_nvidia_version(g, text, path);
      break;
    case InputKind::modinfo:
      load_modinfo(g, text, path);
      break;
    case InputKind::ofed_info:
      load_ofed_info(g, text, path);
      break;
    case InputKind::nccl_log:
      load_nccl_log(g, text, path);
      break;
    case InputKind::environment:
      load_environment(g, text, path);
      break;
    case InputKind::nccl_topo_dump:
      g.set_nccl_topo_dump(NcclTopoDumpText{std::string(text), pci::Origin{path, first_line}});
      break;
  }
  g.add_input(std::move(read));
}

}  // namespace

void load_text(Guest& g, std::string_view text, const std::string& path) {
  if (g.finalized()) throw Error("guest inputs added after finalize()");
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
      if (const auto topo = topo_file_assignment(*cmd); topo && !g.nccl_topo_file()) {
        g.set_nccl_topo_file(Fact{std::string(*topo), pci::Origin{path, line_no}});
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
    load_section(g, body, path, p.lines.front().first, p.command);
    ++read;
  }
  if (read == 0) {
    throw Error(path, any_prompt ? "no command output after the shell prompts"
                                 : "empty guest input: expected the output of a command run in "
                                   "the guest (lspci -vvv, lsmod, nvidia-smi -q, ...)");
  }
}

Guest load_guest(const std::vector<std::string>& paths) {
  Guest g;
  for (const std::string& p : paths) load_text(g, read_file(p), p);
  g.finalize();
  return g;
}

}  // namespace vmxkit::guest
