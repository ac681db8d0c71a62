// SPDX-License-Identifier: Apache-2.0
// `vmxkit topo --format dot|svg [--vm VM.vmx] [-o FILE]`: the built binary run as a process, the
// in-process command line for errors, and the pictures of examples/hosts/ regenerated and
// compared with the committed ones (VMXKIT_UPDATE_SNAPSHOTS=1 rewrites them).
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "support/support.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kExample = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";
constexpr const char* kVm = "examples/vmx/split-across-sockets.vmx";

using Process = vmxkit::test::ShellResult;

// The vmxkit binary run by the shell with `args` (already quoted), from the source tree.
Process run_binary(const std::string& args) {
  const std::string command =
      std::string("cd '") + VMXKIT_SOURCE_DIR + "' && '" + VMXKIT_BINARY + "' " + args;
  return vmxkit::test::run_shell(command);
}

// The lines of an SVG, sorted. Graphviz orders the clusters in its SVG by where their names
// happen to be in memory; the lines, each an element with its coordinates, do not move.
std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

bool update_snapshots() {
  const char* v = std::getenv("VMXKIT_UPDATE_SNAPSHOTS");
  return v != nullptr && std::string(v) == "1";
}

// Runs the command line from the source tree (relative paths in, relative paths out).
class InSourceTree {
 public:
  InSourceTree() : saved_(fs::current_path()) { fs::current_path(VMXKIT_SOURCE_DIR); }
  InSourceTree(const InSourceTree&) = delete;
  InSourceTree& operator=(const InSourceTree&) = delete;
  ~InSourceTree() { fs::current_path(saved_); }

 private:
  fs::path saved_;
};

}  // namespace

TEST_CASE("the vmxkit binary writes the PCIe tree as DOT to stdout", "[cli][topo][diagram]") {
  const Process p = run_binary(std::string("topo '") + kExample + "' --format dot");
  CHECK(p.code == 0);
  CHECK(p.out.rfind("digraph \"pcie\" {\n", 0) == 0);
  CHECK(p.out.find("\"0000:18:00.0\" [class=\"gpu\"") != std::string::npos);
  CHECK(p.out.find("<B>GPU0 0000:18:00.0</B>") != std::string::npos);
  CHECK(p.out.find("subgraph \"cluster_numa1\"") != std::string::npos);
  CHECK(p.out.find("class=\"pair\"") == std::string::npos);  // no VM, no pairs
}

TEST_CASE("the vmxkit binary writes the SVG with a VM's pairs to -o and nothing to stdout",
          "[cli][topo][diagram]") {
  vmxkit::test::TempDir dir;
  const fs::path file = dir / "host.svg";
  const Process p = run_binary(std::string("topo '") + kExample + "' --format svg --vm '" + kVm +
                               "' -o '" + file.string() + "'");
  CHECK(p.code == 0);
  CHECK(p.out.empty());
  REQUIRE(fs::exists(file));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(vmxkit::test::read_bytes(file).c_str()));
  std::map<std::string, std::string> pairs;  // "tail->head" -> label
  for (const pugi::xpath_node& g : doc.select_nodes("//*[local-name()='g'][@class='edge pair']")) {
    std::string title = g.node().child("title").text().get();
    for (std::size_t at; (at = title.find(":s")) != std::string::npos;) title.erase(at, 2);
    pairs[title] = g.node().child("text").text().get();
  }
  // GPU0 with NIC0 (one switch), GPU2 (another switch of socket 0) and GPU4 (socket 1); GPU2
  // with its nearest NIC in the VM, NIC0; GPU4 with NIC4 below its own switch.
  CHECK(pairs == std::map<std::string, std::string>{{"0000:18:00.0->0000:19:00.0", "PIX"},
                                                    {"0000:18:00.0->0000:3a:00.0", "NODE"},
                                                    {"0000:18:00.0->0000:9d:00.0", "SYS"},
                                                    {"0000:3a:00.0->0000:9d:00.0", "SYS"},
                                                    {"0000:3a:00.0->0000:19:00.0", "NODE"},
                                                    {"0000:9d:00.0->0000:9e:00.0", "PIX"}});
}

TEST_CASE("topo diagrams: --vm needs a diagram format, bad input exits 2 with file:line:col",
          "[cli][topo][diagram]") {
  InSourceTree in_source_tree;
  auto r = vmxkit::test::run_cli({"topo", kExample, "--vm", kVm});
  CHECK(r.code == 2);
  CHECK(r.err.find("--vm highlights the VM's devices on a diagram") != std::string::npos);
  r = vmxkit::test::run_cli({"topo", kExample, "--format", "png"});
  CHECK(r.code == 2);
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "bad.txt",
                            "3b:00.0 Ethernet controller: X\n\tRegion 0: Memory at zz (64-bit)\n");
  r = vmxkit::test::run_cli({"topo", (dir / "bad.txt").string(), "--format", "svg"});
  CHECK(r.code == 2);
  CHECK(r.err.find("bad.txt:2:22: expected a hex address") != std::string::npos);
  // A passthrough entry naming no device of the host: a warning with its place, no highlight.
  vmxkit::test::write_bytes(
      dir / "vm.vmx", "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"00000:200:00.0\"\n");
  r = vmxkit::test::run_cli(
      {"topo", kExample, "--format", "dot", "--vm", (dir / "vm.vmx").string()});
  CHECK(r.code == 0);
  CHECK(r.err.find("vm.vmx:2:20: pciPassthru0 names no device of the host") != std::string::npos);
  CHECK(r.out.find("VM: ") == std::string::npos);
}

TEST_CASE("the pictures of examples/hosts are what topo --format svg draws",
          "[cli][topo][diagram][snapshots]") {
  // Each picture is drawn by the binary in a process of its own: Graphviz keeps state between
  // renderings in one process that moves an xlabel or two. Each example host: its captures
  // (NAME.FORMAT.txt files sharing NAME), drawn to NAME.svg; the two-socket host also with
  // examples/vmx/split-across-sockets.vmx.
  std::map<std::string, std::vector<std::string>> hosts;
  for (const auto& e : fs::directory_iterator(vmxkit::test::source_path("examples/hosts"))) {
    if (e.path().extension() != ".txt") continue;
    const std::string file = e.path().filename().string();
    hosts[file.substr(0, file.find('.'))].push_back("examples/hosts/" + file);
  }
  REQUIRE(hosts.size() == 2);
  std::vector<std::pair<std::string, std::string>> pictures;  // file, vmxkit arguments
  for (auto& [name, files] : hosts) {
    std::sort(files.begin(), files.end());
    std::string args = "topo";
    for (const std::string& f : files) args += " '" + f + "'";
    args += " --format svg";
    pictures.emplace_back("examples/hosts/" + name + ".svg", args);
    if (name == "synthetic-2s-4sw-8gpu-8nic") {
      pictures.emplace_back("examples/hosts/" + name + ".split-across-sockets.svg",
                            args + " --vm '" + kVm + "'");
    }
  }
  for (const auto& [picture, args] : pictures) {
    INFO(picture << " (VMXKIT_UPDATE_SNAPSHOTS=1 rewrites it)");
    const Process r = run_binary(args);  // stderr goes into `out` too: it must say nothing
    CHECK(r.code == 0);
    const fs::path file = vmxkit::test::source_path(picture);
    if (update_snapshots()) {
      vmxkit::test::write_bytes(file, r.out);
      WARN("rewrote " << picture);
      continue;
    }
    REQUIRE(fs::exists(file));
    CHECK(sorted_lines(vmxkit::test::read_bytes(file)) == sorted_lines(r.out));
  }
}
