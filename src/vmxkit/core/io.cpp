// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>
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
#include <optional>
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
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = other.release();
    }
    return *this;
  }
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
    // A hint. NOLINTNEXTLINE(performance-no-int-to-ptr): page alignment needs the integer
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
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

// A path as a message shows it: a NUL byte (which ends a C string) written `\0`.
std::string printable_path(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

// A path with a NUL byte names no file, yet the system calls would read it up to the NUL:
// another file than the one given. Refused.
void refuse_nul(const std::string& path) {
  if (path.find('\0') != std::string::npos) {
    throw Error(printable_path(path), "the path holds a NUL byte, which no file name can hold");
  }
}

std::string parent_dir(const std::string& target) {
  const std::filesystem::path p(target);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// What the symbolic link `path` holds; empty when it cannot be read.
std::string read_link(const std::string& path) {
  std::string buffer(256, '\0');
  for (;;) {
    const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < buffer.size()) {
      buffer.resize(static_cast<std::size_t>(n));
      return buffer;
    }
    buffer.resize(buffer.size() * 2);
  }
}

// --- Temporary files a signal handler must be able to remove --------------------------------
// A fixed table, so that remove_temporary_files() touches no allocator and no lock: a slot is
// claimed (kWriting), filled, published (kReady); the handler claims a ready slot (kRemoving)
// before unlinking it, so it never reads a path that is being rewritten.
enum SlotState : int { kFree = 0, kWriting = 1, kReady = 2, kRemoving = 3 };
struct TempSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX]{};
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
constexpr int kTempSlots = 64;
// constinit: zero-filled by the loader (.bss), not written by a static constructor, which
// touched all 64 slots' pages (64 page faults) on every run.
constinit TempSlot g_temp_slots[kTempSlots];

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
  mode_t mode;  // the permission bits with set-user-ID, set-group-ID and sticky
  uid_t uid;
  gid_t gid;
};

// The process's umask, read without setting it (umask(2) sets it, racing with other threads
// that create files): the Umask line of /proc/self/status (Linux 4.7 and later).
std::optional<mode_t> read_umask() {
  const Fd fd(::open("/proc/self/status", O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd.get(), buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  const auto at = text.find("\nUmask:");
  if (at == std::string::npos) return std::nullopt;
  std::size_t i = at + 7;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  mode_t mask = 0;
  const std::size_t digits = i;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '7'; ++i) {
    mask = static_cast<mode_t>(mask * 8 + static_cast<mode_t>(text[i] - '0'));
  }
  if (i == digits) return std::nullopt;
  return mask & 0777;
}

// What a new unnamed (O_TMPFILE) file in `dir` needs to get the mode open(O_CREAT, 0666) would
// give it. Before Linux 6.0 ("fs: Add missing umask strip in vfs_tmpfile") O_TMPFILE did not
// apply the umask on file systems without POSIX ACLs: the mode is then set explicitly to 0666
// less the umask, which is also right where the file system has ACLs but the directory has no
// default ACL. With a default ACL the file system applies it to O_TMPFILE files as to named
// ones (there is no umask then). Unknown (nullopt) when neither the ACL nor the umask can be
// read: a named temporary file is made instead, whose mode the kernel sets as for any file.
struct NewFileMode {
  bool set = false;  // false: leave the mode the directory's default ACL gave
  mode_t mode = 0;
};
std::optional<NewFileMode> new_file_mode(const std::string& dir) {
  if (::getxattr(dir.c_str(), "system.posix_acl_default", nullptr, 0) >= 0) return NewFileMode{};
  if (errno != ENODATA && errno != ENOTSUP) return std::nullopt;
  const std::optional<mode_t> mask = read_umask();
  if (!mask) return std::nullopt;
  return NewFileMode{true, static_cast<mode_t>(0666 & ~*mask)};
}

// Gives the new file the replaced one's owner and whole mode. Both after the data, the mode
// last: a write(2) by a process without CAP_FSETID clears the set-user-ID and set-group-ID bits,
// and chown(2) clears them for root too (since Linux 2.2.13). Only root may give a file to
// another user; others keep at least the group where they belong to it. A mode the new file
// cannot have (set-group-ID on a group the writer is not in: the kernel drops the bit) is
// refused rather than written without it.
void keep_metadata(int fd, const Existing& e, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(path, "cannot stat the new file: " + errno_text());
  if (st.st_uid != e.uid || st.st_gid != e.gid) {
    if (::fchown(fd, e.uid, e.gid) != 0) {
      if (::geteuid() == 0) throw Error(path, "cannot keep the file owner: " + errno_text());
      const int ignored = ::fchown(fd, static_cast<uid_t>(-1), e.gid);  // where permitted
      (void)ignored;
    }
  }
  if (::fchmod(fd, e.mode) != 0) throw Error(path, "cannot set the file mode: " + errno_text());
  if (::fstat(fd, &st) != 0) throw Error(path, "cannot stat the new file: " + errno_text());
  if ((st.st_mode & 07777) != e.mode) {
    char message[160];
    std::snprintf(message, sizeof message,
                  "cannot keep the file's mode %04o (its replacement would have %04o: this user "
                  "may not set those bits on it); nothing written",
                  static_cast<unsigned>(e.mode), static_cast<unsigned>(st.st_mode & 07777));
    throw Error(path, message);
  }
}

// Gives the unnamed (O_TMPFILE) file `fd` the name `name`. Fails with EEXIST rather than
// replace a file there. /proc/self/fd first: AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH.
bool link_unnamed(int fd, const std::string& name) {
  char proc_path[64];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  if (::linkat(AT_FDCWD, proc_path, AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return true;
  if (errno == EEXIST) return false;
  return ::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0;
}

void sync_dir(const std::string& dir) {
  const Fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() >= 0) ::fsync(dir_fd.get());  // best effort: the rename is done
}

// The new content of `target` on its way to its name: made in the target's directory, unnamed
// where the file system has O_TMPFILE (and `unnamed_ok`), else under a temporary name that is
// registered for remove_temporary_files() and removed when the write fails.
class StagedWrite {
 public:
  enum class Created { yes, exists, needs_name };

  StagedWrite(const std::string& path, const std::string& target, const Existing* existing,
              bool unnamed_ok)
      : path_(path), target_(target), dir_(parent_dir(target)), existing_(existing) {
    if (unnamed_ok) open_unnamed();
    if (fd_.get() < 0) open_named();
  }
  StagedWrite(const StagedWrite&) = delete;
  StagedWrite& operator=(const StagedWrite&) = delete;
  ~StagedWrite() {
    if (!name_.empty()) ::unlink(name_.c_str());
  }

  // The data, then the replaced file's owner and mode, then fsync.
  void write(std::string_view data) {
    write_all(fd_.get(), data, path_);
    if (existing_ != nullptr) keep_metadata(fd_.get(), *existing_, path_);
    if (::fsync(fd_.get()) != 0) throw Error(path_, "cannot fsync: " + errno_text());
  }

  // Renames the content over the existing target, `before_rename` first. False when an
  // unnamed file cannot be given a name (no /proc, no CAP_DAC_READ_SEARCH): nothing written.
  bool replace(const std::function<void()>& before_rename) {
    before_rename();
    if (name_.empty() && !name_unnamed()) return false;
    if (::rename(name_.c_str(), target_.c_str()) != 0) {
      throw Error(path_, "cannot rename over the file: " + errno_text());
    }
    published();
    return true;
  }

  // Gives the content the target's name, `before_link` first, without replacing a file that
  // is there: Created::exists then, with nothing written.
  Created create(const std::function<void()>& before_link) {
    before_link();
    if (name_.empty()) {  // its own name at once: no other name ever exists
      if (link_unnamed(fd_.get(), target_)) {
        published();
        return Created::yes;
      }
      return errno == EEXIST ? Created::exists : Created::needs_name;
    }
    if (::renameat2(AT_FDCWD, name_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) != 0) {
      if (errno == EEXIST) return Created::exists;
      if (errno != EINVAL && errno != ENOSYS) {
        throw Error(path_, "cannot give the new file its name: " + errno_text());
      }
      // No RENAME_NOREPLACE on this file system: link(2) does not replace either; where there
      // are no hard links (FAT), a plain rename.
      if (::link(name_.c_str(), target_.c_str()) == 0) {
        ::unlink(name_.c_str());
      } else if (errno == EEXIST) {
        return Created::exists;
      } else if (::rename(name_.c_str(), target_.c_str()) != 0) {
        throw Error(path_, "cannot give the new file its name: " + errno_text());
      }
    }
    published();
    return Created::yes;
  }

 private:
  void open_unnamed() {
    // An existing file's content stays private until it has the file's mode.
    Fd fd(::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, existing_ ? 0600 : 0666));
    if (fd.get() < 0) return;
    if (existing_ == nullptr) {
      const std::optional<NewFileMode> mode = new_file_mode(dir_);
      if (!mode) return;
      if (mode->set && ::fchmod(fd.get(), mode->mode) != 0) return;
    }
    fd_ = std::move(fd);
  }

  void open_named() {
    // A new file is made like any program's (0666 less the umask, or the default ACL).
    const mode_t create_mode = existing_ != nullptr ? 0600 : 0666;
    for (int attempt = 0;; ++attempt) {
      std::string name = temp_name(dir_, target_);
      registration_.set(name);  // before it exists: no moment when a signal would leave it
      Fd fd(::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, create_mode));
      if (fd.get() >= 0) {
        fd_ = std::move(fd);
        name_ = std::move(name);
        return;
      }
      const int error = errno;
      registration_.clear();
      if (error != EEXIST || attempt >= 100) {
        errno = error;
        throw Error(path_, "cannot create a temporary file in " + dir_ + ": " + errno_text());
      }
    }
  }

  bool name_unnamed() {
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string name = temp_name(dir_, target_);
      registration_.set(name);
      if (link_unnamed(fd_.get(), name)) {
        name_ = std::move(name);
        return true;
      }
      const int error = errno;
      registration_.clear();
      if (error != EEXIST) return false;
    }
    return false;
  }

  void published() {
    name_.clear();
    registration_.clear();
    sync_dir(dir_);
  }

  const std::string& path_;
  const std::string& target_;
  std::string dir_;
  const Existing* existing_;
  TempRegistration registration_;
  Fd fd_{-1};
  std::string name_;  // the temporary name while it has one
};

// Replaces the existing `target` (whose lock the caller holds) with `data`.
void replace_existing(const std::string& path, const std::string& target, const Existing& e,
                      std::string_view data, const std::function<void()>& before_rename) {
  for (const bool unnamed_ok : {true, false}) {
    StagedWrite staged(path, target, &e, unnamed_ok);
    staged.write(data);
    if (staged.replace(before_rename)) return;
  }
}

// Creates `target` with `data`. False, with nothing written, when a file is there.
bool create_new(const std::string& path, const std::string& target, std::string_view data,
                const std::function<void()>& before_link) {
  for (const bool unnamed_ok : {true, false}) {
    StagedWrite staged(path, target, nullptr, unnamed_ok);
    staged.write(data);
    switch (staged.create(before_link)) {
      case StagedWrite::Created::yes:
        return true;
      case StagedWrite::Created::exists:
        return false;
      case StagedWrite::Created::needs_name:
        break;
    }
  }
  return false;  // not reached: a named file never needs a name
}

std::int64_t nanoseconds(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

namespace {

// Whether the pipe open as `fd` has a name in the file system (made by mkfifo), rather than
// being a pipe reached through /proc/self/fd or /dev/fd (`<(command)`), which has a writer or
// had one: the kernel names the latter `pipe:[inode]`.
bool named_fifo(int fd) {
  char proc_path[64];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  char target[8];
  const ssize_t n = ::readlink(proc_path, target, sizeof target);
  return !(n >= 5 && std::string_view(target, 5) == "pipe:");
}

// Opens an input for reading and fills `st`; a directory and a named pipe are refused here,
// what else is not a file (a device) by read_fd(). The open never waits: O_NONBLOCK, as
// opening a FIFO that no program writes waits for a writer, for ever; reads block again after.
Fd open_input(const std::string& path, struct stat& st) {
  refuse_nul(path);
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) throw Error(path, "cannot open: " + errno_text());
  if (::fstat(fd.get(), &st) != 0) throw Error(path, "cannot stat: " + errno_text());
  if (S_ISDIR(st.st_mode)) throw Error(path, "is a directory, expected a file");
  if (S_ISFIFO(st.st_mode) && named_fifo(fd.get())) {
    throw Error(path,
                "a named pipe (FIFO), not a file; refusing to read it, as it waits for a "
                "writer (give its content on stdin as `-` instead)");
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace

std::string read_file(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  const Fd fd = open_input(path, st);
  return read_fd(fd.get(), st, path, max_bytes);
}

namespace {

// The one mapping InputFile may hold, for a SIGBUS handler of the program's
// (mapped_input_at, which may only read it): its range and its path, kept in a fixed buffer.
std::atomic<bool> g_mapping_allowed{false};
std::atomic<bool> g_map_claimed{false};
std::atomic<const char*> g_map_begin{nullptr};
std::atomic<const char*> g_map_end{nullptr};
char g_map_path[PATH_MAX + 1];

}  // namespace

void allow_mapped_inputs() noexcept { g_mapping_allowed.store(true); }

const char* mapped_input_at(const void* address) noexcept {
  const char* a = static_cast<const char*>(address);
  const char* begin = g_map_begin.load();
  if (begin == nullptr || a < begin || a >= g_map_end.load()) return nullptr;
  return g_map_path;
}

InputFile::InputFile(const std::string& path, std::size_t max_bytes, Mapping mapping) {
  struct stat st {};
  Fd fd = open_input(path, st);
  const auto size = static_cast<std::size_t>(st.st_size);
  bool unclaimed = false;
  if (!S_ISREG(st.st_mode) || size < kMapMinBytes || size > max_bytes ||
      !g_mapping_allowed.load() || !g_map_claimed.compare_exchange_strong(unclaimed, true)) {
    data_ = read_fd(fd.get(), st, path, max_bytes);
    return;
  }
  const int populate = mapping == Mapping::populate ? MAP_POPULATE : 0;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | populate, fd.get(), 0);
  if (map == MAP_FAILED) {  // a file system that cannot map: read it
    g_map_claimed.store(false);
    data_ = read_fd(fd.get(), st, path, max_bytes);
    return;
  }
  const std::size_t n = std::min(path.size(), sizeof g_map_path - 1);
  std::memcpy(g_map_path, path.data(), n);
  g_map_path[n] = '\0';
  path_ = path;
  fd_ = fd.release();
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
  ::close(fd_);
  g_map_claimed.store(false);
}

void InputFile::read_at(std::size_t offset, std::span<char> to) const {
  const std::string_view bytes = this->bytes();
  if (offset > bytes.size() || to.size() > bytes.size() - offset) {
    throw Error(path_, "read past the end of the input");
  }
  if (map_ == nullptr) {
    if (!to.empty()) std::memcpy(to.data(), bytes.data() + offset, to.size());
    return;
  }
  std::size_t done = 0;
  while (done < to.size()) {
    const ssize_t n =
        ::pread(fd_, to.data() + done, to.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path_, "cannot read: " + errno_text());
    if (n == 0) throw Error(path_, kTruncatedInput);
    done += static_cast<std::size_t>(n);
  }
}

namespace {

// The mapped input's path when one of `iov` lies in it: a write(2) from a mapping whose file
// was truncated fails with EFAULT (the kernel copies, no SIGBUS), which is the input's fault.
const char* mapped_input_in(const std::vector<struct iovec>& iov) {
  for (const struct iovec& v : iov) {
    if (const char* path = mapped_input_at(v.iov_base)) return path;
  }
  return nullptr;
}

}  // namespace

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
      if (const char* input = errno == EFAULT ? mapped_input_in(iov) : nullptr) {
        throw Error(input, std::string(kTruncatedInput) + "; its output stops short");
      }
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

std::string resolve_write_target(const std::string& path) {
  refuse_nul(path);
  std::error_code ec;
  const auto existing = std::filesystem::canonical(path, ec);
  if (!ec) return existing.string();
  // Not there, or a link that dangles: follow the links by hand, then resolve the directory.
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    if (hops == 40) throw Error(path, "too many levels of symbolic links");
    const std::string link = read_link(p);
    if (link.empty()) break;
    if (link.front() == '/') {
      p = link;
    } else {
      std::string next = parent_dir(p);
      next += '/';
      next += link;
      p = std::move(next);
    }
  }
  const std::filesystem::path file(p);
  const auto dir = std::filesystem::canonical(parent_dir(p), ec);
  if (ec || !file.has_filename()) return p;
  return (dir / file.filename()).string();
}

std::string vmx_lock_present(const std::string& vmx_path) {
  refuse_nul(vmx_path);
  struct stat st {};
  std::string lock = vmx_path + ".lck";
  if (::lstat(lock.c_str(), &st) == 0) return lock;
  // VMware names its lock after the file it opened: a VM started through the link's target
  // keeps it beside the target.
  const std::string beside = resolve_write_target(vmx_path) + ".lck";
  return ::lstat(beside.c_str(), &st) == 0 ? beside : std::string();
}

void refuse_if_vm_locked(const std::string& path, const LockOptions& options) {
  if (options.ignore_vm_lock) return;
  const std::string lock = vmx_lock_present(path);
  if (lock.empty()) return;
  std::string message = "the VM holds its lock (" + lock +
                        "): it is running or was not shut down cleanly; power it off first";
  if (!options.override_hint.empty()) message += ", or " + options.override_hint;
  throw Error(path, message);
}

FileEditLock::FileEditLock(const std::string& path)
    : path_(path), target_(resolve_write_target(path)) {
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

void FileEditLock::replace(std::string_view data, const std::function<void()>& before_rename) {
  const Existing existing{static_cast<mode_t>(taken_.mode & 07777), static_cast<uid_t>(taken_.uid),
                          static_cast<gid_t>(taken_.gid)};
  replace_existing(path_, target_, existing, data, [&] {
    if (before_rename) before_rename();
    check_unchanged();  // the compare-and-swap: the file is still the one locked and read
  });
}

OutputLock::OutputLock(const std::string& path, LockOptions options)
    : path_(path), target_(resolve_write_target(path)), options_(std::move(options)) {
  check_vm_lock();
  struct stat st {};
  if (::lstat(target_.c_str(), &st) == 0 || errno != ENOENT) {
    lock_.emplace(path);
    target_ = lock_->target();
  }
}

void OutputLock::check_vm_lock() const { refuse_if_vm_locked(path_, options_); }

bool OutputLock::holds(const std::string& other) const {
  if (!lock_ || other.find('\0') != std::string::npos) return false;
  if (resolve_write_target(other) == target_) return true;
  struct stat st {};
  return ::stat(other.c_str(), &st) == 0 &&
         static_cast<std::uint64_t>(st.st_dev) == lock_->device() &&
         static_cast<std::uint64_t>(st.st_ino) == lock_->inode();
}

std::string OutputLock::read(std::size_t max_bytes) {
  if (!lock_) throw Error(path_, std::string("cannot open: ") + std::strerror(ENOENT));
  return lock_->read(max_bytes);
}

void OutputLock::replace(std::string_view data) {
  const std::function<void()> check = [this] { check_vm_lock(); };
  for (int attempt = 0;; ++attempt) {
    if (lock_) {
      lock_->replace(data, check);
      return;
    }
    if (create_new(path_, target_, data, check)) return;
    // Another program made the file since the lock was taken (nothing was read from it):
    // replace it under its lock, as a whole-file write after that one does.
    if (attempt == 10) throw Error(path_, "made and removed by other programs; nothing written");
    lock_.emplace(path_);
  }
}

bool edit_file_atomic(const std::string& path,
                      const std::function<std::string(const std::string& bytes)>& edit,
                      const LockOptions& options, std::size_t max_bytes) {
  OutputLock lock(path, options);
  const std::string before = lock.read(max_bytes);
  const std::string after = edit(before);
  if (after == before) return false;
  lock.replace(after);
  return true;
}

bool edit_file_atomic(const std::string& path,
                      const std::function<std::string(const std::string& bytes)>& edit,
                      std::size_t max_bytes) {
  return edit_file_atomic(path, edit, LockOptions{true, {}}, max_bytes);
}

void write_file_atomic(const std::string& path, std::string_view data, const LockOptions& options) {
  OutputLock lock(path, options);
  lock.replace(data);
}

void write_file_atomic(const std::string& path, std::string_view data) {
  write_file_atomic(path, data, LockOptions{true, {}});
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
