// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace vmxkit {

/// Largest input vmxkit reads (bytes). Real .vmx files are a few KiB; this cap keeps a mistaken
/// argument (a disk image, /dev/zero) from exhausting memory.
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;

/// Reads a whole file. Throws vmxkit::Error naming the path when it cannot, or when the file is
/// larger than `max_bytes`.
std::string read_file(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

/// Reads a whole stream (stdin). Throws vmxkit::Error when it is larger than `max_bytes`.
std::string read_stream(std::istream& in, const std::string& name,
                        std::size_t max_bytes = kMaxInputBytes);

/// The lock VMware keeps while a VM runs: `<file>.lck` beside the `.vmx` (a directory on VMFS
/// and on hosted products). Returns the lock's path when it exists, else an empty string.
std::string vmx_lock_present(const std::string& vmx_path);

/// Replaces `path` with `data` atomically: writes a temporary file in the same directory,
/// fsyncs it, gives it the original file's permission bits, renames it over `path` and fsyncs
/// the directory. On any failure the original file is untouched and vmxkit::Error is thrown.
/// A symbolic link is followed: the file it points to is replaced, the link stays.
void write_file_atomic(const std::string& path, std::string_view data);

}  // namespace vmxkit
