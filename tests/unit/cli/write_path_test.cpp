// SPDX-License-Identifier: Apache-2.0
// Every command that writes a file goes through the one write path (core/io.h OutputLock): the
// VM's lock beside the file a link names, the whole mode kept, a dangling link's target made,
// and readers that never wait on a named pipe.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "support/support.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::run_shell;
using vmxkit::test::source_path;
using vmxkit::test::write_bytes;

namespace {

// Not in fmt's canonical form (memsize), so that fmt -i rewrites it too.
const std::string kVm =
    "firmware = \"efi\"\n"
    "memsize=4096\n"
    "pciPassthru0.present = \"TRUE\"\n"
    "pciPassthru0.id = \"0000:3b:00.0\"\n";

std::string src(const std::string& relative) { return source_path(relative).string(); }
const std::string kHost = src("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt");

// Every writer, with `out` the file it writes (or edits in place) and `in` an input .vmx.
std::vector<std::vector<std::string>> writers(const std::string& out, const std::string& in) {
  return {
      {"set", "-i", out, "a.b=1"},
      {"unset", "-i", out, "memsize"},
      {"fix", "-i", "--unsafe-fixes", out},
      {"fmt", "-i", out},
      {"convert", in, "--to", "vmx", "-o", out},
      {"generate", "--gpu", "a100-sxm4-40g", "--base", in, "-o", out},
      {"topo", kHost, "-o", out},
      {"nccl-topo", "--host", kHost, "--vm", src("tests/data/guest/nccl-topo-pix.vmx"), "--guest",
       src("tests/data/guest/nccl-topo-pix.lspci-vvv.txt"), "-o", out},
  };
}

unsigned mode_of(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string join(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

TEST_CASE("every writer refuses a .vmx reached through a link while the VM holds its lock",
          "[cli][write]") {
  // VMware keeps the lock beside the file it opened: `ln -s real/vm.vmx vm.vmx` and a running
  // VM's real/vm.vmx.lck. The lock was looked for beside the link only, and nccl-topo -o did
  // not look at all.
  vmxkit::test::TempDir dir;
  std::filesystem::create_directory(dir / "real");
  const auto real = dir / "real" / "vm.vmx";
  const std::string link = (dir / "vm.vmx").string();
  const std::string input = (dir / "in.vmx").string();
  write_bytes(input, kVm + "from.input = \"1\"\n");
  std::filesystem::create_symlink(real, link);
  std::filesystem::create_directory(dir / "real" / "vm.vmx.lck");
  for (const auto& args : writers(link, input)) {
    INFO(join(args));
    write_bytes(real, kVm);
    const auto r = run_cli(args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("the VM holds its lock (" + real.string() + ".lck)") &&
                          Catch::Contains("pass --force"));
    CHECK(read_bytes(real) == kVm);
    CHECK(std::filesystem::is_symlink(link));
    // --force is the way past it, and every one of them takes it.
    std::vector<std::string> forced = args;
    forced.insert(forced.begin() + 1, "--force");
    const auto f = run_cli(forced);
    INFO(f.err);
    CHECK((f.code == 0 || (args[0] == "fix" && f.code == 1)));
    CHECK(read_bytes(real) != kVm);
    CHECK(std::filesystem::is_symlink(link));
  }
}

TEST_CASE("every writer keeps the set-user-ID, set-group-ID and sticky bits of the file",
          "[cli][write]") {
  // A write(2) clears set-user-ID (for a user) and chown(2) clears it (for root too): the mode
  // was set before both, and 4755 became 0755.
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  const std::string input = (dir / "in.vmx").string();
  write_bytes(input, kVm + "from.input = \"1\"\n");
  for (const auto& args : writers(path.string(), input)) {
    for (const unsigned mode : {04755u, 02755u, 06750u}) {
      INFO(join(args) << " on mode " << std::oct << mode);
      write_bytes(path, kVm);
      REQUIRE(::chmod(path.c_str(), mode) == 0);
      const auto r = run_cli(args);
      INFO(r.err);
      CHECK((r.code == 0 || (args[0] == "fix" && r.code == 1)));
      CHECK(read_bytes(path) != kVm);
      CHECK(mode_of(path) == mode);
    }
  }
}

TEST_CASE("an -o path through a dangling link makes the file it names and keeps the link",
          "[cli][write]") {
  vmxkit::test::TempDir dir;
  std::filesystem::create_directory(dir / "out");
  const std::string input = (dir / "in.vmx").string();
  write_bytes(input, kVm + "from.input = \"1\"\n");
  int n = 0;
  for (const auto& args : writers("", input)) {
    if (args[0] == "set" || args[0] == "unset" || args[0] == "fix" || args[0] == "fmt") continue;
    INFO(join(args));
    const std::string name = "new" + std::to_string(n++);
    const std::string link = (dir / (name + ".link")).string();
    std::filesystem::create_symlink("out/" + name, link);  // relative, dangling
    std::vector<std::string> to_link = args;
    to_link.back() = link;
    const auto r = run_cli(to_link);
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(std::filesystem::is_symlink(link));
    CHECK(std::filesystem::is_regular_file(dir / "out" / name));
    CHECK_FALSE(read_bytes(dir / "out" / name).empty());
  }
  CHECK(std::distance(std::filesystem::directory_iterator(dir / "out"),
                      std::filesystem::directory_iterator()) == n);
}

TEST_CASE("convert and generate write their output onto their input", "[cli][write]") {
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "vm.vmx").string();
  write_bytes(path, "# gone after convert\n" + kVm);
  auto r = run_cli({"convert", path, "--to", "vmx", "-o", path});
  CHECK(r.code == 0);
  const std::string canonical = run_cli({"fmt", "-"}, kVm).out;
  CHECK(read_bytes(path) == canonical);
  r = run_cli({"generate", "--gpu", "a100-sxm4-40g", "--base", path, "-o", path});
  CHECK(r.code == 0);
  const std::string merged = read_bytes(path);
  CHECK(merged.rfind(canonical, 0) == 0);
  CHECK(merged.find("deviceId = \"0x20b0\"") != std::string::npos);
}

TEST_CASE("a named pipe given as input is refused at once, not waited on", "[cli][write]") {
  // `mkfifo f.vmx; vmxkit lint f.vmx` waited for a writer for ever. The binary runs under
  // timeout(1): a wait is exit code 124, not a hung test.
  vmxkit::test::TempDir dir;
  const std::string fifo = (dir / "f.vmx").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& command :
       {"lint " + fifo, "fmt " + fifo, "get " + fifo + " memsize", "convert " + fifo + " --to vmx",
        "set " + fifo + " a=1", "topo " + fifo, "fmt -i " + fifo}) {
    INFO(command);
    const auto r = run_shell("timeout 10 " + std::string(VMXKIT_BINARY) + " " + command);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains(fifo + ": ") &&
                          (Catch::Contains("a named pipe (FIFO), not a file") ||
                           Catch::Contains("not a regular file")));
  }
  // Process substitution's pipe and stdin still read.
  const auto piped =
      run_shell("bash -c '" + std::string(VMXKIT_BINARY) + " get <(printf \"a = 1\\n\") a'");
  CHECK(piped.code == 0);
  CHECK(piped.out == "1\n");
  CHECK(run_cli({"get", "-", "a"}, "a = \"2\"\n").out == "2\n");
}

TEST_CASE("topo -o and nccl-topo -o on a locked VM name an option they take", "[cli][write]") {
  vmxkit::test::TempDir dir;
  const std::string out = (dir / "vm.vmx").string();
  write_bytes(out, kVm);
  std::filesystem::create_directory(out + ".lck");
  for (const auto& args : writers(out, out)) {
    if (args[0] != "topo" && args[0] != "nccl-topo") continue;
    const auto r = run_cli(args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("pass --force"));
    const auto help = run_cli({args[0], "--help"});
    CHECK_THAT(help.out, Catch::Contains("--force"));
    CHECK(read_bytes(out) == kVm);
  }
}

TEST_CASE("fmt of a large file to /dev/null checks it as fmt to a file does, errors included",
          "[cli][fmt]") {
  // To /dev/null fmt reads a mapped input with pread() into a buffer instead of through the
  // mapping (cmd_fmt.cpp); to a file it scans the mapping. Both check every line: a malformed
  // line in either half (two threads) is exit 2 with the same file:line:col, and nothing else.
  vmxkit::test::TempDir dir;
  const std::string path = (dir / "big.vmx").string();
  const std::string out = (dir / "out.vmx").string();
  std::string text;
  for (std::size_t i = 0; text.size() < (std::size_t{3} << 20); ++i) {
    text += "key" + std::to_string(i) + (i % 5 == 0 ? "=" + std::to_string(i) : " = \"v\"") +
            (i % 3 == 0 ? "\r\n" : "\n");
  }
  write_bytes(path, text);
  const std::string fmt = "timeout 60 " + std::string(VMXKIT_BINARY) + " fmt " + path;
  const auto discarded = run_shell("(" + fmt + " > /dev/null)");
  CHECK(discarded.code == 0);
  CHECK(discarded.out.empty());
  REQUIRE(run_shell("(" + fmt + " > " + out + ")").code == 0);
  CHECK(read_bytes(out) == run_cli({"fmt", "-"}, text).out);
  for (const std::size_t quarter : {1, 3}) {
    const std::size_t at = text.rfind('\n', text.size() * quarter / 4) + 1;
    const auto line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    write_bytes(path, text.substr(0, at) + "bad line\n" + text.substr(at));
    const std::string where = path + ":" + std::to_string(line + 1) + ":4: expected '='";
    const auto bad = run_shell("(" + fmt + " > /dev/null)");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains(where));
    const auto bad_file = run_shell("(" + fmt + " > " + out + ")");
    CHECK(bad_file.code == 2);
    CHECK(bad_file.out == bad.out);
  }
}
