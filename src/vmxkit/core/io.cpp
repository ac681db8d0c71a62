// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "vmxkit/core/error.h"

namespace vmxkit {
namespace {

std::string errno_text() { return std::strerror(errno); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::string too_large(std::size_t max_bytes) {
  return "input is larger than " + std::to_string(max_bytes >> 20) + " MiB; refusing to read it";
}

}  // namespace

void reserve_large(std::string& s, std::size_t capacity) {
  s.reserve(capacity);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  if (capacity < 2 * kHugePage) return;
  // The whole pages inside the buffer; madvise() wants a page-aligned start.
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(s.data()) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(s.data()) + capacity) & ~(page - 1);
  if (end > begin) {
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint
  }
#endif
}

namespace {

// Reads `fd` from its current offset to the end.
std::string read_fd(int fd, const struct stat& st, const std::string& path, std::size_t max_bytes) {
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    throw Error(path, too_large(max_bytes));
  }
  // A device (/dev/zero, a disk) is no configuration file and may never end: refuse it before
  // reading a byte. Pipes and sockets are read up to the cap (`<(govc ...)`, stdin).
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    throw Error(path, S_ISCHR(st.st_mode) ? "a character device, not a file; refusing to read it"
                                          : "a block device, not a file; refusing to read it");
  }
  std::string data;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    // Straight into the string, without a bounce buffer: a large file is copied once.
    data.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < data.size()) {
      const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error(path, "cannot read: " + errno_text());
      }
      if (n == 0) break;  // shorter than it was: truncated while read
      got += static_cast<std::size_t>(n);
    }
    data.resize(got);
    if (got < static_cast<std::size_t>(st.st_size)) return data;
    // It may have grown since: read on.
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path, "cannot read: " + errno_text());
    }
    if (n == 0) break;
    if (data.size() + static_cast<std::size_t>(n) > max_bytes)
      throw Error(path, too_large(max_bytes));
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
}

// The file a path names, a symbolic link resolved, so the link survives a replace.
std::string resolve(const std::string& path) {
  std::error_code ec;
  const auto resolved = std::filesystem::canonical(path, ec);
  return ec ? path : resolved.string();
}

std::string parent_dir(const std::string& target) {
  const std::filesystem::path p(target);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// --- Temporary files a signal handler must be able to remove --------------------------------
// A fixed table, so that remove_temporary_files() touches no allocator and no lock: a slot is
// claimed (kWriting), filled, published (kReady); the handler claims a ready slot (kRemoving)
// before unlinking it, so it never reads a path that is being rewritten.
enum SlotState : int { kFree = 0, kWriting = 1, kReady = 2, kRemoving = 3 };
struct TempSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
constexpr int kTempSlots = 64;
TempSlot g_temp_slots[kTempSlots];

class TempRegistration {
 public:
  TempRegistration() = default;
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;
  ~TempRegistration() { clear(); }

  void set(const std::string& path) {
    clear();
    if (path.size() >= PATH_MAX) return;
    for (int i = 0; i < kTempSlots; ++i) {
      int expected = kFree;
      if (g_temp_slots[i].state.compare_exchange_strong(expected, kWriting)) {
        std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
        g_temp_slots[i].state.store(kReady, std::memory_order_release);
        slot_ = i;
        return;
      }
    }
  }
  void clear() {
    if (slot_ < 0) return;
    int expected = kReady;
    // When a handler is removing it, the process is about to die: leave the slot to it.
    g_temp_slots[slot_].state.compare_exchange_strong(expected, kFree);
    slot_ = -1;
  }

 private:
  int slot_ = -1;
};

std::string temp_name(const std::string& dir, const std::string& target) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kAlphabet - 2);
  std::string name = dir + "/." + std::filesystem::path(target).filename().string() + ".vmxkit-";
  for (int i = 0; i < 12; ++i) name += kAlphabet[pick(random)];
  return name;
}

void write_all(int fd, std::string_view data, const std::string& path) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path, "cannot write: " + errno_text());
    }
    written += static_cast<std::size_t>(n);
  }
}

// The file's metadata to carry over to its replacement.
struct Existing {
  mode_t mode;
  uid_t uid;
  gid_t gid;
};

// Writes `data` to a new file next to `target` and renames it over `target`; `before_rename`
// runs last, and throwing from it leaves `target` as it is. `existing` is null for a new file.
template <typename BeforeRename>
void replace_file(const std::string& path, const std::string& target, const Existing* existing,
                  std::string_view data, BeforeRename before_rename, bool anonymous_ok = true) {
  const std::string dir = parent_dir(target);
  TempRegistration registration;
  std::string tmp;  // the temporary file's name once it has one
  auto fail = [&](const std::string& what) {
    const std::string message = what + ": " + errno_text();
    if (!tmp.empty()) ::unlink(tmp.c_str());
    throw Error(path, message);
  };

  // An existing file's content stays private until the file has its mode; a new file is made
  // like any program's (0666 less the umask, or the directory's default ACL).
  const mode_t create_mode = existing != nullptr ? 0600 : 0666;
  // O_TMPFILE: no name until the data is on disk, so a killed process leaves nothing behind.
  // Only for an existing file, whose mode is set explicitly below: some kernels do not apply
  // the umask to O_TMPFILE on file systems without ACLs.
  int raw = existing != nullptr && anonymous_ok
                ? ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, create_mode)
                : -1;
  const bool anonymous = raw >= 0;
  for (int attempt = 0; raw < 0; ++attempt) {
    tmp = temp_name(dir, target);
    registration.set(tmp);  // before it exists: no moment when a signal would leave it behind
    raw = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, create_mode);
    if (raw < 0) {
      const int error = errno;
      tmp.clear();
      registration.clear();
      errno = error;
      if (error != EEXIST || attempt >= 100) fail("cannot create a temporary file in " + dir);
    }
  }
  Fd fd(raw);
  if (existing != nullptr) {
    if (::fchmod(fd.get(), existing->mode) != 0) fail("cannot set the file mode");
    if (::geteuid() == 0 && ::fchown(fd.get(), existing->uid, existing->gid) != 0) {
      fail("cannot keep the file owner");
    }
  }
  try {
    write_all(fd.get(), data, path);
  } catch (...) {
    if (!tmp.empty()) ::unlink(tmp.c_str());
    throw;
  }
  if (::fsync(fd.get()) != 0) fail("cannot fsync");
  if (anonymous) {
    // Give the data a name only now, just before the rename.
    char proc_path[64];
    std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd.get());
    for (int attempt = 0; tmp.empty(); ++attempt) {
      std::string name = temp_name(dir, target);
      registration.set(name);
      if (::linkat(AT_FDCWD, proc_path, AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0 ||
          ::linkat(fd.get(), "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0) {
        tmp = std::move(name);
      } else if (errno != EEXIST || attempt >= 100) {
        // No way to name it (no /proc, no CAP_DAC_READ_SEARCH): write a named one instead.
        registration.clear();
        ::close(fd.release());
        replace_file(path, target, existing, data, before_rename, false);
        return;
      }
    }
  }
  if (::close(fd.release()) != 0) fail("cannot close");
  try {
    before_rename();
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail("cannot rename over the file");
  tmp.clear();
  registration.clear();
  Fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() >= 0) ::fsync(dir_fd.get());  // best effort: the rename is done
}

std::int64_t nanoseconds(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

namespace {

// Opens an input for reading and fills `st`; a directory is refused here, what else is not a
// file (a device) by read_fd().
Fd open_input(const std::string& path, struct stat& st) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw Error(path, "cannot open: " + errno_text());
  if (::fstat(fd.get(), &st) != 0) throw Error(path, "cannot stat: " + errno_text());
  if (S_ISDIR(st.st_mode)) throw Error(path, "is a directory, expected a file");
  return fd;
}

}  // namespace

std::string read_file(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  const Fd fd = open_input(path, st);
  return read_fd(fd.get(), st, path, max_bytes);
}

namespace {

// The one mapping InputFile may hold, for the SIGBUS handler: its range and a message made
// before any read (the handler may only call async-signal-safe functions: write, _exit).
std::atomic<const char*> g_map_begin{nullptr};
std::atomic<const char*> g_map_end{nullptr};
char g_bus_message[1024];
std::size_t g_bus_message_size = 0;
struct sigaction g_previous_bus {};

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const char* addr = static_cast<const char*>(info->si_addr);
  const char* begin = g_map_begin.load();
  if (begin != nullptr && addr >= begin && addr < g_map_end.load()) {
    const ssize_t ignored = ::write(STDERR_FILENO, g_bus_message, g_bus_message_size);
    (void)ignored;
    ::_exit(2);
  }
  // Not ours: what would have happened without this handler.
  if ((g_previous_bus.sa_flags & SA_SIGINFO) != 0 && g_previous_bus.sa_sigaction != nullptr) {
    g_previous_bus.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous_bus.sa_handler != SIG_DFL && g_previous_bus.sa_handler != SIG_IGN &&
      g_previous_bus.sa_handler != nullptr) {
    g_previous_bus.sa_handler(sig);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);
}

}  // namespace

InputFile::InputFile(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  const Fd fd = open_input(path, st);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (!S_ISREG(st.st_mode) || size < kMapMinBytes || size > max_bytes ||
      g_map_begin.load() != nullptr) {
    data_ = read_fd(fd.get(), st, path, max_bytes);
    return;
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
  if (map == MAP_FAILED) {  // a file system that cannot map: read it
    data_ = read_fd(fd.get(), st, path, max_bytes);
    return;
  }
  const std::string message =
      "vmxkit: error: " + path + ": truncated by another program while vmxkit read it\n";
  g_bus_message_size = std::min(message.size(), sizeof g_bus_message);
  std::memcpy(g_bus_message, message.data(), g_bus_message_size);
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous_bus);
  map_ = map;
  mapped_ = std::string_view(static_cast<const char*>(map), size);
  g_map_end.store(mapped_.data() + size);
  g_map_begin.store(mapped_.data());
}

InputFile::~InputFile() {
  if (map_ == nullptr) return;
  g_map_begin.store(nullptr);
  g_map_end.store(nullptr);
  ::munmap(map_, mapped_.size());
  ::sigaction(SIGBUS, &g_previous_bus, nullptr);
}

void write_pieces(int fd, std::span<const std::string_view> pieces, const std::string& name) {
  std::vector<struct iovec> iov;
  iov.reserve(std::min<std::size_t>(pieces.size(), IOV_MAX));
  std::size_t next = 0;
  while (next < pieces.size() || !iov.empty()) {
    while (next < pieces.size() && iov.size() < IOV_MAX) {
      const std::string_view p = pieces[next++];
      if (!p.empty()) iov.push_back({const_cast<char*>(p.data()), p.size()});
    }
    if (iov.empty()) break;
    const ssize_t n = ::writev(fd, iov.data(), static_cast<int>(iov.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(name, "cannot write: " + errno_text());
    }
    // Drop what was written: whole pieces, then the written part of the next one.
    auto left = static_cast<std::size_t>(n);
    std::size_t done = 0;
    while (done < iov.size() && left >= iov[done].iov_len) left -= iov[done++].iov_len;
    iov.erase(iov.begin(), iov.begin() + static_cast<std::ptrdiff_t>(done));
    if (!iov.empty() && left > 0) {
      iov.front().iov_base = static_cast<char*>(iov.front().iov_base) + left;
      iov.front().iov_len -= left;
    }
  }
}

std::string read_stream(std::istream& in, const std::string& name, std::size_t max_bytes) {
  std::string data;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    if (data.size() + n > max_bytes) throw Error(name, too_large(max_bytes));
    data.append(buffer, n);
  }
  if (in.bad()) throw Error(name, "cannot read");
  return data;
}

std::string vmx_lock_present(const std::string& vmx_path) {
  const std::string lock = vmx_path + ".lck";
  struct stat st {};
  return ::lstat(lock.c_str(), &st) == 0 ? lock : std::string();
}

FileEditLock::FileEditLock(const std::string& path) : path_(path), target_(resolve(path)) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(kEditLockWaitSeconds);
  for (;;) {
    if (Clock::now() > deadline) {
      throw Error(path, "replaced by other writers for " + std::to_string(kEditLockWaitSeconds) +
                            " s; nothing written");
    }
    // O_NONBLOCK: opening a FIFO must not hang; it is refused below. A file that may be
    // written but not read can still be locked (and replaced whole, though not edited).
    constexpr int kFlags = O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    int raw = ::open(target_.c_str(), O_RDONLY | kFlags);
    if (raw < 0 && errno == EACCES) raw = ::open(target_.c_str(), O_WRONLY | kFlags);
    Fd fd(raw);
    if (fd.get() < 0) throw Error(path, "cannot open: " + errno_text());
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error(path, "cannot stat: " + errno_text());
    if (S_ISDIR(st.st_mode)) throw Error(path, "is a directory, expected a file");
    if (!S_ISREG(st.st_mode)) throw Error(path, "not a regular file; refusing to replace it");
    auto pause = std::chrono::milliseconds(1);
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) throw Error(path, "cannot lock: " + errno_text());
      if (Clock::now() > deadline) {
        throw Error(path, "another process has been editing it for " +
                              std::to_string(kEditLockWaitSeconds) + " s; nothing written");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    // The lock is on an inode: make sure it is still the one at the path. If another writer
    // renamed its result over the path while this one waited, lock that file instead.
    struct stat now {};
    if (::stat(target_.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
      fd_ = fd.release();
      taken_ = snapshot();
      return;
    }
  }
}

FileEditLock::~FileEditLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor of the open file drops the lock
}

FileEditLock::Snapshot FileEditLock::snapshot() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error(path_, "cannot stat: " + errno_text());
  Snapshot s;
  s.device = static_cast<std::uint64_t>(st.st_dev);
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::int64_t>(st.st_size);
  s.mtime_ns = nanoseconds(st.st_mtim);
  s.ctime_ns = nanoseconds(st.st_ctim);
  s.mode = static_cast<std::uint32_t>(st.st_mode);
  s.uid = static_cast<std::uint32_t>(st.st_uid);
  s.gid = static_cast<std::uint32_t>(st.st_gid);
  return s;
}

void FileEditLock::check_unchanged() const {
  static const char* const kChanged =
      "changed on disk while vmxkit was editing it (by a program that does not take vmxkit's "
      "lock); nothing written, run the command again";
  struct stat now {};
  if (::stat(target_.c_str(), &now) != 0 ||
      static_cast<std::uint64_t>(now.st_dev) != taken_.device ||
      static_cast<std::uint64_t>(now.st_ino) != taken_.inode) {
    throw Error(path_, kChanged);
  }
  if (!(snapshot() == taken_)) throw Error(path_, kChanged);
}

std::string FileEditLock::read(std::size_t max_bytes) {
  if (::lseek(fd_, 0, SEEK_SET) != 0) throw Error(path_, "cannot seek: " + errno_text());
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error(path_, "cannot stat: " + errno_text());
  std::string data = read_fd(fd_, st, path_, max_bytes);
  check_unchanged();  // not rewritten in place while it was being read
  return data;
}

void FileEditLock::replace(std::string_view data) {
  const Existing existing{static_cast<mode_t>(taken_.mode & 07777), static_cast<uid_t>(taken_.uid),
                          static_cast<gid_t>(taken_.gid)};
  replace_file(path_, target_, &existing, data, [this] { check_unchanged(); });
}

bool edit_file_atomic(const std::string& path,
                      const std::function<std::string(const std::string& bytes)>& edit,
                      std::size_t max_bytes) {
  FileEditLock lock(path);
  const std::string before = lock.read(max_bytes);
  const std::string after = edit(before);
  if (after == before) return false;
  lock.replace(after);
  return true;
}

void write_file_atomic(const std::string& path, std::string_view data) {
  const std::string target = resolve(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) throw Error(path, "not a regular file; refusing to replace it");
    FileEditLock lock(path);
    lock.replace(data);
    return;
  }
  replace_file(path, target, nullptr, data, [] {});
}

void remove_temporary_files() noexcept {
  for (TempSlot& slot : g_temp_slots) {
    int expected = kReady;
    if (slot.state.compare_exchange_strong(expected, kRemoving, std::memory_order_acquire)) {
      ::unlink(slot.path);
    }
  }
}

}  // namespace vmxkit
