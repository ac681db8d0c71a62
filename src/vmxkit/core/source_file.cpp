// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/source_file.h"

#include <algorithm>
#include <limits>

#include "vmxkit/core/error.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vmxkit {

LineBreaks count_line_breaks(std::string_view text) {
  // Every '\n' and every '\r' is a break, but a "\r\n" (a '\n' with a '\r' before it) is one.
  std::size_t lf = 0, cr = 0, pairs = 0;
  const char* const base = text.data();
  const std::size_t n = text.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  if (n >= 17) {
    // Byte 0 on its own, then 16-byte chunks compared with themselves shifted by one byte. The
    // comparisons (0 or -1 per byte) are summed per byte lane for up to 255 chunks, then added
    // up with _mm_sad_epu8: no popcount instruction needed.
    lf += base[0] == '\n';
    cr += base[0] == '\r';
    i = 1;
    const __m128i nl = _mm_set1_epi8('\n');
    const __m128i r = _mm_set1_epi8('\r');
    const __m128i zero = _mm_setzero_si128();
    const auto lanes_sum = [&zero](__m128i acc) {
      const __m128i sums = _mm_sad_epu8(acc, zero);
      return static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
    };
    while (i + 16 <= n) {
      __m128i acc_lf = zero, acc_cr = zero, acc_pairs = zero;
      for (int k = 0; k < 255 && i + 16 <= n; ++k, i += 16) {
        const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i));
        const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i - 1));
        const __m128i is_lf = _mm_cmpeq_epi8(chunk, nl);
        acc_lf = _mm_sub_epi8(acc_lf, is_lf);
        acc_cr = _mm_sub_epi8(acc_cr, _mm_cmpeq_epi8(chunk, r));
        acc_pairs = _mm_sub_epi8(acc_pairs, _mm_and_si128(is_lf, _mm_cmpeq_epi8(before, r)));
      }
      lf += lanes_sum(acc_lf);
      cr += lanes_sum(acc_cr);
      pairs += lanes_sum(acc_pairs);
    }
  }
#endif
  for (; i < n; ++i) {
    if (base[i] == '\n') {
      ++lf;
      if (i > 0 && base[i - 1] == '\r') ++pairs;
    } else if (base[i] == '\r') {
      ++cr;
    }
  }
  return {lf - pairs, pairs, cr - pairs};
}

const char* find_line_break(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask =
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, nl), _mm_cmpeq_epi8(chunk, cr)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '\n' && *p != '\r') ++p;
  return p;
}

LineIndex::LineIndex(std::string_view text) {
  if (text.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error("text is larger than 4 GiB; cannot index its lines");
  }
  starts_.reserve(count_line_breaks(text).total() + 1);
  const char* const base = text.data();
  const char* const end = base + text.size();
  for (const char* p = find_line_break(base, end); p < end; p = find_line_break(p, end)) {
    p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
    starts_.push_back(static_cast<std::uint32_t>(p - base));
  }
}

LineIndex LineIndex::from_starts(std::vector<std::uint32_t> starts) {
  LineIndex index;
  if (!starts.empty() && starts.front() == 0) index.starts_ = std::move(starts);
  return index;
}

Location LineIndex::location(std::size_t offset) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const auto line = static_cast<std::size_t>(it - starts_.begin());  // >= 1: starts_[0] == 0
  return {static_cast<std::uint32_t>(line),
          static_cast<std::uint32_t>(offset - starts_[line - 1] + 1)};
}

std::string_view LineIndex::line_text(std::string_view text, std::size_t offset) const {
  const Location loc = location(offset);
  const std::size_t begin = std::min<std::size_t>(starts_[loc.line - 1], text.size());
  // The line ends where the next one starts, less its line ending; the last line at the end.
  std::size_t end = loc.line < starts_.size() ? starts_[loc.line] : text.size();
  end = std::min(end, text.size());
  if (loc.line < starts_.size()) {
    if (end > begin && text[end - 1] == '\n') --end;
    if (end > begin && text[end - 1] == '\r') --end;
  }
  return text.substr(begin, end - begin);
}

const LineIndex& SourceFile::lines() const {
  if (!indexed_) {
    index_ = LineIndex(bytes_);
    indexed_ = true;
  }
  return index_;
}

}  // namespace vmxkit
