// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

std::string read_file(const std::string& path, std::size_t max_bytes) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw Error(path, "cannot open: " + errno_text());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(path, "cannot stat: " + errno_text());
  if (S_ISDIR(st.st_mode)) throw Error(path, "is a directory, expected a file");
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    throw Error(path, too_large(max_bytes));
  }
  std::string data;
  if (S_ISREG(st.st_mode)) data.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path, "cannot read: " + errno_text());
    }
    if (n == 0) break;
    if (data.size() + static_cast<std::size_t>(n) > max_bytes) throw Error(path, too_large(max_bytes));
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
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

void write_file_atomic(const std::string& path, std::string_view data) {
  // Resolve a symlink so the link itself survives and the target is what gets replaced.
  std::string target = path;
  {
    std::error_code ec;
    const auto resolved = std::filesystem::canonical(path, ec);
    if (!ec) target = resolved.string();
  }
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) throw Error(path, "not a regular file; refusing to replace it");

  const std::filesystem::path p(target);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  std::string tmpl = dir + "/." + p.filename().string() + ".vmxkit-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  Fd fd(::mkstemp(name.data()));
  if (fd.get() < 0) throw Error(path, "cannot create a temporary file in " + dir + ": " + errno_text());
  const std::string tmp(name.data());
  auto fail = [&](const std::string& what) {
    const std::string message = what + ": " + errno_text();
    ::unlink(tmp.c_str());
    throw Error(path, message);
  };
  const mode_t mode = exists ? (st.st_mode & 07777) : static_cast<mode_t>(0644);
  if (::fchmod(fd.get(), mode) != 0) fail("cannot set the file mode");
  if (exists && ::geteuid() == 0 && ::fchown(fd.get(), st.st_uid, st.st_gid) != 0) {
    fail("cannot keep the file owner");
  }
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd.get(), data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) fail("cannot fsync");
  if (::close(fd.release()) != 0) fail("cannot close");
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail("cannot rename over the file");
  Fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() >= 0) ::fsync(dir_fd.get());  // best effort: the rename is done
}

}  // namespace vmxkit
