// SPDX-License-Identifier: Apache-2.0
// What a program's signal handlers may call: no allocation, no lock. Public (vmxkit.h): the
// program, not the library, owns its signal handlers, since the library never prints or exits.
#pragma once

namespace vmxkit {

/// What a mapped input truncated under vmxkit is (after its path): the message of a SIGBUS
/// handler's report, and of the Error a write of the mapped bytes throws.
inline constexpr const char* kTruncatedInput = "truncated by another program while vmxkit read it";

/// Lets vmxkit map large input files (1 MiB and more: CanonicalVmx::read(), and the library's
/// own file reads) instead of copying them; off until called. A program calls it once it has a
/// SIGBUS handler that asks mapped_input_at(): without one, a file truncated under a mapping
/// kills the process with SIGBUS, as it would any program that maps a file.
void allow_mapped_inputs() noexcept;

/// For a SIGBUS handler (async-signal-safe: no allocation, no lock): the path of the input
/// vmxkit has mapped when `address` (siginfo_t::si_addr) lies in it, else null.
const char* mapped_input_at(const void* address) noexcept;

/// Unlinks the temporary files that write_file_bytes() has on disk at this moment (named only
/// between two system calls of a replacement, or where the file system lacks O_TMPFILE).
/// Async-signal-safe: a SIGINT/SIGTERM handler calls it, then re-raises the signal.
void remove_temporary_files() noexcept;

}  // namespace vmxkit
