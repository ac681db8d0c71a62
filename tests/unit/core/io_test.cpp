// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <thread>
#include <utility>

#include "cli/cli.h"
#include "support/support.h"
#include "vmxkit/core/error.h"

using namespace vmxkit;

namespace {

int count_entries(const std::filesystem::path& dir) {
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  return entries;
}

mode_t mode_of(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Sets the umask for one scope.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;
  ~ScopedUmask() { ::umask(old_); }

 private:
  mode_t old_;
};

}  // namespace

TEST_CASE("write_file_atomic replaces the file and keeps its mode", "[core][io]") {
  test::TempDir dir;
  const auto path = dir / "vm.vmx";
  test::write_bytes(path, "old\n");
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  write_file_atomic(path.string(), "new\n");
  CHECK(test::read_bytes(path) == "new\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  // No temporary file is left behind.
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("write_file_atomic keeps a symbolic link and replaces its target", "[core][io]") {
  test::TempDir dir;
  test::write_bytes(dir / "real.vmx", "old\n");
  std::filesystem::create_symlink(dir / "real.vmx", dir / "link.vmx");
  write_file_atomic((dir / "link.vmx").string(), "new\n");
  CHECK(std::filesystem::is_symlink(dir / "link.vmx"));
  CHECK(test::read_bytes(dir / "real.vmx") == "new\n");
}

TEST_CASE("write_file_atomic fails cleanly in a missing directory", "[core][io]") {
  test::TempDir dir;
  CHECK_THROWS_AS(write_file_atomic((dir / "nope" / "vm.vmx").string(), "x"), Error);
}

TEST_CASE("read_file names the path when it cannot read", "[core][io]") {
  test::TempDir dir;
  try {
    read_file((dir / "missing.vmx").string());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("missing.vmx: cannot open") != std::string::npos);
  }
  CHECK_THROWS_AS(read_file(dir.path().string()), Error);
}

TEST_CASE("reads refuse input over the size cap", "[core][io]") {
  test::TempDir dir;
  test::write_bytes(dir / "big", std::string(100, 'x'));
  CHECK_THROWS_AS(read_file((dir / "big").string(), 99), Error);
  CHECK(read_file((dir / "big").string(), 100).size() == 100);
  std::istringstream in(std::string(100, 'x'));
  CHECK_THROWS_AS(read_stream(in, "<stdin>", 50), Error);
}

TEST_CASE("read_file refuses a device before reading from it", "[core][io]") {
  // /dev/zero never ends: reading it up to the cap took 1 GiB and seconds before this check.
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(read_file("/dev/zero"), Catch::Contains("a character device, not a file"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}

TEST_CASE("InputFile maps a large file, reads a small one, and errs as read_file does",
          "[core][io]") {
  allow_mapped_inputs();  // what the command line does once its SIGBUS handler is installed
  test::TempDir dir;
  std::string large(InputFile::kMapMinBytes + 4097, 'a');
  large[large.size() - 1] = 'z';
  test::write_bytes(dir / "large.vmx", large);
  test::write_bytes(dir / "small.vmx", "a = \"1\"\n");
  const InputFile mapped((dir / "large.vmx").string());
  CHECK(mapped.mapped());
  CHECK(mapped.bytes() == large);
  CHECK(mapped_input_at(mapped.bytes().data() + 10) == (dir / "large.vmx").string());
  CHECK(mapped_input_at(large.data()) == nullptr);
  // One mapping at a time: a second large file is read, with the same bytes.
  const InputFile second((dir / "large.vmx").string());
  CHECK_FALSE(second.mapped());
  CHECK(second.bytes() == large);
  const InputFile small((dir / "small.vmx").string());
  CHECK_FALSE(small.mapped());
  CHECK(small.bytes() == "a = \"1\"\n");
  CHECK_THROWS_WITH(InputFile((dir / "missing.vmx").string()), Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(InputFile(dir.path().string()), Catch::Contains("is a directory"));
  CHECK_THROWS_WITH(InputFile("/dev/zero"), Catch::Contains("a character device"));
  CHECK_THROWS_AS(InputFile((dir / "large.vmx").string(), 4096), Error);
}

TEST_CASE("InputFile::read_at copies the bytes of a mapped or a read file", "[core][io]") {
  allow_mapped_inputs();
  test::TempDir dir;
  std::string large(InputFile::kMapMinBytes + 4097, 'a');
  for (std::size_t i = 0; i < large.size(); i += 4093) large[i] = static_cast<char>('b' + i % 20);
  test::write_bytes(dir / "large.vmx", large);
  test::write_bytes(dir / "small.vmx", "a = \"1\"\n");
  for (const auto mapping : {InputFile::Mapping::populate, InputFile::Mapping::on_touch}) {
    const InputFile mapped((dir / "large.vmx").string(), kMaxInputBytes, mapping);
    REQUIRE(mapped.mapped());
    std::string buffer(70000, '\0');
    for (const std::size_t offset : {std::size_t{0}, std::size_t{4093}, large.size() - 70000}) {
      mapped.read_at(offset, buffer);
      CHECK(buffer == large.substr(offset, buffer.size()));
    }
    CHECK(mapped.bytes() == large);
    CHECK_THROWS_AS(mapped.read_at(large.size() - 10, buffer), Error);
  }
  const InputFile small((dir / "small.vmx").string());
  std::string two(2, '\0');
  small.read_at(4, two);
  CHECK(two == "\"1");
  CHECK_THROWS_AS(small.read_at(7, two), Error);
}

namespace {

// Runs `child` in a forked process with stderr to a pipe; returns (exit status, stderr).
template <typename Child>
std::pair<int, std::string> in_child(Child child) {
  int err[2];
  REQUIRE(::pipe(err) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(err[1], STDERR_FILENO);
    child();
    ::_exit(5);
  }
  ::close(err[1]);
  std::string message;
  char buffer[256];
  for (ssize_t n; (n = ::read(err[0], buffer, sizeof buffer)) > 0;) {
    message.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(err[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return {status, message};
}

}  // namespace

TEST_CASE("a mapped file truncated under the command line is exit 2 with a message, not a crash",
          "[core][io][cli]") {
  // The handler is the command line's; the library only says whether the address is its input.
  test::TempDir dir;
  const std::string path = (dir / "big.vmx").string();
  test::write_bytes(path, std::string(InputFile::kMapMinBytes * 2, 'x'));
  const auto [status, message] = in_child([&] {
    cli::install_mapped_input_guard();
    const InputFile file(path);
    if (!file.mapped()) ::_exit(3);
    if (::truncate(path.c_str(), 0) != 0) ::_exit(4);
    // A read past the new end: SIGBUS, which the handler turns into exit code 2.
    volatile char last = file.bytes()[file.bytes().size() - 1];
    (void)last;
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(message ==
        "vmxkit: error: " + path + ": truncated by another program while vmxkit read it\n");
}

TEST_CASE("writing the bytes of a mapped file truncated meanwhile names the input, not stdout",
          "[core][io]") {
  // write(2) copies in the kernel: no SIGBUS but EFAULT, which said `<stdout>: cannot write:
  // Bad address`.
  allow_mapped_inputs();
  test::TempDir dir;
  const std::string path = (dir / "big.vmx").string();
  test::write_bytes(path, std::string(InputFile::kMapMinBytes * 2, 'x'));
  const auto [status, message] = in_child([&] {
    const InputFile file(path);
    if (!file.mapped()) ::_exit(3);
    if (::truncate(path.c_str(), 0) != 0) ::_exit(4);
    // A file, not /dev/null: /dev/null takes a write without reading its bytes.
    const int out = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const std::string_view pieces[] = {"head\n", file.bytes()};
    try {
      write_pieces(out, pieces, "<stdout>");
    } catch (const Error& e) {
      const std::string what = std::string(e.what()) + "\n";
      if (::write(STDERR_FILENO, what.data(), what.size()) < 0) ::_exit(6);
      ::_exit(2);
    }
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(message == path +
                       ": truncated by another program while vmxkit read it; its output "
                       "stops short\n");
}

TEST_CASE("vmx_lock_present finds a VM's lock directory", "[core][io]") {
  test::TempDir dir;
  const auto vmx = (dir / "vm.vmx").string();
  CHECK(vmx_lock_present(vmx).empty());
  std::filesystem::create_directory(dir / "vm.vmx.lck");
  CHECK(vmx_lock_present(vmx) == vmx + ".lck");
}

TEST_CASE("write_file_atomic gives a new file 0666 less the umask", "[core][io]") {
  test::TempDir dir;
  {
    const ScopedUmask mask(077);
    write_file_atomic((dir / "private.vmx").string(), "a\n");
  }
  {
    const ScopedUmask mask(002);
    write_file_atomic((dir / "group.vmx").string(), "a\n");
  }
  CHECK(mode_of(dir / "private.vmx") == 0600);
  CHECK(mode_of(dir / "group.vmx") == 0664);
  // An existing file keeps its own mode whatever the umask.
  REQUIRE(::chmod((dir / "group.vmx").c_str(), 0640) == 0);
  {
    const ScopedUmask mask(077);
    write_file_atomic((dir / "group.vmx").string(), "b\n");
  }
  CHECK(mode_of(dir / "group.vmx") == 0640);
  CHECK(count_entries(dir.path()) == 2);
}

TEST_CASE("edit_file_atomic makes a second editor wait and then edit the first one's result",
          "[core][io]") {
  test::TempDir dir;
  const auto path = (dir / "vm.vmx").string();
  test::write_bytes(path, "base\n");
  std::atomic<bool> second_done{false};
  std::thread second;
  {
    FileEditLock first(path);
    const std::string bytes = first.read();
    second = std::thread([&] {
      edit_file_atomic(path, [](const std::string& b) { return b + "second\n"; });
      second_done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(second_done);  // it waits for the lock instead of reading "base\n" now
    first.replace(bytes + "first\n");
  }
  second.join();
  CHECK(test::read_bytes(path) == "base\nfirst\nsecond\n");
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("a whole-file write waits for an edit of the same file under way", "[core][io]") {
  test::TempDir dir;
  const auto path = (dir / "vm.vmx").string();
  test::write_bytes(path, "base\n");
  std::atomic<bool> write_done{false};
  std::thread writer;
  {
    FileEditLock edit(path);
    const std::string bytes = edit.read();
    writer = std::thread([&] {
      write_file_atomic(path, "whole\n");
      write_done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(write_done);
    // Without the wait, the whole-file write would land between the read and this replace,
    // and the replace would report it (or, after its check, silently undo it).
    CHECK_NOTHROW(edit.replace(bytes + "edit\n"));
  }
  writer.join();
  CHECK(test::read_bytes(path) == "whole\n");
}

TEST_CASE("FileEditLock refuses to replace a file changed in place since it was read",
          "[core][io]") {
  test::TempDir dir;
  const auto path = (dir / "vm.vmx").string();
  test::write_bytes(path, "base\n");
  FileEditLock lock(path);
  const std::string bytes = lock.read();
  test::write_bytes(path, "edited by an editor\n");  // same inode, no lock taken
  CHECK_THROWS_WITH(lock.replace(bytes + "mine\n"),
                    Catch::Contains("vm.vmx: changed on disk while vmxkit was editing it"));
  CHECK(test::read_bytes(path) == "edited by an editor\n");
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("FileEditLock refuses to replace a file that another program replaced", "[core][io]") {
  test::TempDir dir;
  const auto path = dir / "vm.vmx";
  test::write_bytes(path, "base\n");
  FileEditLock lock(path.string());
  const std::string bytes = lock.read();
  test::write_bytes(dir / "other", "base\n");
  std::filesystem::rename(dir / "other", path);  // a new inode, same content and size
  CHECK_THROWS_AS(lock.replace(bytes + "mine\n"), Error);
  CHECK(test::read_bytes(path) == "base\n");
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("FileEditLock locks the file now at the path after a replace it waited for",
          "[core][io]") {
  test::TempDir dir;
  const auto path = (dir / "vm.vmx").string();
  test::write_bytes(path, "old\n");
  std::string seen;
  std::thread waiter;
  {
    FileEditLock first(path);
    first.read();
    waiter = std::thread([&] {
      FileEditLock second(path);  // waits on the old inode, then moves to the new one
      seen = second.read();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first.replace("new\n");
  }
  waiter.join();
  CHECK(seen == "new\n");
}

TEST_CASE("edit_file_atomic writes nothing for no change or a failed edit", "[core][io]") {
  test::TempDir dir;
  const auto path = dir / "vm.vmx";
  test::write_bytes(path, "base\n");
  struct stat before {};
  REQUIRE(::stat(path.c_str(), &before) == 0);
  CHECK_FALSE(edit_file_atomic(path.string(), [](const std::string& b) { return b; }));
  CHECK_THROWS_AS(edit_file_atomic(path.string(),
                                   [](const std::string&) -> std::string {
                                     throw Error("vm.vmx", 2, 4, "bad");
                                   }),
                  Error);
  struct stat after {};
  REQUIRE(::stat(path.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK(test::read_bytes(path) == "base\n");
  CHECK(edit_file_atomic(path.string(), [](const std::string& b) { return b + "x\n"; }));
  CHECK(test::read_bytes(path) == "base\nx\n");
  CHECK(count_entries(dir.path()) == 1);
  CHECK_THROWS_WITH(
      edit_file_atomic((dir / "missing.vmx").string(), [](const std::string& b) { return b; }),
      Catch::Contains("missing.vmx: cannot open"));
}

// --- The one write path: links, modes, the VM's lock, unnamed temporary files --------------

TEST_CASE("a write through a symbolic link honours the VM lock beside the file it names",
          "[core][io]") {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "real");
  test::write_bytes(dir / "real" / "vm.vmx", "a = \"1\"\n");
  std::filesystem::create_symlink(dir / "real" / "vm.vmx", dir / "vm.vmx");
  const auto link = (dir / "vm.vmx").string();
  CHECK(vmx_lock_present(link).empty());
  std::filesystem::create_directory(dir / "real" / "vm.vmx.lck");  // the VM runs
  CHECK(vmx_lock_present(link) == (dir / "real" / "vm.vmx.lck").string());
  const LockOptions respect{false, "pass --force"};
  CHECK_THROWS_WITH(
      write_file_atomic(link, "a = \"2\"\n", respect),
      Catch::Contains("the VM holds its lock (" + (dir / "real" / "vm.vmx.lck").string() + ")") &&
          Catch::EndsWith("or pass --force"));
  CHECK_THROWS_AS(edit_file_atomic(
                      link, [](const std::string& b) { return b + "b = \"1\"\n"; }, respect),
                  Error);
  CHECK_THROWS_AS(OutputLock(link, respect), Error);
  CHECK(test::read_bytes(dir / "real" / "vm.vmx") == "a = \"1\"\n");
  CHECK(count_entries(dir / "real") == 2);
  // --force (ignore_vm_lock) writes, through the link, and the link stays.
  write_file_atomic(link, "a = \"3\"\n", LockOptions{true, {}});
  CHECK(std::filesystem::is_symlink(dir / "vm.vmx"));
  CHECK(test::read_bytes(dir / "real" / "vm.vmx") == "a = \"3\"\n");
}

TEST_CASE("a write keeps the set-user-ID, set-group-ID and sticky bits of the file it replaces",
          "[core][io]") {
  test::TempDir dir;
  const auto path = dir / "vm.vmx";
  for (const mode_t mode : {04755, 02750, 06711, 01644, 0400}) {
    INFO("mode " << std::oct << mode);
    test::write_bytes(path, "old\n");
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    write_file_atomic(path.string(), "new\n");
    CHECK(mode_of(path) == mode);
    CHECK(edit_file_atomic(path.string(), [](const std::string& b) { return b + "x\n"; }));
    CHECK(mode_of(path) == mode);
    CHECK(test::read_bytes(path) == "new\nx\n");
    REQUIRE(::chmod(path.c_str(), 0600) == 0);
  }
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("a write keeps the file's owner and group where the process may set them", "[core][io]") {
  if (::geteuid() != 0) return;  // only root may give a file to another owner
  test::TempDir dir;
  const auto path = dir / "vm.vmx";
  test::write_bytes(path, "old\n");
  REQUIRE(::chown(path.c_str(), 4321, 8765) == 0);
  REQUIRE(::chmod(path.c_str(), 04750) == 0);
  write_file_atomic(path.string(), "new\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(st.st_uid == 4321);
  CHECK(st.st_gid == 8765);
  CHECK((st.st_mode & 07777) == 04750);  // chown(2) clears set-user-ID: the mode comes after it
}

TEST_CASE("a write through a dangling symbolic link creates the file it names", "[core][io]") {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "sub");
  std::filesystem::create_symlink("sub/new.vmx", dir / "link.vmx");      // relative, dangling
  std::filesystem::create_symlink(dir / "link.vmx", dir / "link2.vmx");  // a chain of two
  CHECK(resolve_write_target((dir / "link2.vmx").string()) == (dir / "sub" / "new.vmx").string());
  write_file_atomic((dir / "link2.vmx").string(), "a = \"1\"\n");
  CHECK(std::filesystem::is_symlink(dir / "link.vmx"));
  CHECK(std::filesystem::is_symlink(dir / "link2.vmx"));
  CHECK(test::read_bytes(dir / "sub" / "new.vmx") == "a = \"1\"\n");
  CHECK(count_entries(dir / "sub") == 1);
  // A loop of links is an error, not a hang or a file written somewhere.
  std::filesystem::create_symlink(dir / "loop2", dir / "loop1");
  std::filesystem::create_symlink(dir / "loop1", dir / "loop2");
  CHECK_THROWS_WITH(write_file_atomic((dir / "loop1").string(), "x"),
                    Catch::Contains("too many levels of symbolic links"));
}

TEST_CASE("a new file gets its name at once, never over a file made in the meantime",
          "[core][io]") {
  test::TempDir dir;
  const auto path = dir / "out.vmx";
  OutputLock lock(path.string());
  CHECK_FALSE(lock.exists());
  CHECK_THROWS_WITH(lock.read(), Catch::Contains("out.vmx: cannot open"));
  test::write_bytes(path, "another program's\n");  // appears before the write
  lock.replace("mine\n");  // replaces it whole, under its lock, as a later whole-file write
  CHECK(test::read_bytes(path) == "mine\n");
  CHECK(count_entries(dir.path()) == 1);
}

TEST_CASE("an OutputLock taken before reading holds off every other writer until it replaces",
          "[core][io]") {
  test::TempDir dir;
  const auto path = (dir / "vm.vmx").string();
  test::write_bytes(path, "base\n");
  std::atomic<bool> edited{false};
  std::thread editor;
  {
    OutputLock out(path);
    REQUIRE(out.exists());
    editor = std::thread([&] {
      edit_file_atomic(path, [](const std::string& b) { return b + "edit\n"; });
      edited = true;
    });
    const std::string input = read_file(path);  // the input, read as any input is
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(edited);
    out.replace(input + "converted\n");
  }
  editor.join();
  CHECK(test::read_bytes(path) == "base\nconverted\nedit\n");
}

TEST_CASE("OutputLock::holds tells the locked file from others by path, link and inode",
          "[core][io]") {
  test::TempDir dir;
  test::write_bytes(dir / "vm.vmx", "a\n");
  test::write_bytes(dir / "other.vmx", "a\n");
  std::filesystem::create_symlink(dir / "vm.vmx", dir / "link.vmx");
  std::filesystem::create_hard_link(dir / "vm.vmx", dir / "hard.vmx");
  const OutputLock lock((dir / "vm.vmx").string());
  CHECK(lock.holds((dir / "vm.vmx").string()));
  CHECK(lock.holds((dir / "." / "vm.vmx").string()));
  CHECK(lock.holds((dir / "link.vmx").string()));
  CHECK(lock.holds((dir / "hard.vmx").string()));
  CHECK_FALSE(lock.holds((dir / "other.vmx").string()));
  CHECK_FALSE(lock.holds((dir / "missing.vmx").string()));
}

TEST_CASE("readers refuse a named pipe at once and read a pipe from process substitution",
          "[core][io]") {
  test::TempDir dir;
  const auto fifo = dir / "f.vmx";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(read_file(fifo.string()),
                    Catch::StartsWith(fifo.string() + ": a named pipe (FIFO), not a file"));
  CHECK_THROWS_WITH(InputFile(fifo.string()), Catch::Contains("a named pipe (FIFO)"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  // `<(command)`: the shell passes /dev/fd/N of a pipe whose writer is there.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::thread writer([&] {
    const ssize_t n = ::write(fds[1], "a = \"1\"\n", 8);
    CHECK(n == 8);
    ::close(fds[1]);
  });
  CHECK(read_file("/proc/self/fd/" + std::to_string(fds[0])) == "a = \"1\"\n");
  writer.join();
  ::close(fds[0]);
}

TEST_CASE("a path with a NUL byte is refused, not cut short at it", "[core][io]") {
  test::TempDir dir;
  test::write_bytes(dir / "f", "a = \"1\"\n");
  const std::string path = (dir / "f").string() + std::string(1, '\0') + "x";
  CHECK_THROWS_WITH(read_file(path), Catch::Contains("holds a NUL byte"));
  CHECK_THROWS_WITH(InputFile(path), Catch::Contains("holds a NUL byte"));
  CHECK_THROWS_WITH(write_file_atomic(path, "b\n"), Catch::Contains("holds a NUL byte"));
  CHECK(test::read_bytes(dir / "f") == "a = \"1\"\n");
}
