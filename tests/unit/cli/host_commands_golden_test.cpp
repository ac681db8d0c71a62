// SPDX-License-Identifier: Apache-2.0
// topo, mmio, host-check and lint of vSphere client documents, text and JSON, compared byte for
// byte with golden files in tests/data/cli/. The command line runs in-process from the source
// tree, so the paths in the output are the relative ones a user would type.
// VMXKIT_UPDATE_SNAPSHOTS=1 rewrites the goldens (read the diff before committing it).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* k2s = "examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt";
constexpr const char* kEsxiPci = "examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-pci.txt";
constexpr const char* kEsxiMemory =
    "examples/hosts/synthetic-esxi-1s-2sw-4gpu-2nic.esxcli-memory.txt";
constexpr const char* kAcsAtsGeforce = "tests/data/rules/host-one-switch-acs-ats-geforce.txt";
constexpr const char* kUnknownGpu = "tests/data/rules/host-one-switch-unknown-gpu.txt";
constexpr const char* kGrubQuiet = "tests/data/cli/grub-quiet.txt";
constexpr const char* kCmdlineOn = "tests/data/cli/cmdline-iommu-on.txt";
constexpr const char* kClients = "tests/data/vsphere/clients/";

struct GoldenCase {
  std::string name;  ///< tests/data/cli/<name>.txt and <name>.json
  std::vector<std::string> args;
  int code;  ///< the exit code, the same for both formats
};

// Every case runs as text and as `--format json`.
const std::vector<GoldenCase> kCases = {
    {"topo.synthetic-2s", {"topo", k2s}, 0},
    {"topo.synthetic-2s-iommu-on", {"topo", k2s, "--cmdline", kCmdlineOn}, 0},
    {"topo.synthetic-esxi", {"topo", kEsxiPci, "--host", kEsxiMemory}, 0},
    {"topo.synthetic-esxi-no-numa", {"topo", kEsxiPci}, 0},
    {"topo.one-switch-acs-ats-geforce", {"topo", kAcsAtsGeforce}, 0},
    {"topo.one-switch-unknown-gpu-all-nics", {"topo", kUnknownGpu, "--all-nics"}, 0},
    {"mmio.synthetic-2s", {"mmio", k2s, "--device", "0000:18:00.0", "--device", "0000:19:00.0"}, 0},
    {"mmio.synthetic-esxi",
     {"mmio", kEsxiPci, "--device", "0000:03:00.0", "--device", "0000:04:00.0", "--device",
      "0000:05:00.0"},
     0},
    {"mmio.h100-sxm-x8",
     {"mmio", "--device", "h100-sxm", "--device", "h100-sxm", "--device", "h100-sxm", "--device",
      "h100-sxm", "--device", "h100-sxm", "--device", "h100-sxm", "--device", "h100-sxm",
      "--device", "h100-sxm"},
     0},
    {"mmio.unknown-gpu", {"mmio", kUnknownGpu, "--device", "0000:1a:00.0"}, 0},
    {"host-check.synthetic-2s", {"host-check", k2s}, 1},
    {"host-check.synthetic-2s-grub-quiet", {"host-check", k2s, "--cmdline", kGrubQuiet}, 1},
    {"host-check.synthetic-esxi", {"host-check", kEsxiPci, "--host", kEsxiMemory}, 0},
    {"host-check.one-switch-acs-ats-geforce", {"host-check", kAcsAtsGeforce}, 1},
    // What vSphere clients hand back (tests/data/vsphere/clients/): each VM linted.
    {"lint.clients-govc-vm-info", {"lint", kClients + std::string("govc-vm-info.json")}, 1},
    {"lint.clients-retrievepropertiesex",
     {"lint", kClients + std::string("retrievepropertiesex-2vms.xml")},
     1},
};

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

// "line N: expected `...`, got `...`" for the first line that differs.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected);
  std::istringstream a(actual);
  std::string el;
  std::string al;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, el));
    const bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e && !more_a) return "only in the final newline";
    if (!more_e || !more_a || el != al) {
      return "line " + std::to_string(line) + ": expected `" + (more_e ? el : "<end>") +
             "`, got `" + (more_a ? al : "<end>") + "`";
    }
  }
}

void check_golden(const std::string& file, const std::string& actual) {
  const fs::path path = vmxkit::test::source_path("tests/data/cli/" + file);
  if (update_snapshots()) {
    vmxkit::test::write_bytes(path, actual);
    WARN("rewrote " << path.string());
    return;
  }
  INFO("golden " << path.string() << " (VMXKIT_UPDATE_SNAPSHOTS=1 rewrites it)");
  REQUIRE(fs::exists(path));
  const std::string expected = vmxkit::test::read_bytes(path);
  if (expected != actual) FAIL_CHECK(first_difference(expected, actual));
}

}  // namespace

TEST_CASE("topo, mmio, host-check and lint of client documents print exactly their goldens",
          "[cli][golden]") {
  InSourceTree in_source_tree;
  for (const GoldenCase& c : kCases) {
    for (const std::string format : {"text", "json"}) {
      std::vector<std::string> args = c.args;
      if (format == "json") {
        args.push_back("--format");
        args.push_back("json");
      }
      INFO(c.name << " as " << format);
      const vmxkit::test::CliResult r = vmxkit::test::run_cli(args);
      CHECK(r.code == c.code);
      CHECK(r.err.empty());
      if (format == "json") CHECK_NOTHROW(nlohmann::json::parse(r.out));
      check_golden(c.name + (format == "json" ? ".json" : ".txt"), r.out);
    }
  }
}

TEST_CASE("a golden comparison names the first line that differs", "[cli][golden]") {
  CHECK(first_difference("a\nb\nc\n", "a\nB\nc\n") == "line 2: expected `b`, got `B`");
  CHECK(first_difference("a\n", "a\nb\n") == "line 2: expected `<end>`, got `b`");
  CHECK(first_difference("a\n", "a") == "only in the final newline");
}
