// SPDX-License-Identifier: Apache-2.0
// get / set / unset / fmt through the command line, in-process.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/support.h"
#include "vmxkit/formats/vmx/canonical.h"

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

const std::string kVm =
    ".encoding = \"UTF-8\"\r\n"
    "displayName = \"gpu-vm\"  # the name\r\n"
    "memsize = \"65536\"\r\n"
    "pciPassthru0.present = \"TRUE\"\r\n"
    "annotation = \"line1|0Aline2\"\r\n";

}  // namespace

TEST_CASE("get prints decoded values and exits 1 for an absent key", "[cli][get]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "vm.vmx", kVm);
  auto r = run_cli({"get", (dir / "vm.vmx").string(), "DISPLAYNAME", "annotation"});
  CHECK(r.code == 0);
  CHECK(r.out == "gpu-vm\nline1\nline2\n");
  r = run_cli({"get", "--raw", (dir / "vm.vmx").string(), "annotation"});
  CHECK(r.out == "line1|0Aline2\n");
  r = run_cli({"get", (dir / "vm.vmx").string(), "nope"});
  CHECK(r.code == 1);
  CHECK(r.err.find("no key 'nope'") != std::string::npos);
}

TEST_CASE("get reads stdin for '-'", "[cli][get]") {
  const auto r = run_cli({"get", "-", "memsize"}, kVm);
  CHECK(r.code == 0);
  CHECK(r.out == "65536\n");
}

TEST_CASE("set writes the edited file to stdout and leaves the file alone", "[cli][set]") {
  vmxkit::test::TempDir dir;
  write_bytes(dir / "vm.vmx", kVm);
  const auto r =
      run_cli({"set", (dir / "vm.vmx").string(), "memsize=131072", "pciPassthru.allowP2P=TRUE"});
  CHECK(r.code == 0);
  CHECK(r.out ==
        ".encoding = \"UTF-8\"\r\n"
        "displayName = \"gpu-vm\"  # the name\r\n"
        "memsize = \"131072\"\r\n"
        "pciPassthru0.present = \"TRUE\"\r\n"
        "pciPassthru.allowP2P = \"TRUE\"\r\n"
        "annotation = \"line1|0Aline2\"\r\n");
  CHECK(read_bytes(dir / "vm.vmx") == kVm);
}

TEST_CASE("set -i writes in place and keeps the file mode", "[cli][set]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  write_bytes(path, kVm);
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  const auto r = run_cli({"set", "-i", path.string(), "firmware=efi"});
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(read_bytes(path) == kVm + "firmware = \"efi\"\r\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE("set -i refuses a VM that holds its lock unless --force", "[cli][set]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  write_bytes(path, kVm);
  std::filesystem::create_directory(dir / "vm.vmx.lck");
  auto r = run_cli({"set", "-i", path.string(), "firmware=efi"});
  CHECK(r.code == 2);
  CHECK(r.err.find("holds its lock") != std::string::npos);
  CHECK(read_bytes(path) == kVm);
  r = run_cli({"set", "-i", "--force", path.string(), "firmware=efi"});
  CHECK(r.code == 0);
  CHECK(read_bytes(path) != kVm);
}

TEST_CASE("set rejects a malformed KEY=VALUE and changes nothing", "[cli][set]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  write_bytes(path, kVm);
  for (const std::string bad : {"novalue", "=x", "two words=x", "a#b=1"}) {
    INFO(bad);
    const auto r = run_cli({"set", "-i", path.string(), bad});
    CHECK(r.code == 2);
    CHECK_FALSE(r.err.empty());
  }
  CHECK(read_bytes(path) == kVm);
}

TEST_CASE("unset -i removes every case variant of a key", "[cli][unset]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  write_bytes(path, "a = \"1\"\nMSG.autoanswer = \"x\"\nb = \"2\"\nmsg.autoAnswer = \"y\"\n");
  const auto r = run_cli({"unset", "-i", path.string(), "msg.autoAnswer"});
  CHECK(r.code == 0);
  CHECK(read_bytes(path) == "a = \"1\"\nb = \"2\"\n");
}

TEST_CASE("edits warn about malformed lines but keep them byte for byte", "[cli][set]") {
  const auto r = run_cli({"set", "-", "x=2"}, "key1 = \"value1\nx = \"1\"\n");
  CHECK(r.code == 0);
  CHECK(r.out == "key1 = \"value1\nx = \"2\"\n");
  CHECK(r.err.find("<stdin>:1:8: warning: unterminated quoted value") != std::string::npos);
}

TEST_CASE("fmt --check exits 1 on a non-canonical file and 0 after fmt -i", "[cli][fmt]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  write_bytes(path, "a=TRUE\n  b = \"x\"   # c\n");
  auto r = run_cli({"fmt", "--check", path.string()});
  CHECK(r.code == 1);
  r = run_cli({"fmt", "-i", path.string()});
  CHECK(r.code == 0);
  CHECK(read_bytes(path) == "a = \"TRUE\"\nb = \"x\" # c\n");
  r = run_cli({"fmt", "--check", path.string()});
  CHECK(r.code == 0);
}

TEST_CASE("fmt on a malformed file exits 2 with file:line:col and writes nothing", "[cli][fmt]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  const std::string text = "ok = \"1\"\nkey \"value1\"\n";
  write_bytes(path, text);
  const auto r = run_cli({"fmt", "-i", path.string()});
  CHECK(r.code == 2);
  CHECK(r.err.find(path.string() + ":2:4: expected '=' after key 'key'") != std::string::npos);
  CHECK(read_bytes(path) == text);
}

TEST_CASE("the vmxkit binary's fmt of a large file writes the canonical form through a pipe",
          "[cli][fmt]") {
  // The process's own stdout path: a mapped input, pieces written with writev(2) into a pipe
  // (partial writes), two halves made at once; compared with rebuilding every line.
  vmxkit::test::TempDir dir;
  const auto path = dir / "big.vmx";
  std::string text;
  for (std::size_t i = 0; text.size() < (std::size_t{3} << 20); ++i) {
    text += i % 5 == 0
                ? "k" + std::to_string(i) + "=" + std::to_string(i) + "\r\n"
                : "key" + std::to_string(i) + " = \"v|7C" + std::string(i % 40, 'x') + "\"\r\n";
  }
  write_bytes(path, text);
  const std::string expected = vmxkit::vmx::detail::canonical_form_each_line(text, "big.vmx");
  REQUIRE(expected != text);
  const auto r = vmxkit::test::run_shell(std::string("'") + VMXKIT_BINARY + "' fmt '" +
                                         path.string() + "' | cat");
  CHECK(r.code == 0);
  CHECK(r.out.size() == expected.size());
  CHECK(r.out == expected);
  // A malformed line in the second half: exit 2, nothing on stdout.
  write_bytes(path, text + "bad line\r\n");
  const auto bad = vmxkit::test::run_shell(std::string("'") + VMXKIT_BINARY + "' fmt '" +
                                           path.string() + "' 2>/dev/null; echo \"exit $?\"");
  CHECK(bad.out == "exit 2\n");
}

TEST_CASE("usage errors exit 2 and --help exits 0", "[cli]") {
  CHECK(run_cli({}).code == 2);
  CHECK(run_cli({"frobnicate"}).code == 2);
  CHECK(run_cli({"get"}).code == 2);
  const auto help = run_cli({"--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("fmt") != std::string::npos);
  const auto missing = run_cli({"get", "/nonexistent/vm.vmx", "a"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/nonexistent/vm.vmx: cannot open") != std::string::npos);
}

TEST_CASE("every writer refuses a VM that holds its lock, naming it, unless --force",
          "[cli][set][unset][fmt][fix][convert][generate]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "vm.vmx";
  const std::string lock = (dir / "vm.vmx.lck").string();
  const std::string text =
      "a=TRUE\nmemsize = \"4096\"\npciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"0000:3b:00.0\"\n";
  const std::vector<std::vector<std::string>> writers = {
      {"set", "-i", path.string(), "firmware=efi"},
      {"unset", "-i", path.string(), "memsize"},
      {"fmt", "-i", path.string()},
      {"fix", "-i", "--unsafe-fixes", path.string()},
      {"convert", "-", "--to", "vmx", "-o", path.string()},
      {"generate", "--gpu", "h100-pcie", "-o", path.string()},
  };
  for (std::vector<std::string> args : writers) {
    INFO(args[0]);
    write_bytes(path, text);
    std::filesystem::create_directory(lock);
    auto r = run_cli(args, kVm);
    CHECK(r.code == 2);
    CHECK(r.err.find("holds its lock (" + lock + ")") != std::string::npos);
    CHECK(read_bytes(path) == text);
    args.emplace_back("--force");
    r = run_cli(args, kVm);
    CHECK(r.code != 2);
    CHECK(read_bytes(path) != text);
    std::filesystem::remove(lock);
  }
}

TEST_CASE("a new -o file gets 0666 less the umask, an existing one keeps its mode",
          "[cli][convert]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "out.vmx";
  auto mode_of = [&] {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
  };
  const std::vector<std::string> args = {"convert", "-", "--to", "vmx", "-o", path.string()};
  const mode_t old_mask = ::umask(077);
  const auto r1 = run_cli(args, kVm);
  const mode_t private_mode = mode_of();
  std::filesystem::remove(path);
  ::umask(002);
  const auto r2 = run_cli(args, kVm);
  const mode_t group_mode = mode_of();
  REQUIRE(::chmod(path.c_str(), 0604) == 0);
  ::umask(077);
  const auto r3 = run_cli(args, kVm);
  ::umask(old_mask);
  CHECK(r1.code == 0);
  CHECK(r2.code == 0);
  CHECK(r3.code == 0);
  CHECK(private_mode == 0600);
  CHECK(group_mode == 0664);
  CHECK(mode_of() == 0604);
}
