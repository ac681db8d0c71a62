// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m`: a header of labels (GPU0.. then NIC0.., or mlx5_0.. from older
// drivers) and the affinity column names, one row per label with a cell per label and, for GPU
// rows, the affinity values, then `Legend:` and `NIC Legend:` (NIC0: mlx5_0).
#include "vmxkit/formats/host/nvidia_smi_topo.h"

#include <fmt/format.h>

#include <algorithm>

#include "vmxkit/core/error.h"
#include "vmxkit/core/text.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

std::uint32_t column(std::string_view line, std::string_view at) {
  if (at.data() < line.data() || at.data() > line.data() + line.size()) return 1;
  return static_cast<std::uint32_t>(at.data() - line.data() + 1);
}

// The extra columns the header names after the labels, in order.
enum class Extra : unsigned char { cpu, numa, gpu_numa };

std::vector<Extra> extra_columns(std::string_view rest) {
  std::vector<std::pair<std::size_t, Extra>> found;
  for (const auto& [name, kind] : {std::pair{std::string_view("CPU Affinity"), Extra::cpu},
                                   std::pair{std::string_view("NUMA Affinity"), Extra::numa},
                                   std::pair{std::string_view("GPU NUMA ID"), Extra::gpu_numa}}) {
    if (const auto at = rest.find(name); at != std::string_view::npos) found.emplace_back(at, kind);
  }
  std::sort(found.begin(), found.end());
  std::vector<Extra> out;
  out.reserve(found.size());
  for (const auto& f : found) out.push_back(f.second);
  return out;
}

struct Reader {
  const std::string& path;
  SmiTopo topo;
  std::vector<Extra> extras;
  enum { header, rows, after, nic_legend } state = header;

  void read_header(std::string_view t, std::uint32_t n) {
    const auto w = split_any(t, " \t");
    std::size_t i = 0;
    for (; i < w.size(); ++i) {
      if (w[i] == "CPU" || w[i] == "NUMA" || (w[i] == "GPU" && i + 1 < w.size())) break;
      topo.labels.emplace_back(w[i]);
    }
    if (topo.labels.empty() || !topo.labels.front().starts_with("GPU")) {
      throw Error(path, n, 1, "expected the GPU0 ... header of nvidia-smi topo -m");
    }
    if (i < w.size())
      extras = extra_columns(t.substr(static_cast<std::size_t>(w[i].data() - t.data())));
    topo.where = Origin{path, n};
    state = rows;
  }

  void read_row(std::string_view line, std::string_view t, std::uint32_t n) {
    const std::size_t labels = topo.labels.size();
    const auto w = split_any(t, " \t");
    if (w.size() < labels + 1) {
      throw Error(path, n, column(line, t),
                  fmt::format("expected {} cells after the row label", labels));
    }
    const std::string& want = topo.labels[topo.cells.size() % labels];
    if (w[0] != want) {
      throw Error(path, n, column(line, w[0]),
                  fmt::format("expected row {}, found '{}'", want, w[0]));
    }
    if (topo.cells.size() >= labels) return;  // a second matrix: the first is kept
    if (topo.cells.empty()) topo.first_row_line = n;
    std::vector<std::string> row;
    for (std::size_t i = 1; i <= labels; ++i) row.emplace_back(w[i]);
    topo.cells.push_back(std::move(row));
    std::string values[3];
    for (std::size_t k = 0; k < extras.size() && labels + 1 + k < w.size(); ++k) {
      values[static_cast<int>(extras[k])] = std::string(w[labels + 1 + k]);
    }
    topo.cpu_affinity.push_back(values[0]);
    topo.numa_affinity.push_back(values[1]);
    topo.gpu_numa_id.push_back(values[2]);
  }

  void read_line(std::string_view line, std::uint32_t n) {
    const std::string_view t = trim(line);
    if (t.empty()) {
      if (state == rows) state = after;
      return;
    }
    if (state == header) {
      // A comment, or the shell prompt line of the command (`$ nvidia-smi topo -m`).
      if (t.starts_with('#') || contains(t, "nvidia-smi topo")) return;
      return read_header(t, n);
    }
    if (state == rows) return read_row(line, t, n);
    if (t == "NIC Legend:") {
      state = nic_legend;
      return;
    }
    if (state == nic_legend && t.starts_with("NIC")) {
      const auto c = t.find(':');
      if (c != std::string_view::npos) {
        topo.nic_names[std::string(trim(t.substr(0, c)))] = std::string(trim(t.substr(c + 1)));
      }
    }
  }
};

}  // namespace

std::string strip_ansi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < line.size() && ((line[j] >= '0' && line[j] <= '9') || line[j] == ';')) ++j;
      if (j < line.size() && line[j] == 'm') {
        i = j;
        continue;
      }
    }
    out += line[i];
  }
  return out;
}

bool is_smi_topo_header(std::string_view line) {
  const std::string clean = strip_ansi(line);
  const std::string_view t = trim(clean);
  return t.starts_with("GPU0") && (contains(t, "CPU Affinity") || contains(t, "NIC0") ||
                                   contains(t, "GPU1") || contains(t, "NUMA Affinity"));
}

SmiTopo parse_nvidia_smi_topo(std::string_view text, const std::string& path) {
  Reader r{path, {}, {}};
  std::uint32_t n = 0;
  for (const std::string_view raw : LineRange(text)) {
    ++n;
    if (raw.find('\x1b') == std::string_view::npos) {
      r.read_line(raw, n);
    } else {
      const std::string clean = strip_ansi(raw);
      r.read_line(clean, n);
    }
  }
  if (r.state == Reader::header) throw Error(path, "empty nvidia-smi topo -m output");
  if (r.topo.cells.size() < r.topo.labels.size()) {
    throw Error(path, n, 1,
                fmt::format("nvidia-smi topo -m: {} rows for {} columns", r.topo.cells.size(),
                            r.topo.labels.size()));
  }
  return std::move(r.topo);
}

void load_nvidia_smi_topo(Host& host, std::string_view text, const std::string& path) {
  SmiTopo topo = parse_nvidia_smi_topo(text, path);
  if (host.smi_topo()) {
    host.warn(topo.where, fmt::format("a second nvidia-smi topo -m is ignored; {} is read",
                                      host.smi_topo()->where.to_string()));
    return;
  }
  host.set_smi_topo(std::move(topo));
}

}  // namespace vmxkit::pci
