// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vmxkit/core/signal_safe.h"

namespace vmxkit {

/// Largest input vmxkit reads (bytes). Real .vmx files are a few KiB; this cap keeps a mistaken
/// argument (a disk image, /dev/zero) from exhausting memory.
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;

/// How long FileEditLock waits for another writer of the same file before giving up (seconds).
inline constexpr int kEditLockWaitSeconds = 60;

/// Reads a whole file. Throws vmxkit::Error naming the path when it cannot, or when the file is
/// larger than `max_bytes`.
std::string read_file(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

/// A file's bytes for reading only. A regular file of kMapMinBytes or more is mapped
/// (MAP_PRIVATE, populated at once) where the program allows it (allow_mapped_inputs): the page
/// cache's pages are the input, with no zero-filled buffer and no copy, which is most of what
/// reading a large file costs. Anything else (a small file, a pipe, a program that has not
/// allowed mappings) is read as read_file() reads it, with the same checks and errors.
///
/// A mapped file that another program truncates while vmxkit reads it makes the reads past the
/// new end raise SIGBUS, which the library neither catches nor reports (it never prints or
/// exits): the program's handler asks mapped_input_at() whether the fault is in the mapped
/// input, as the command line's does (exit 2 with kTruncatedInput). A write of the mapped bytes
/// (write_pieces) fails instead, with an Error naming the input. One mapping at a time; a
/// second InputFile of a large file while one is mapped is read instead.
class InputFile {
 public:
  static constexpr std::size_t kMapMinBytes = std::size_t{1} << 20;
  /// How a mapped file's pages are mapped: `populate` maps them all at once (a reader that
  /// goes through bytes() touches each anyway); `on_touch` maps none before one is touched (a
  /// reader that copies the bytes with read_at() and only writes pieces of the mapping: written
  /// to /dev/null, no page is ever mapped).
  enum class Mapping { populate, on_touch };
  explicit InputFile(const std::string& path, std::size_t max_bytes = kMaxInputBytes,
                     Mapping mapping = Mapping::populate);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::string_view bytes() const { return map_ != nullptr ? mapped_ : std::string_view(data_); }
  bool mapped() const { return map_ != nullptr; }
  /// Copies bytes()[offset, offset + to.size()) into `to`; from a mapped file with pread(2),
  /// which copies from the page cache without touching the mapping's pages (their first touch
  /// is what reading a mapped file costs most where page faults are expensive). Throws
  /// vmxkit::Error naming the file when it cannot (kTruncatedInput: it was truncated).
  void read_at(std::size_t offset, std::span<char> to) const;

 private:
  std::string path_;
  std::string data_;
  void* map_ = nullptr;
  int fd_ = -1;  ///< open while mapped, for read_at()
  std::string_view mapped_;
};

/// Writes `pieces` in order to the file descriptor `fd` (stdout) with writev(2), up to IOV_MAX
/// pieces a call, resuming after partial writes and EINTR: one system call for a thousand
/// pieces where a stream writes each large one on its own. Throws vmxkit::Error naming `name`
/// when a write fails (a closed pipe, a full disk), or naming the mapped input when a piece in
/// it can no longer be read (the file was truncated: EFAULT).
void write_pieces(int fd, std::span<const std::string_view> pieces, const std::string& name);

/// Reserves `capacity` bytes in `s` and, for a large buffer on Linux, asks for transparent huge
/// pages: fmt's 64 MiB output then costs tens of page faults instead of 16,384. Only a hint:
/// without THP (or elsewhere) it is a plain reserve(). The kernel may compact memory to give
/// huge pages (THP defrag = madvise), which now and then costs more than the faults saved, so
/// it is for output buffers that no latency-sensitive reader waits on, not for every input.
void reserve_large(std::string& s, std::size_t capacity);

/// Reads a whole stream (stdin). Throws vmxkit::Error when it is larger than `max_bytes`.
std::string read_stream(std::istream& in, const std::string& name,
                        std::size_t max_bytes = kMaxInputBytes);

/// The file a write to `path` lands in: every symbolic link followed, the last one also when it
/// dangles (the write then creates the file it names, and the link stays), and the directories
/// resolved, as an absolute path. A path that names no link is returned with its directory
/// resolved. Throws vmxkit::Error for a path holding a NUL byte or a loop of links.
std::string resolve_write_target(const std::string& path);

/// The lock VMware keeps while a VM runs: `<file>.lck` beside the `.vmx` (a directory on VMFS
/// and on hosted products). VMware names it after the file it opened, so for a `.vmx` reached
/// through a symbolic link both the link's lock and the lock beside the file it resolves to
/// count. Returns the first lock's path that exists, else an empty string.
std::string vmx_lock_present(const std::string& vmx_path);

/// What a writer does about the VM's lock (vmx_lock_present).
struct LockOptions {
  /// Write even while the VM holds its lock (a user's --force).
  bool ignore_vm_lock = false;
  /// How the user overrides the refusal ("pass --force"); ends the refusal's message.
  std::string override_hint;
};

/// Throws vmxkit::Error naming the lock when the VM at `path` holds it, unless
/// `options.ignore_vm_lock`.
void refuse_if_vm_locked(const std::string& path, const LockOptions& options);

/// An exclusive lock that serializes vmxkit's writers of one existing file, so that a
/// read-modify-write (`set -i`, `fix -i`) never loses another one's edit.
///
/// Design: an advisory flock(2) on the file itself, taken before the file is read and held until
/// the new content has been renamed over it. A replaced file is a new inode, and a lock on the
/// old inode says nothing about the new one, so after acquiring the lock the constructor checks
/// that the path still names the inode it locked; when another writer renamed a new file over
/// the path meanwhile, it drops that lock and locks the new file instead. A writer holding the
/// lock therefore holds it on the file at the path, and every other vmxkit writer waits for it.
/// This leaves nothing on disk (no lock file to go stale or clean up), a killed process's lock
/// goes with it, and flock belongs to the open file, so other descriptors of the same file in
/// the process (fcntl locks would be dropped by any close) and other threads are serialized too.
/// Writers that do not take the lock (an editor, VMware itself) are caught by replace(): it
/// refuses when the file changed since it was read.
class FileEditLock {
 public:
  /// Locks the file at `path` (symbolic links followed: resolve_write_target), waiting for other
  /// vmxkit writers for up to kEditLockWaitSeconds. Throws vmxkit::Error when the file cannot
  /// be opened, is not a regular file, cannot be locked, or stays locked too long.
  explicit FileEditLock(const std::string& path);
  FileEditLock(const FileEditLock&) = delete;
  FileEditLock& operator=(const FileEditLock&) = delete;
  ~FileEditLock();

  /// The whole file as it is under the lock. Throws like read_file.
  std::string read(std::size_t max_bytes = kMaxInputBytes);

  /// Replaces the file with `data` like write_file_atomic, keeping its whole mode (set-user-ID,
  /// set-group-ID and sticky bits included) and its owner and group where the process may set
  /// them (root: always; others: the group, when they belong to it). Compare-and-swap: throws
  /// vmxkit::Error, writing nothing, when the file was changed or replaced since the lock was
  /// taken (device, inode, size, times, mode and owner, recorded once under the lock), by a
  /// writer that does not take it: an edit is never reported written when it is not in the
  /// file. `before_rename`, when given, runs last before the rename; what it throws leaves the
  /// file as it is.
  void replace(std::string_view data, const std::function<void()>& before_rename = {});

  /// The file locked: the resolved path, and its device and inode.
  const std::string& target() const { return target_; }
  std::uint64_t device() const { return taken_.device; }
  std::uint64_t inode() const { return taken_.inode; }

 private:
  struct Snapshot {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::int64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;
    std::uint32_t mode = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    bool operator==(const Snapshot&) const = default;
  };
  Snapshot snapshot() const;
  void check_unchanged() const;

  std::string path_;    ///< as given, for messages
  std::string target_;  ///< the file the path resolves to
  int fd_ = -1;
  Snapshot taken_;  ///< the file when the lock was taken
};

/// The one write path's lock, taken before a command reads anything, so that an input that is
/// also the output (`convert F -o F`, `generate --base F -o F`, a Document saved over its file)
/// is read and replaced under one lock and no other vmxkit writer's edit falls between.
///
/// It locks the file `path` resolves to (resolve_write_target: a symbolic link is followed, a
/// dangling one to the file it would create). An existing file is held with a FileEditLock and
/// replaced by compare-and-swap (FileEditLock::replace). A file that does not exist yet is
/// created whole, never over a file that appeared in the meantime: it gets its name by link(2),
/// which fails rather than replace, and is then replaced under the lock as an existing file
/// (a whole-file write after the other one). The VM's lock (vmx_lock_present) is checked when
/// the lock is taken and again just before the rename.
class OutputLock {
 public:
  explicit OutputLock(const std::string& path, LockOptions options = {});
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  /// Whether the file existed when the lock was taken (and so is held).
  bool exists() const { return lock_.has_value(); }
  /// The file written (resolve_write_target).
  const std::string& target() const { return target_; }
  /// Whether `other` names the file held: it resolves to the same path, or stat(2) finds the
  /// same device and inode (a hard link). False while no file is held.
  bool holds(const std::string& other) const;
  /// The held file's bytes. Throws like FileEditLock::read, or when no file is held.
  std::string read(std::size_t max_bytes = kMaxInputBytes);
  /// Writes `data` as the file's whole content (see the class comment). Throws vmxkit::Error
  /// with the file as it was.
  void replace(std::string_view data);

 private:
  void check_vm_lock() const;

  std::string path_;  ///< as given, for messages
  std::string target_;
  LockOptions options_;
  std::optional<FileEditLock> lock_;
};

/// Edits a file in place: under a FileEditLock, reads it, calls `edit` with its bytes and, when
/// the result differs, replaces the file with it atomically. Returns whether it wrote. Whatever
/// `edit` throws propagates with the file untouched.
bool edit_file_atomic(const std::string& path,
                      const std::function<std::string(const std::string& bytes)>& edit,
                      std::size_t max_bytes = kMaxInputBytes);
/// The same, refused (vmxkit::Error, nothing written) while the VM holds its lock unless
/// `options.ignore_vm_lock`: checked before the file is read and again before the rename.
bool edit_file_atomic(const std::string& path,
                      const std::function<std::string(const std::string& bytes)>& edit,
                      const LockOptions& options, std::size_t max_bytes = kMaxInputBytes);

/// Replaces `path` with `data` atomically: writes a temporary file in the same directory,
/// fsyncs it, renames it over `path` and fsyncs the directory (an OutputLock's replace). An
/// existing file keeps its whole mode and owner (FileEditLock::replace) and is replaced under
/// its FileEditLock; a new file gets 0666 less the umask (or the directory's default ACL), as
/// any program's would. On any failure the original file is untouched and vmxkit::Error is
/// thrown. A symbolic link is followed: the file it points to is replaced (or, when it dangles,
/// created), the link stays.
///
/// Temporary files: where the file system has O_TMPFILE, the new content has no name until it
/// is complete and fsynced; a new file then gets its own name directly (linkat), so nothing
/// else is ever named, and an existing one gets a temporary name for the moment between
/// linkat and rename (no system call replaces a file with an unnamed one). Elsewhere the
/// temporary file is named from its creation. A signal handler that calls
/// remove_temporary_files() removes a named one on SIGINT/SIGTERM/SIGHUP; only SIGKILL (or a
/// power cut) in that window can leave one, as `.NAME.vmxkit-XXXXXXXXXXXX` beside the file.
void write_file_atomic(const std::string& path, std::string_view data);
/// The same, refused while the VM holds its lock unless `options.ignore_vm_lock`.
void write_file_atomic(const std::string& path, std::string_view data, const LockOptions& options);

}  // namespace vmxkit
