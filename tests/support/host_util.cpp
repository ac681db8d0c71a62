// SPDX-License-Identifier: Apache-2.0
#include "support/host_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

#include "support/support.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"

namespace vmxkit::test {

pci::Host host_from(const std::vector<std::pair<std::string, std::string>>& inputs) {
  pci::Host host;
  for (const auto& [name, text] : inputs) pci::load_text(host, text, name);
  host.finalize();
  return host;
}

Cells matrix_cells(const std::string& text) {
  Cells cells;
  std::istringstream in(text);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (trim(line).empty()) break;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (header) {
      for (const std::string& s : w) {
        if (s == "CPU") break;
        cells.labels.push_back(s);
      }
      header = false;
      continue;
    }
    if (w.empty()) break;
    std::vector<std::string> row(
        w.begin() + 1, w.begin() + static_cast<long>(std::min(w.size(), cells.labels.size() + 1)));
    cells.rows.push_back(row);
  }
  return cells;
}

std::string scale_host_text(unsigned devices) {
  std::string out;
  out.reserve(std::size_t{devices} * 200);
  auto bridge = [&](unsigned dom, unsigned bus, unsigned dev, unsigned sec, unsigned sub,
                    const char* type, int numa) {
    out += fmt::format(
        "{:04x}:{:02x}:{:02x}.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch "
        "[1000:c030]\n"
        "\tBus: primary={:02x}, secondary={:02x}, subordinate={:02x}, sec-latency=0\n"
        "\tNUMA node: {}\n\tCapabilities: [68] Express (v2) {}, IntMsgNum 0\n\n",
        dom, bus, dev, bus, sec, sub, numa, type);
  };
  for (unsigned dom = 0; dom < devices / 256; ++dom) {
    const int numa = static_cast<int>(dom / 8);
    out += fmt::format(
        "{:04x}:00:00.0 Host bridge [0600]: Intel Corporation Device [8086:09a2]\n\tNUMA node: "
        "{}\n\n",
        dom, numa);
    bridge(dom, 0, 1, 1, 0x22, "Root Port (Slot+)", numa);
    bridge(dom, 1, 0, 2, 0x22, "Upstream Port", numa);
    for (unsigned k = 0; k < 32; ++k)
      bridge(dom, 2, k, 3 + k, 3 + k, "Downstream Port (Slot+)", numa);
    for (unsigned k = 0; k < 32; ++k) {
      const unsigned count = k < 29 ? 7 : 6;
      for (unsigned dev = 0; dev < count; ++dev) {
        const unsigned bus = 3 + k;
        if (dev == 0 && k < 4) {
          out += fmt::format(
              "{:04x}:{:02x}:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] "
              "[10de:2331]\n"
              "\tNUMA node: {}\n\tRegion 1: Memory at {:x} (64-bit, prefetchable) [size=128G]\n\n",
              dom, bus, numa, (std::uint64_t{dom} << 42) | (std::uint64_t{k} << 37));
        } else if (dev == 0 && k < 8) {
          out += fmt::format(
              "{:04x}:{:02x}:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 "
              "Family [ConnectX-7] [15b3:1021]\n"
              "\tNUMA node: {}\n\tRegion 0: Memory at {:x} (64-bit, prefetchable) [size=32M]\n\n",
              dom, bus, numa, (std::uint64_t{dom} << 42) | (std::uint64_t{k} << 37));
        } else {
          out += fmt::format(
              "{:04x}:{:02x}:{:02x}.0 Non-Volatile memory controller [0108]: Samsung Electronics "
              "Co Ltd NVMe SSD Controller [144d:a80a]\n"
              "\tNUMA node: {}\n\tRegion 0: Memory at {:x} (64-bit, non-prefetchable) "
              "[size=16K]\n\n",
              dom, bus, dev, numa, 0x9c000000U + (k << 16) + (dev << 12));
        }
      }
    }
  }
  return out;
}

std::string gpu_farm_text(unsigned gpus) {
  std::string out;
  out.reserve(std::size_t{gpus} * 650);
  for (unsigned g = 0; g < gpus; ++g) {
    const unsigned domain = g / 127;
    const unsigned port_bus = 2 * (g % 127);
    const unsigned gpu_bus = port_bus + 1;
    out += fmt::format(
        "{0:04x}:{1:02x}:01.0 PCI bridge [0604]: Intel Corporation Device [8086:347a]\n"
        "\tBus: primary={1:02x}, secondary={2:02x}, subordinate={2:02x}, sec-latency=0\n"
        "\tNUMA node: {3}\n"
        "\tCapabilities: [68] Express (v2) Root Port (Slot+), MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\n"
        "{0:04x}:{2:02x}:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] "
        "[10de:2331]\n"
        "\tNUMA node: {3}\n"
        "\tRegion 0: Memory at 9e000000 (32-bit, non-prefetchable) [size=16M]\n"
        "\tRegion 1: Memory at 21a000000000 (64-bit, prefetchable) [size=128G]\n"
        "\tRegion 3: Memory at 21c000000000 (64-bit, prefetchable) [size=32M]\n"
        "\tCapabilities: [68] Express (v2) Endpoint, MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\n",
        domain, port_bus, gpu_bus, g % 2);
  }
  return out;
}

}  // namespace vmxkit::test

namespace vmxkit::test {
namespace {

struct LineRangeSpec {
  std::size_t first = 0;
  std::size_t last = 0;
};

LineRangeSpec parse_range(const std::string& value) {
  const auto dash = value.find('-');
  const auto space = value.find(' ');
  LineRangeSpec r;
  r.first = std::stoul(value.substr(0, dash));
  r.last =
      std::stoul(value.substr(dash + 1, space == std::string::npos ? space : space - dash - 1));
  return r;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string_view l : LineRange(text)) lines.emplace_back(l);
  return lines;
}

std::string lines_of(const std::vector<std::string>& lines, LineRangeSpec r) {
  REQUIRE(r.first >= 1);
  REQUIRE(r.last <= lines.size());
  std::string out;
  for (std::size_t i = r.first; i <= r.last; ++i) out += lines[i - 1] + "\n";
  return out;
}

}  // namespace

namespace {

// The corpus names `esxcli hardware pci list` captures `esxi-host-pci-list-*` (its README): they
// come without an nvidia-smi matrix, for the esxcli loader.
bool is_esxcli_capture(const std::string& name) { return name.starts_with("esxi-host-pci-list-"); }

std::vector<std::filesystem::path> captures_where(bool esxcli) {
  std::vector<std::filesystem::path> captures;
  for (const auto& e : std::filesystem::directory_iterator(corpus_dir("topology"))) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".source.txt") || name == "README.md") continue;
    if (is_esxcli_capture(name) == esxcli) captures.push_back(e.path());
  }
  std::sort(captures.begin(), captures.end());
  return captures;
}

}  // namespace

std::string socket(unsigned rb, int numa, const std::vector<std::string>& endpoints, bool acs) {
  std::string out;
  auto bridge = [&](unsigned bus, unsigned dev, unsigned sec, unsigned sub, const char* type,
                    bool redirect) {
    out += fmt::format(
        "0000:{:02x}:{:02x}.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch "
        "[1000:c030]\n"
        "\tBus: primary={:02x}, secondary={:02x}, subordinate={:02x}, sec-latency=0\n"
        "\tNUMA node: {}\n\tCapabilities: [68] Express (v2) {}, IntMsgNum 0\n"
        "\tCapabilities: [f24 v1] Access Control Services\n"
        "\t\tACSCtl:\tSrcValid{} TransBlk- ReqRedir{} CmpltRedir{} UpstreamFwd- EgressCtrl- "
        "DirectTrans-\n\n",
        bus, dev, bus, sec, sub, numa, type, redirect ? '+' : '-', redirect ? '+' : '-',
        redirect ? '+' : '-');
  };
  const auto n = static_cast<unsigned>(endpoints.size());
  bridge(rb, 1, rb + 1, rb + 2 + n, "Root Port (Slot+)", false);
  bridge(rb + 1, 0, rb + 2, rb + 2 + n, "Upstream Port", false);
  for (unsigned k = 0; k < n; ++k)
    bridge(rb + 2, k, rb + 3 + k, rb + 3 + k, "Downstream Port (Slot+)", acs);
  for (unsigned k = 0; k < n; ++k) {
    const std::string& e = endpoints[k];
    const unsigned bus = rb + 3 + k;
    if (e.rfind("gpu", 0) == 0) {
      const char* id = e == "gpu-geforce"     ? "10de:2684"
                       : e == "gpu-small-bar" ? "10de:2230"
                       : e == "gpu-l40s"      ? "10de:26b9"
                       : e == "gpu-a30"       ? "10de:20b7"
                       : e == "gpu-sxm"       ? "10de:2330"
                                              : "10de:2331";
      out += fmt::format(
          "0000:{:02x}:00.0 3D controller [0302]: NVIDIA Corporation Device [{}]\n"
          "\tNUMA node: {}\n"
          "\tRegion 1: Memory at 22000000000 (64-bit, prefetchable) [size={}]\n\n",
          bus, id, numa, e == "gpu-small-bar" ? "256M" : "128G");
    } else {
      out += fmt::format(
          "0000:{:02x}:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family "
          "[ConnectX-7] [15b3:1021]\n"
          "\tNUMA node: {}\n"
          "\tCapabilities: [1c0 v1] Address Translation Service (ATS)\n"
          "\t\tATSCtl:\tEnable{}, Smallest Translation Unit: 00\n\n",
          bus, numa, e == "nic-ats-off" ? '-' : '+');
    }
  }
  return out;
}

std::vector<std::filesystem::path> corpus_captures() { return captures_where(false); }

std::vector<std::filesystem::path> corpus_esxcli_captures() { return captures_where(true); }

CorpusCapture load_corpus_capture(const std::filesystem::path& capture) {
  const std::string name = capture.filename().string();
  const auto expected_path = source_path("tests/data/pci/corpus/" + name + ".expected");
  INFO("expected matrix file " << expected_path.string());
  REQUIRE(std::filesystem::exists(expected_path));
  const auto capture_lines = split_lines(read_bytes(capture));
  CorpusCapture out;
  bool in_expected = false;
  for (const std::string& line : split_lines(read_bytes(expected_path))) {
    if (in_expected) {
      out.expected += line + "\n";
    } else if (line.rfind("input: ", 0) == 0) {
      const LineRangeSpec r = parse_range(line.substr(7));
      out.inputs.emplace_back(name + ":" + std::to_string(r.first), lines_of(capture_lines, r));
    } else if (line.rfind("matrix: ", 0) == 0) {
      out.matrix_lines = lines_of(capture_lines, parse_range(line.substr(8)));
    } else if (line == "expected:") {
      in_expected = true;
    }
  }
  return out;
}

}  // namespace vmxkit::test
