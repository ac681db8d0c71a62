// SPDX-License-Identifier: Apache-2.0
// The process's standard output as a stream that remembers why a write failed, so that every
// command's output is checked in one place (run() and main()), not in each command.
#pragma once

#include <array>
#include <cstddef>
#include <iosfwd>
#include <streambuf>
#include <string>

namespace vmxkit::cli {

/// A stream buffer writing to a file descriptor with write(2). The first failed write keeps its
/// errno (error()) and fails the stream (badbit); later writes are dropped, so a command that
/// goes on printing after a failure neither blocks nor repeats the error.
class FdOutputBuffer : public std::streambuf {
 public:
  explicit FdOutputBuffer(int fd) : fd_(fd) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  FdOutputBuffer(const FdOutputBuffer&) = delete;
  FdOutputBuffer& operator=(const FdOutputBuffer&) = delete;
  ~FdOutputBuffer() override { sync(); }

  int fd() const { return fd_; }
  /// errno of the first failed write, 0 when every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool write_all(const char* data, std::size_t size);
  bool drain();

  static constexpr std::size_t kBufferSize = std::size_t{64} << 10;
  int fd_;
  int error_ = 0;
  std::array<char, kBufferSize> buffer_{};
};

/// Flushes `out` and says whether all of it was written: empty when it was, else the message,
/// `<stdout>: cannot write: No space left on device` (the OS error where `out` writes through
/// an FdOutputBuffer).
std::string output_failure(std::ostream& out);

/// Closes standard output and says whether the close reported an error (a file system that
/// reports a failed write only then): empty when not, else the message. Ignores a descriptor
/// that was never open (EBADF).
std::string close_stdout_failure();

}  // namespace vmxkit::cli
