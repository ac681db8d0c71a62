// SPDX-License-Identifier: Apache-2.0
#include "cli/output_stream.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

namespace vmxkit::cli {

bool FdOutputBuffer::write_all(const char* data, std::size_t size) {
  if (error_ != 0) return false;
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool FdOutputBuffer::drain() {
  const auto pending = static_cast<std::size_t>(pptr() - pbase());
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return pending == 0 || write_all(buffer_.data(), pending);
}

FdOutputBuffer::int_type FdOutputBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize FdOutputBuffer::xsputn(const char* s, std::streamsize n) {
  const auto size = static_cast<std::size_t>(n);
  const auto room = static_cast<std::size_t>(epptr() - pptr());
  if (size <= room) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(size));
    return n;
  }
  if (!drain()) return 0;
  if (size < buffer_.size()) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(size));
    return n;
  }
  // A piece as large as the buffer: written as it is, not copied.
  return write_all(s, size) ? n : 0;
}

int FdOutputBuffer::sync() { return drain() ? 0 : -1; }

std::string output_failure(std::ostream& out) {
  out.flush();
  if (!out.fail()) return {};
  std::string message = "<stdout>: cannot write";
  if (const auto* fd_buffer = dynamic_cast<const FdOutputBuffer*>(out.rdbuf())) {
    if (fd_buffer->error() != 0) message += std::string(": ") + std::strerror(fd_buffer->error());
  }
  return message;
}

std::string close_stdout_failure() {
  if (::close(STDOUT_FILENO) == 0 || errno == EBADF || errno == EINTR) return {};
  // EINTR: Linux has closed the descriptor all the same, and reports no write error by it.
  return std::string("<stdout>: cannot close: ") + std::strerror(errno);
}

}  // namespace vmxkit::cli
