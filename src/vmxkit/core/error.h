// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vmxkit {

/// A condition that stops a run: unreadable file, input that cannot be parsed at all, a refused
/// write. The CLI catches it in one place and exits with code 2. `what()` is the whole message,
/// already prefixed with `file:line:col: ` when those are known.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  Error(const std::string& path, const std::string& message)
      : std::runtime_error(path.empty() ? message : path + ": " + message), path_(path) {}
  Error(const std::string& path, std::uint32_t line, std::uint32_t column,
        const std::string& message)
      : std::runtime_error(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                           message),
        path_(path),
        line_(line),
        column_(column) {}

  const std::string& path() const { return path_; }
  std::uint32_t line() const { return line_; }      ///< 1-based; 0 when not about a line
  std::uint32_t column() const { return column_; }  ///< 1-based; 0 when not about a line

 private:
  std::string path_;
  std::uint32_t line_ = 0;
  std::uint32_t column_ = 0;
};

}  // namespace vmxkit
