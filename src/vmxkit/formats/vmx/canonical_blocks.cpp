// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vmx/canonical_blocks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define VMXKIT_X86_BLOCKS 1
#endif

namespace vmxkit::vmx::detail {

#if defined(VMXKIT_X86_BLOCKS)
namespace {

constexpr std::size_t kBlock = 64;

/// One bit per byte of a 64-byte block (bit i for byte i) for each class the test needs.
struct Masks {
  std::uint64_t lf;      // '\n'
  std::uint64_t cr;      // '\r'
  std::uint64_t quote;   // '"'
  std::uint64_t space;   // ' '
  std::uint64_t equals;  // '='
  std::uint64_t tab;     // '\t'
  std::uint64_t hash;    // '#': a comment, or a key's end, outside values
  std::uint64_t odd;     // what no canonical line holds: control bytes but tab, LF and CR,
                         // '|' and DEL (a value escapes them)
};

/// Bit i: the parity of the set bits of `x` at or below i.
inline std::uint64_t prefix_xor(std::uint64_t x) {
  for (int shift = 1; shift < 64; shift *= 2) x ^= x << shift;
  return x;
}

/// How many bytes of the block (which starts a line) are whole canonical lines ending in LF
/// (or, `crlf`, in CRLF), or 0 when it ends no line or one of its whole lines is not a plain
/// entry or a blank line. The `key = "value"` lines are checked on the masks, the simdjson
/// way: the quotes' prefix parity tells values from the rest; a closing quote must end its
/// line, an opening one follow " = " after a key of at least one byte, and nothing outside
/// values may be a blank, '=' or '#'.
template <bool crlf>
inline std::size_t whole_canonical_lines(const Masks& m) {
  if (m.lf == 0) return 0;
  const int last = 63 - __builtin_clzll(m.lf);
  const std::uint64_t whole = last == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (last + 1)) - 1;
  const std::uint64_t end = crlf ? m.cr : m.lf;  // the first byte of a line's ending
  const std::uint64_t ending = crlf ? (m.lf & ~(m.cr << 1)) | (m.cr & ~(m.lf >> 1)) : m.cr;
  const std::uint64_t inside = prefix_xor(m.quote);  // an opening quote and its value
  const std::uint64_t open = m.quote & inside;
  const std::uint64_t close = m.quote & ~inside;
  const std::uint64_t around = (open >> 1) | (open >> 2) | (open >> 3);  // the " = " before it
  const std::uint64_t stop = m.space | m.equals | m.tab | m.hash;
  const std::uint64_t wrong =
      m.odd | ending                      // nothing escaped; each line ends as the others
      | (close ^ (m.quote & (end >> 1)))  // a closing quote ends a line
      | (open & ~((m.space << 1) & (m.equals << 2) & (m.space << 3)))  // " = " before a value
      | (open & ((m.lf << 4) | 0xF))                                   // a key of one byte or more
      | (end & inside)                                                 // no line ends in a value
      | (end & ~((close << 1) | (m.lf << 1) | 1))  // a line is blank or an entry
      | (stop & ~inside & ~around);                // no blank, '=' or '#' in a key
  return (wrong & whole) != 0 ? 0 : static_cast<std::size_t>(last) + 1;
}

/// Judges the block at `b` from its masks: skips its whole LF lines, or appends its whole CRLF
/// lines to `out` with LF; returns how many bytes it took (0: none).
template <bool crlf>
inline std::size_t take_block(const Masks& m, const unsigned char* b, std::uint32_t& lines,
                              std::string* out) {
  const std::size_t n = whole_canonical_lines<crlf>(m);
  if (n == 0) return 0;
  lines += static_cast<std::uint32_t>(__builtin_popcountll(m.lf));
  if constexpr (crlf) {
    const char* chars = reinterpret_cast<const char*>(b);
    std::size_t start = 0;
    for (std::uint64_t rest = m.lf; rest != 0; rest &= rest - 1) {
      const auto at = static_cast<std::size_t>(__builtin_ctzll(rest));
      out->append(chars + start, at - 1 - start).push_back('\n');
      start = at + 1;
    }
  }
  return n;
}

using Skipper = std::size_t (*)(const unsigned char*, std::size_t, std::size_t, std::uint32_t&,
                                std::string*);

// Three ways to compute the masks of the 64 bytes at `b`, one per instruction set: each
// function's target lets the compiler use that set there alone. The loop over blocks is the
// same in each skipper; it is written out in each so that it takes its own target.

#define VMXKIT_TARGET(isa) __attribute__((target(isa), always_inline)) inline

VMXKIT_TARGET("avx512bw") std::uint64_t equal_avx512(__m512i x, char c) {
  return _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c));
}

VMXKIT_TARGET("avx512bw") Masks masks_avx512(const unsigned char* b) {
  const __m512i x = _mm512_loadu_si512(b);
  Masks m{};
  m.lf = equal_avx512(x, '\n');
  m.cr = equal_avx512(x, '\r');
  m.quote = equal_avx512(x, '"');
  m.space = equal_avx512(x, ' ');
  m.equals = equal_avx512(x, '=');
  m.tab = equal_avx512(x, '\t');
  m.hash = equal_avx512(x, '#');
  m.odd = (_mm512_cmple_epu8_mask(x, _mm512_set1_epi8(0x1F)) & ~(m.lf | m.cr | m.tab)) |
          equal_avx512(x, '|') | equal_avx512(x, 0x7F);
  return m;
}

VMXKIT_TARGET("avx2") std::uint64_t bits_avx2(__m256i lo, __m256i hi) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(lo)) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hi))) << 32;
}

VMXKIT_TARGET("avx2") std::uint64_t equal_avx2(__m256i lo, __m256i hi, char c) {
  const __m256i v = _mm256_set1_epi8(c);
  return bits_avx2(_mm256_cmpeq_epi8(lo, v), _mm256_cmpeq_epi8(hi, v));
}

// Control bytes (tab, LF and CR included), '|' and DEL.
VMXKIT_TARGET("avx2") __m256i odd_avx2(__m256i x) {
  const __m256i control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1F)), x);
  return _mm256_or_si256(control, _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('|')),
                                                  _mm256_cmpeq_epi8(x, _mm256_set1_epi8(0x7F))));
}

VMXKIT_TARGET("avx2") Masks masks_avx2(const unsigned char* b) {
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
  Masks m{};
  m.lf = equal_avx2(lo, hi, '\n');
  m.cr = equal_avx2(lo, hi, '\r');
  m.quote = equal_avx2(lo, hi, '"');
  m.space = equal_avx2(lo, hi, ' ');
  m.equals = equal_avx2(lo, hi, '=');
  m.tab = equal_avx2(lo, hi, '\t');
  m.hash = equal_avx2(lo, hi, '#');
  m.odd = bits_avx2(odd_avx2(lo), odd_avx2(hi)) & ~(m.lf | m.cr | m.tab);
  return m;
}

inline std::uint64_t bits_sse2(const __m128i (&x)[4]) {
  std::uint64_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    mask |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(x[k])))
            << (16 * k);
  }
  return mask;
}

inline std::uint64_t equal_sse2(const __m128i (&x)[4], char c) {
  const __m128i v = _mm_set1_epi8(c);
  const __m128i hit[4] = {_mm_cmpeq_epi8(x[0], v), _mm_cmpeq_epi8(x[1], v), _mm_cmpeq_epi8(x[2], v),
                          _mm_cmpeq_epi8(x[3], v)};
  return bits_sse2(hit);
}

inline Masks masks_sse2(const unsigned char* b) {
  __m128i x[4];
  __m128i odd[4];
  for (std::size_t k = 0; k < 4; ++k) {
    x[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * k));
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(x[k], _mm_set1_epi8(0x1F)), x[k]);
    odd[k] = _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(x[k], _mm_set1_epi8('|')),
                                                _mm_cmpeq_epi8(x[k], _mm_set1_epi8(0x7F))));
  }
  Masks m{};
  m.lf = equal_sse2(x, '\n');
  m.cr = equal_sse2(x, '\r');
  m.quote = equal_sse2(x, '"');
  m.space = equal_sse2(x, ' ');
  m.equals = equal_sse2(x, '=');
  m.tab = equal_sse2(x, '\t');
  m.hash = equal_sse2(x, '#');
  m.odd = bits_sse2(odd) & ~(m.lf | m.cr | m.tab);
  return m;
}

template <bool crlf>
__attribute__((target("avx512bw"))) std::size_t skip_avx512(const unsigned char* b, std::size_t p,
                                                            std::size_t size, std::uint32_t& lines,
                                                            std::string* out) {
  for (std::size_t n = 1; n != 0 && size - p >= kBlock; p += n) {
    n = take_block<crlf>(masks_avx512(b + p), b + p, lines, out);
  }
  return p;
}

template <bool crlf>
__attribute__((target("avx2"))) std::size_t skip_avx2(const unsigned char* b, std::size_t p,
                                                      std::size_t size, std::uint32_t& lines,
                                                      std::string* out) {
  for (std::size_t n = 1; n != 0 && size - p >= kBlock; p += n) {
    n = take_block<crlf>(masks_avx2(b + p), b + p, lines, out);
  }
  return p;
}

template <bool crlf>
std::size_t skip_sse2(const unsigned char* b, std::size_t p, std::size_t size, std::uint32_t& lines,
                      std::string* out) {
  for (std::size_t n = 1; n != 0 && size - p >= kBlock; p += n) {
    n = take_block<crlf>(masks_sse2(b + p), b + p, lines, out);
  }
  return p;
}

#undef VMXKIT_TARGET

template <bool crlf>
Skipper skipper_for(BlockIsa isa) {
  switch (isa) {
    case BlockIsa::avx512bw:
      return skip_avx512<crlf>;
    case BlockIsa::avx2:
      return skip_avx2<crlf>;
    case BlockIsa::sse2:
      return skip_sse2<crlf>;
    case BlockIsa::none:
      break;
  }
  return nullptr;
}

BlockIsa best_isa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw") != 0) return BlockIsa::avx512bw;
  if (__builtin_cpu_supports("avx2") != 0) return BlockIsa::avx2;
  return BlockIsa::sse2;
}

}  // namespace

std::vector<BlockIsa> block_isas() {
  std::vector<BlockIsa> isas{BlockIsa::none, BlockIsa::sse2};
  if (__builtin_cpu_supports("avx2") != 0) isas.push_back(BlockIsa::avx2);
  if (__builtin_cpu_supports("avx512bw") != 0) isas.push_back(BlockIsa::avx512bw);
  return isas;
}

std::size_t skip_canonical_lf_blocks(BlockIsa isa, const unsigned char* b, std::size_t p,
                                     std::size_t size, std::uint32_t& lines) {
  const Skipper skipper = skipper_for<false>(isa);
  return skipper == nullptr ? p : skipper(b, p, size, lines, nullptr);
}

std::size_t crlf_blocks_to_lf(BlockIsa isa, const unsigned char* b, std::size_t p, std::size_t size,
                              std::uint32_t& lines, std::string& out) {
  const Skipper skipper = skipper_for<true>(isa);
  return skipper == nullptr ? p : skipper(b, p, size, lines, &out);
}

std::size_t skip_canonical_lf_blocks(const unsigned char* b, std::size_t p, std::size_t size,
                                     std::uint32_t& lines) {
  static const Skipper skipper = skipper_for<false>(best_isa());
  return skipper(b, p, size, lines, nullptr);
}

std::size_t crlf_blocks_to_lf(const unsigned char* b, std::size_t p, std::size_t size,
                              std::uint32_t& lines, std::string& out) {
  static const Skipper skipper = skipper_for<true>(best_isa());
  return skipper(b, p, size, lines, &out);
}

#else

std::vector<BlockIsa> block_isas() { return {BlockIsa::none}; }

std::size_t skip_canonical_lf_blocks(BlockIsa, const unsigned char*, std::size_t p, std::size_t,
                                     std::uint32_t&) {
  return p;
}

std::size_t crlf_blocks_to_lf(BlockIsa, const unsigned char*, std::size_t p, std::size_t,
                              std::uint32_t&, std::string&) {
  return p;
}

std::size_t skip_canonical_lf_blocks(const unsigned char*, std::size_t p, std::size_t,
                                     std::uint32_t&) {
  return p;
}

std::size_t crlf_blocks_to_lf(const unsigned char*, std::size_t p, std::size_t, std::uint32_t&,
                              std::string&) {
  return p;
}

#endif

}  // namespace vmxkit::vmx::detail
