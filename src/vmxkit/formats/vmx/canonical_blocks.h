// SPDX-License-Identifier: Apache-2.0
// fmt's inner loops: runs of `.vmx` lines already in canonical form, judged 64 bytes at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vmxkit::vmx::detail {

/// Skips, from `p` (the start of a line) on, blocks of up to 64 bytes of whole lines that are
/// plain canonical entries (`key = "value"`, nothing to recode) or blank lines, each ending in
/// LF, and returns where it stopped: at the first block that is not wholly such lines or that
/// ends no line, or within 64 bytes of `size`. Adds the lines it skipped to `lines`.
/// Every line it skips is one the line-by-line test (LineScanner::skip_canonical) accepts; it
/// may stop before lines that test accepts (comments, bytes a key may hold but a value may
/// not), which the caller then takes one by one. Uses AVX-512BW, AVX2 or SSE2, whichever the
/// CPU has; returns `p` on other architectures.
std::size_t skip_canonical_lf_blocks(const unsigned char* b, std::size_t p, std::size_t size,
                                     std::uint32_t& lines);

/// The same for lines that are canonical but end in CRLF (a Windows-edited `.vmx` whose text
/// is mostly LF): appends each to `out` with LF in place of CRLF, as the canonical form writes
/// it, and returns where it stopped.
std::size_t crlf_blocks_to_lf(const unsigned char* b, std::size_t p, std::size_t size,
                              std::uint32_t& lines, std::string& out);

/// The instruction sets the two functions above can use, for the tests to run each one the CPU
/// has (the functions use the best).
enum class BlockIsa { none, sse2, avx2, avx512bw };
std::vector<BlockIsa> block_isas();
std::size_t skip_canonical_lf_blocks(BlockIsa isa, const unsigned char* b, std::size_t p,
                                     std::size_t size, std::uint32_t& lines);
std::size_t crlf_blocks_to_lf(BlockIsa isa, const unsigned char* b, std::size_t p, std::size_t size,
                              std::uint32_t& lines, std::string& out);

}  // namespace vmxkit::vmx::detail
