// SPDX-License-Identifier: Apache-2.0
// Every command's standard output is checked: a result that did not reach it whole is exit 2
// with the OS error, never exit 0 with a short or empty file.
#include "cli/output_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "support/support.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_shell;
using vmxkit::test::source_path;
using vmxkit::test::write_bytes;

namespace {

// A stream buffer whose every write fails, as a full disk's.
class FailingBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

std::string src(const std::string& relative) { return source_path(relative).string(); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_CASE("a command whose output cannot be written exits 2 and says so", "[cli][output]") {
  FailingBuffer failing;
  std::ostream out(&failing);
  std::istringstream in;
  std::ostringstream err;
  const int code = vmxkit::cli::run({"rules"}, in, out, err);
  CHECK(code == vmxkit::cli::kExitInput);
  CHECK_THAT(err.str(), Catch::Contains("vmxkit: error: <stdout>: cannot write"));

  // The same command to a stream that takes its output: exit 0, nothing said.
  std::ostringstream good;
  std::ostringstream quiet;
  CHECK(vmxkit::cli::run({"rules"}, in, good, quiet) == vmxkit::cli::kExitClean);
  CHECK(quiet.str().empty());
  CHECK_FALSE(good.str().empty());
}

TEST_CASE("the stdout buffer keeps the OS error of its first failed write", "[cli][output]") {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  {
    vmxkit::cli::FdOutputBuffer buffer(fd);
    std::ostream out(&buffer);
    out << "small";  // buffered: the failure shows at the flush
    CHECK(buffer.error() == 0);
    CHECK(vmxkit::cli::output_failure(out) == "<stdout>: cannot write: No space left on device");
    CHECK(buffer.error() == ENOSPC);
  }
  ::close(fd);

  // Pieces below, at and above the buffer's size arrive whole and in order.
  vmxkit::test::TempDir dir;
  const auto path = dir / "out";
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(file >= 0);
  std::string expected;
  {
    vmxkit::cli::FdOutputBuffer buffer(file);
    std::ostream out(&buffer);
    for (const std::size_t size : {std::size_t{1}, std::size_t{65535}, std::size_t{65536},
                                   std::size_t{3}, std::size_t{200000}, std::size_t{70000}}) {
      const std::string piece(size, static_cast<char>('a' + size % 26));
      out << piece;
      expected += piece;
    }
    out << 'z';
    expected += 'z';
    CHECK(vmxkit::cli::output_failure(out).empty());
  }
  ::close(file);
  CHECK(read_bytes(path) == expected);
}

TEST_CASE("every command that prints to stdout exits 2 naming the OS error when stdout is full",
          "[cli][output]") {
  REQUIRE(std::filesystem::exists("/dev/full"));
  vmxkit::test::TempDir dir;
  const std::string vm = src("examples/vmx/gpu-rdma-worker.vmx");
  const std::string host = src("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt");
  const std::string guest = src("tests/data/guest/esxi-h100-cx7.capture.txt");
  // fmt writes an input of 1 MiB or more with writev(2), not through the stream.
  const std::string big = (dir / "big.vmx").string();
  std::string text;
  while (text.size() < (std::size_t{2} << 20)) {
    text += "big.k" + std::to_string(text.size()) + " = \"" + std::string(100, 'v') + "\"\n";
  }
  write_bytes(big, text);
  const std::vector<std::string> commands = {
      "lint " + quoted(vm),
      "lint --format json " + quoted(vm),
      "lint --format sarif " + quoted(vm),
      "fix " + quoted(vm),
      "fix --diff --unsafe-fixes " + quoted(vm),
      "get " + quoted(vm) + " memsize",
      "set " + quoted(vm) + " a.b=1",
      "unset " + quoted(vm) + " memsize",
      "fmt " + quoted(vm),
      "fmt " + quoted(big),
      "rules",
      "rule VMX001",
      "formats",
      "topo " + quoted(host),
      "topo --format json " + quoted(host),
      "topo --format svg " + quoted(host),
      "mmio " + quoted(host) + " --device 0000:18:00.0",
      "host-check " + quoted(host),
      "generate --gpu a100-sxm4-40g",
      "generate --host " + quoted(host) + " --gpu auto --format vi-json",
      "convert " + quoted(vm) + " --to vi-json",
      "convert " + quoted(vm) + " --to configspec-xml",
      "guest-check " + quoted(guest),
      "nccl-topo --host " + quoted(host) + " --vm " +
          quoted(src("tests/data/guest/nccl-topo-pix.vmx")) + " --guest " +
          quoted(src("tests/data/guest/nccl-topo-pix.lspci-vvv.txt")),
      "--help",
      "--version",
  };
  for (const std::string& command : commands) {
    INFO(command);
    const std::string run = quoted(VMXKIT_BINARY) + " " + command;
    // The command itself works: it prints something and exits 0 or 1 (findings).
    const auto works = run_shell(run + " > " + quoted((dir / "out").string()));
    INFO(works.out);
    CHECK((works.code == 0 || works.code == 1));
    CHECK(std::filesystem::file_size(dir / "out") > 0);
    // To a full disk: exit 2 and the OS error, whatever the command found.
    const auto full = run_shell("(" + run + " > /dev/full)");
    INFO(full.out);
    CHECK(full.code == 2);
    CHECK_THAT(full.out, Catch::Contains("cannot write: No space left on device"));
  }
}
