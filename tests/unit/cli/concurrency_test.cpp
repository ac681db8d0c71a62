// SPDX-License-Identifier: Apache-2.0
// In-place writers run as real processes at the same time, and killed mid-write.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/support.h"

extern char** environ;

using vmxkit::test::read_bytes;
using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

// The vmxkit binary started with `args`, stdout to /dev/null, stderr to `err_path`.
pid_t spawn_vmxkit(const std::vector<std::string>& args, const std::string& err_path) {
  std::vector<std::string> strings = {VMXKIT_BINARY};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(strings.size() + 1);
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, VMXKIT_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) FAIL("waitpid failed");
  }
  return status;
}

// The exit code, or -1 when the process did not exit normally.
int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

std::vector<std::string> temporaries(const std::filesystem::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".vmxkit-") != std::string::npos) {
      found.push_back(e.path().filename().string());
    }
  }
  return found;
}

struct Job {
  std::vector<std::string> args;
  std::vector<int> ok_codes;
};

// Starts every job at once, waits for all, and checks each exit code.
void run_together(const std::vector<Job>& jobs, const vmxkit::test::TempDir& logs) {
  std::vector<pid_t> pids;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    pids.push_back(spawn_vmxkit(jobs[i].args, (logs / ("err" + std::to_string(i))).string()));
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const int code = exit_code(wait_for(pids[i]));
    INFO(jobs[i].args[0] << " " << jobs[i].args.back() << " exited " << code << ": "
                         << read_bytes(logs / ("err" + std::to_string(i))));
    CHECK(std::find(jobs[i].ok_codes.begin(), jobs[i].ok_codes.end(), code) !=
          jobs[i].ok_codes.end());
  }
}

const std::string kVm =
    ".encoding = \"UTF-8\"\n"
    "displayName = \"gpu-vm\"\n"
    "memsize = \"65536\"\n";

}  // namespace

TEST_CASE("ten set -i processes at once on one file keep all ten keys", "[cli][set][concurrency]") {
  for (int round = 0; round < 4; ++round) {
    INFO("round " << round);
    vmxkit::test::TempDir dir;
    const vmxkit::test::TempDir logs;
    const auto path = dir / "f.vmx";
    write_bytes(path, kVm);
    std::vector<Job> jobs;
    std::vector<std::string> get = {"get", path.string()};
    for (int k = 1; k <= 10; ++k) {
      jobs.push_back({{"set", "-i", path.string(), "zz.k" + std::to_string(k) + "=1"}, {0}});
      get.push_back("zz.k" + std::to_string(k));
    }
    run_together(jobs, logs);
    const auto r = run_cli(get);
    INFO(read_bytes(path));
    CHECK(r.code == 0);
    std::string ones;
    for (int k = 1; k <= 10; ++k) ones += "1\n";
    CHECK(r.out == ones);
    CHECK(read_bytes(path).rfind(kVm, 0) == 0);
    CHECK(temporaries(dir.path()).empty());
  }
}

TEST_CASE("set, unset and fix -i processes at once on one file keep every edit",
          "[cli][set][unset][fix][concurrency]") {
  const std::string vm =
      "firmware = \"efi\"\n"
      "memsize = \"4096\"\n"
      "sched.mem.pin = \"TRUE\"\n"
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"0000:3b:00.0\"\n"
      "pciPassthru0.deviceId = \"0x2331\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru0.systemId = \"x\"\n"
      "pciPassthru.use64bitMMIO = \"TRUE\"\n"
      "pciPassthru.64bitMMIOSizeGB = \"256\"\n"
      "old.k1 = \"1\"\nold.k2 = \"1\"\nold.k3 = \"1\"\nold.k4 = \"1\"\n";
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    vmxkit::test::TempDir dir;
    const vmxkit::test::TempDir logs;
    const auto path = dir / "f.vmx";
    write_bytes(path, vm);
    std::vector<Job> jobs;
    for (int k = 1; k <= 4; ++k) {
      const std::string n = std::to_string(k);
      jobs.push_back({{"set", "-i", path.string(), "zz.k" + n + "=1"}, {0}});
      jobs.push_back({{"unset", "-i", path.string(), "old.k" + n}, {0}});
    }
    // fix exits 1 when findings remain; 2 would be a refused or failed write.
    jobs.push_back({{"fix", "-i", "--unsafe-fixes", path.string()}, {0, 1}});
    jobs.push_back({{"fix", "-i", "--unsafe-fixes", path.string()}, {0, 1}});
    run_together(jobs, logs);
    const std::string result = read_bytes(path);
    INFO(result);
    CHECK(run_cli({"get", path.string(), "zz.k1", "zz.k2", "zz.k3", "zz.k4"}).out ==
          "1\n1\n1\n1\n");
    for (int k = 1; k <= 4; ++k) {
      CHECK(run_cli({"get", path.string(), "old.k" + std::to_string(k)}).code == 1);
    }
    CHECK(result.find("pciPassthru0.id = \"00000:059:00.0\"") != std::string::npos);
    CHECK(temporaries(dir.path()).empty());
  }
}

TEST_CASE(
    "every writer at once on one file, convert and generate onto their input included, keeps "
    "every edit that reported success",
    "[cli][set][unset][fix][fmt][convert][generate][concurrency]") {
  // convert F -o F and generate --base F -o F read their input under the output's lock: read
  // without it, another writer's edit between the read and the rename was lost (5 of 5 runs).
  const std::string vm =
      ".encoding = \"UTF-8\"\n"
      "# a comment that convert --to vmx drops\n"
      "firmware = \"efi\"\n"
      "memsize = \"4096\"\n"
      "sched.mem.pin = \"TRUE\"\n"
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"0000:3b:00.0\"\n"
      "pciPassthru0.deviceId = \"0x2331\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru0.systemId = \"x\"\n"
      "pciPassthru.use64bitMMIO = \"TRUE\"\n"
      "pciPassthru.64bitMMIOSizeGB = \"256\"\n"
      "old.k1 = \"1\"\nold.k2 = \"1\"\nold.k3 = \"1\"\n";
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    vmxkit::test::TempDir dir;
    const vmxkit::test::TempDir logs;
    const std::string path = (dir / "f.vmx").string();
    write_bytes(path, vm);
    std::vector<Job> jobs;
    for (int k = 1; k <= 3; ++k) {
      const std::string n = std::to_string(k);
      jobs.push_back({{"set", "-i", path, "zz.k" + n + "=1"}, {0}});
      jobs.push_back({{"unset", "-i", path, "old.k" + n}, {0}});
      jobs.push_back({{"convert", path, "--to", "vmx", "-o", path}, {0}});
      jobs.push_back({{"generate", "--gpu", "a100-sxm4-40g", "--base", path, "-o", path}, {0}});
    }
    jobs.push_back({{"fix", "-i", "--unsafe-fixes", path}, {0, 1}});
    jobs.push_back({{"fmt", "-i", path}, {0}});
    run_together(jobs, logs);
    const std::string result = read_bytes(path);
    INFO(result);
    CHECK(run_cli({"get", path, "zz.k1", "zz.k2", "zz.k3"}).out == "1\n1\n1\n");
    for (int k = 1; k <= 3; ++k) {
      CHECK(run_cli({"get", path, "old.k" + std::to_string(k)}).code == 1);
    }
    CHECK(result.find("pciPassthru0.id = \"00000:059:00.0\"") != std::string::npos);  // fix
    CHECK(result.find("# a comment") == std::string::npos);                           // convert
    // Each generate adds one A100 (10de:20b0): all three that exited 0 are in the file.
    std::size_t generated = 0;
    for (auto at = result.find("\"0x20b0\""); at != std::string::npos;
         at = result.find("\"0x20b0\"", at + 1)) {
      ++generated;
    }
    CHECK(generated == 3);
    CHECK(temporaries(dir.path()).empty());
  }
}

TEST_CASE("set -i killed at any moment leaves the old or the new file and no temporary file",
          "[cli][set][signals]") {
  vmxkit::test::TempDir dir;
  const vmxkit::test::TempDir logs;
  const auto path = dir / "big.vmx";
  std::string vm;
  const std::string value(1000, 'v');
  for (int i = 0; vm.size() < (std::size_t{50} << 20); ++i) {
    vm += "big.k" + std::to_string(i) + " = \"" + value + "\"\n";
  }
  write_bytes(path, vm);
  const std::string err = (logs / "err").string();

  // How long one uninterrupted run takes here, to spread the kills over all of it.
  auto start = std::chrono::steady_clock::now();
  REQUIRE(exit_code(wait_for(spawn_vmxkit({"set", "-i", path.string(), "zz.run=0"}, err))) == 0);
  const auto one_run = std::chrono::steady_clock::now() - start;
  std::string before = read_bytes(path);
  REQUIRE(before == vm + "zz.run = \"0\"\n");

  std::mt19937 random(std::random_device{}());
  using Clock = std::chrono::steady_clock;
  auto micros = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  };
  std::int64_t run_us = micros(one_run);  // the quickest uninterrupted run so far
  const int signals[] = {SIGTERM, SIGINT, SIGHUP};
  int killed = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(6);
  // At least 6 runs, two of each kind of kill moment, however slow the machine: under ASan on a
  // loaded machine one run took most of the 6 s, and a single run may end before its kill.
  for (int run = 1; run <= 30 && (run <= 6 || Clock::now() < deadline); ++run) {
    INFO("run " << run);
    const std::string number = std::to_string(run);
    // The new file: the last line, zz.run, carries the new value.
    std::string after = vm;
    after += "zz.run = \"" + number + "\"\n";
    const int sig = signals[(run / 3) % 3];
    // Kill moments: anywhere in a run, in its last part (where the file is written), or only
    // once a temporary file shows up (so a run that never names one is not killed). In every
    // case the kill comes as soon as a temporary file shows up: the moment one could be left.
    std::uniform_int_distribution<std::int64_t> anywhere(0, run_us * 11 / 10);
    std::uniform_int_distribution<std::int64_t> late(run_us * 7 / 10, run_us * 11 / 10);
    const std::int64_t delay_us = run % 3 == 0   ? run_us * 3
                                  : run % 3 == 1 ? anywhere(random)
                                                 : late(random);
    const auto started = Clock::now();
    const pid_t pid = spawn_vmxkit({"set", "-i", path.string(), "zz.run=" + number}, err);
    const auto kill_at = started + std::chrono::microseconds(delay_us);
    int status = 0;
    bool exited = false;
    while (Clock::now() < kill_at && temporaries(dir.path()).empty()) {
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (!exited) {
      ::kill(pid, sig);
      status = wait_for(pid);
    }
    if (WIFSIGNALED(status)) {
      ++killed;
      CHECK(WTERMSIG(status) == sig);  // the handler re-raises: the caller sees the signal
    } else {
      CHECK(exit_code(status) == 0);
      if (exited) run_us = std::min(run_us, micros(Clock::now() - started));
    }
    const auto left = temporaries(dir.path());
    CHECK(left.empty());
    for (const std::string& name : left) std::filesystem::remove(dir / name);
    const std::string now = read_bytes(path);
    CHECK((now == before || now == after));
    before = now;
  }
  CHECK(killed > 0);
}

TEST_CASE("a new -o file killed with SIGKILL at any moment leaves no temporary file",
          "[cli][convert][signals]") {
  // SIGKILL runs no handler: only a file that has no name until it is complete leaves nothing.
  // A new output is written unnamed (O_TMPFILE) and linked to its own name at the end; it was
  // named from its creation, and a kill during the write left `.out.vmx.vmxkit-XXXX` behind.
  vmxkit::test::TempDir dir;
  const vmxkit::test::TempDir logs;
  const auto input = (logs / "big.vmx").string();
  std::string vm;
  const std::string value(1000, 'v');
  for (int i = 0; vm.size() < (std::size_t{20} << 20); ++i) {
    vm += "big.k" + std::to_string(i) + " = \"" + value + "\"\n";
  }
  write_bytes(input, vm);
  const std::string err = (logs / "err").string();
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  REQUIRE(exit_code(wait_for(spawn_vmxkit(
              {"convert", input, "--to", "vmx", "-o", (dir / "first.vmx").string()}, err))) == 0);
  const auto run_us =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<std::int64_t> anywhere(0, run_us * 11 / 10);
  int killed = 0;
  for (int run = 1; run <= 12; ++run) {
    INFO("run " << run);
    const std::string out = (dir / ("out" + std::to_string(run) + ".vmx")).string();
    const pid_t pid = spawn_vmxkit({"convert", input, "--to", "vmx", "-o", out}, err);
    // Killed at a random moment, or as soon as a temporary file shows up.
    const auto kill_at = Clock::now() + std::chrono::microseconds(anywhere(random));
    int status = 0;
    bool exited = false;
    while (Clock::now() < kill_at && temporaries(dir.path()).empty()) {
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (!exited) {
      ::kill(pid, SIGKILL);
      status = wait_for(pid);
    }
    if (WIFSIGNALED(status)) ++killed;
    const auto left = temporaries(dir.path());
    CHECK(left.empty());
    for (const std::string& name : left) std::filesystem::remove(dir / name);
    // The output is there whole, or not at all.
    if (std::filesystem::exists(out)) CHECK(std::filesystem::file_size(out) == vm.size());
  }
  CHECK(killed > 0);
}
