// SPDX-License-Identifier: Apache-2.0
// Flags before or after the files: a repeatable flag takes one value each time, so it never
// swallows the file that follows it, and every order the README shows gives the same result.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/support.h"

using vmxkit::test::run_cli;
using vmxkit::test::source_path;

namespace {

std::string host() {
  return source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt").string();
}
std::string vm() { return source_path("examples/vmx/gpu-rdma-worker.vmx").string(); }

// Runs each order of one command and checks that they all answer as the first does.
void same_in_every_order(const std::vector<std::vector<std::string>>& orders) {
  const auto first = run_cli(orders.front());
  INFO(first.err);
  CHECK(first.code != 2);
  for (const auto& args : orders) {
    std::string line;
    for (const std::string& a : args) line += a + " ";
    INFO(line);
    const auto r = run_cli(args);
    INFO(r.err);
    CHECK(r.code == first.code);
    CHECK(r.out == first.out);
  }
}

}  // namespace

TEST_CASE("lint --host H vm.vmx --format sarif reads vm.vmx as the file, not a second host",
          "[cli][args]") {
  const auto r = run_cli({"lint", "--host", host(), vm(), "--format", "sarif"});
  INFO(r.err);
  CHECK(r.code != 2);
  CHECK(r.out.find("\"version\": \"2.1.0\"") != std::string::npos);
  CHECK(r.err.find("FILE is required") == std::string::npos);
}

TEST_CASE("lint's --host takes one value wherever it stands and the files stay files",
          "[cli][args]") {
  same_in_every_order({
      {"lint", vm(), "--host", host(), "--format", "json"},
      {"lint", "--host", host(), vm(), "--format", "json"},
      {"lint", "--format", "json", "--host", host(), vm()},
  });
  // Given twice, --host takes two captures (merged): the file is still the file.
  const auto twice =
      run_cli({"lint", "--host", host(), "--host", host(), vm(), "--format", "json"});
  CHECK(twice.code != 2);
  CHECK(twice.out.find("gpu-rdma-worker.vmx") != std::string::npos);
}

TEST_CASE("the README's lint, fix, topo, host-check and generate orders all give one answer",
          "[cli][args]") {
  // README: `vmxkit lint FILE... [--host HOST] [--format ...] [--fail-on LEVEL]`
  same_in_every_order({
      {"lint", vm(), "--host", host(), "--fail-on", "error"},
      {"lint", "--fail-on", "error", vm(), "--host", host()},
      {"lint", "--host", host(), vm(), "--fail-on", "error"},
  });
  // README: `vmxkit fix FILE [--unsafe-fixes] [--diff | -i]`, and `fix --host H F --diff`
  same_in_every_order({
      {"fix", vm(), "--host", host(), "--diff"},
      {"fix", "--host", host(), vm(), "--diff"},
      {"fix", "--diff", "--host", host(), vm()},
  });
  // README: `vmxkit topo HOST... [--format json]`
  same_in_every_order({
      {"topo", host(), "--format", "json"},
      {"topo", "--format", "json", host()},
  });
  // README: `vmxkit host-check HOST [--cmdline FILE] [--host-kind ...]`
  same_in_every_order({
      {"host-check", host(), "--host-kind", "kvm"},
      {"host-check", "--host-kind", "kvm", host()},
  });
  // README: `vmxkit generate --host HOST --gpu auto [--gpus N] --nic auto --system-id UUID`
  same_in_every_order({
      {"generate", "--host", host(), "--gpu", "auto", "--gpus", "2", "--nic", "auto", "--system-id",
       "x"},
      {"generate", "--gpu", "auto", "--nic", "auto", "--host", host(), "--gpus", "2", "--system-id",
       "x"},
  });
}

TEST_CASE("a repeatable flag given two values at once takes the first and refuses the second",
          "[cli][args]") {
  // `--gpu a b` is not two GPUs: b is an argument generate does not expect (exit 2).
  const auto r = run_cli({"generate", "--gpu", "h100-pcie", "h100-pcie", "--nic", "cx7"});
  CHECK(r.code == 2);
}

TEST_CASE("generate --gpu auto refused for GPUs without a NIC nearby offers --gpus N first",
          "[cli][generate]") {
  // One NIC behind GPU0 and GPU1's switch: the other six GPUs reach it only across the CPU.
  const auto r = run_cli({"generate", "--host", host(), "--gpu", "auto", "--nic", "0000:19:00.0"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--gpu auto takes all 8 GPUs; 2 of them have a NIC on a supported path") !=
        std::string::npos);
  CHECK(r.err.find("--gpus 2, or --gpus 1 for one pair") != std::string::npos);
  const auto fewer = run_cli({"generate", "--host", host(), "--gpu", "auto", "--gpus", "2", "--nic",
                              "0000:19:00.0", "--system-id", "x"});
  INFO(fewer.err);
  CHECK(fewer.code == 0);
}
